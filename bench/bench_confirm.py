"""Overhead of `dynlint confirm` (emulate backend) against plain eager steps, on Faster R-CNN.

    python bench/bench_confirm.py [--steps 3] [--repeats 2]

Prints, per step, the plain eager time, the emulate backend's recording
(op observer + module tracker, nothing to capture or replay), and the whole
confirm run (scan + record + captures + replays), with their ratios to eager,
in wall time and in process CPU time.
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
    parser.add_argument("--repeats", type=int, default=2, help="runs of each; the fastest is kept")
    args = parser.parse_args()
    from dynlint.confirm.run import run_confirm
    from examples.confirm import fasterrcnn

    tv = os.path.dirname(torchvision.__file__)
    paths = [os.path.join(tv, "models", "detection"), os.path.join(tv, "ops")]
    model = fasterrcnn.build_model()
    batches = fasterrcnn.make_batches(args.steps)
    with torch.no_grad():
        model(*batches[0])  # warm-up: first-call allocations are not the tool's cost
    findings = None
    if importlib.util.find_spec("dynlint.api") is None:
        findings = []  # no static scanner: the full run replays nothing
        print("note: dynlint.api is not available; scanning skipped, nothing replayed")

    def eager_run():
        with torch.no_grad():
            for batch in batches:
                model(*batch)

    def record_only():  # no findings: nothing is captured or replayed
        return run_confirm(model, batches, [], steps=args.steps, backend="emulate", findings=[])

    def full():
        return run_confirm(model, batches, paths, steps=args.steps, backend="emulate", findings=findings)

    # Alternate the runs and keep the fastest of each: on a shared machine the minimum is the
    # least disturbed measurement.  CPU time (all threads) is reported beside wall time.
    best = {name: [float("inf"), float("inf")] for name in ("eager", "record", "full")}
    result = None
    for _ in range(args.repeats):
        for name, fn in (("eager", eager_run), ("record", record_only), ("full", full)):
            wall, cpu = time.perf_counter(), time.process_time()
            out = fn()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            best[name] = [min(best[name][0], wall / args.steps), min(best[name][1], cpu / args.steps)]
            if name == "full":
                result = out
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {fasterrcnn.IMAGES_PER_BATCH} "
          f"image(s) of {fasterrcnn.SIZE}x{fasterrcnn.SIZE}, {args.steps} steps, best of {args.repeats}")
    eager_wall, eager_cpu = best["eager"]
    print(f"{'per step':<40} {'wall s':>8} {'ratio':>7} {'cpu s':>8} {'ratio':>7}")
    for label, name in (("plain eager", "eager"), ("emulate record (observer + tracker)", "record"),
                        ("whole confirm (scan + record + replays)", "full")):
        wall, cpu = best[name]
        print(f"{label:<40} {wall:8.3f} {wall / eager_wall:6.2f}x {cpu:8.3f} {cpu / eager_cpu:6.2f}x")
    print(f"replayed: {', '.join(r.name for r in result.replays) or 'nothing'}; "
          f"dynamic modules: {', '.join(result.dynamic_modules()) or 'none'}")

if __name__ == "__main__":
    main()
