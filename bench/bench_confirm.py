"""Overhead of `dynlint confirm` (emulate backend) against plain eager steps, on Faster R-CNN.

    python bench/bench_confirm.py [--steps 3]

Prints the plain eager time per step, the recording time per step under the
emulate backend (op observer + module tracker + captures), the whole confirm
run (scan + record + replays) per step, and their ratios to eager.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    from dynlint.confirm.run import run_confirm
    from examples.confirm import fasterrcnn

    tv = os.path.dirname(torchvision.__file__)
    paths = [os.path.join(tv, "models", "detection"), os.path.join(tv, "ops")]
    model = fasterrcnn.build_model()
    batches = fasterrcnn.make_batches(args.steps)
    with torch.no_grad():
        model(*batches[0])  # warm-up: first-call allocations are not the tool's cost
        start = time.perf_counter()
        for batch in batches:
            model(*batch)
        eager = (time.perf_counter() - start) / args.steps

    findings = None
    if importlib.util.find_spec("dynlint.api") is None:
        findings = []  # no static scanner yet: measure record and the replay of nothing
        print("note: dynlint.api is not available; scanning skipped, nothing replayed")
    start = time.perf_counter()
    result = run_confirm(model, batches, paths, steps=args.steps, backend="emulate", findings=findings)
    total = (time.perf_counter() - start) / args.steps
    record = result.timings["record"] / args.steps
    replay = result.timings["replay"] / args.steps
    scan = result.timings["scan"]
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {fasterrcnn.IMAGES_PER_BATCH} "
          f"image(s) of {fasterrcnn.SIZE}x{fasterrcnn.SIZE}, {args.steps} steps")
    print(f"eager step:               {eager:8.3f} s")
    print(f"emulate record per step:  {record:8.3f} s   ratio {record / eager:5.2f}x")
    print(f"replays per step:         {replay:8.3f} s   ({len(result.replays)} module(s) replayed)")
    print(f"static scan (once):       {scan:8.3f} s")
    print(f"whole confirm per step:   {total:8.3f} s   ratio {total / eager:5.2f}x")
    print(f"dynamic modules: {', '.join(result.dynamic_modules()) or 'none'}")


if __name__ == "__main__":
    main()
