"""Cost of `dynlint confirm`: fixed start-up cost and per-step cost, emulate and compile backends,
on torchvision's Faster R-CNN and on the graph network of examples/confirm/graph_pool.py.

    python bench/bench_confirm.py [--models frcnn graph] [--backends emulate compile] [--steps 3]

For each model and backend, the whole confirm run (scan + warm-up + record + captures +
replays) is timed with 1 step and with --steps steps, findings scanned once beforehand:
  per step  = (T(steps) - T(1)) / (steps - 1)
  start-up  = T(1) - per step     (warm-up run, set-up, first compiles, replays of the first capture)
T is the fastest of --repeats runs, after one untimed-for-the-ratio first run whose extra cost
(imports, Dynamo initialisation: paid once per process) is printed on its own line.
The anchor, measured in the same process, is one plain eager step of the same model.
Wall and process CPU time are printed; on a shared machine prefer CPU time.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def frcnn():
    import torchvision

    from examples.confirm import fasterrcnn

    tv = os.path.dirname(torchvision.__file__)
    paths = [os.path.join(tv, "models", "detection"), os.path.join(tv, "ops")]
    return "Faster R-CNN", fasterrcnn.build_model, fasterrcnn.make_batches, paths


def graph():
    from examples.confirm import graph_pool

    def build():
        torch.manual_seed(0)
        return graph_pool.GraphNet().eval()

    def batches(steps):
        return graph_pool.make_batches(tuple(graph_pool.GRAPHS_PER_STEP[i % 5] for i in range(steps)))

    return "graph network (PyG-like batch)", build, batches, [os.path.join(ROOT, "examples", "confirm",
                                                                           "graph_pool.py")]


MODELS = {"frcnn": frcnn, "graph": graph}


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--backends", nargs="+", default=["emulate", "compile"], choices=["emulate", "compile"])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2, help="timed runs of each length; the fastest is kept")
    args = parser.parse_args()
    from dynlint.confirm.findings import scan
    from dynlint.confirm.run import run_confirm

    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, os load {os.getloadavg()[0]:.1f}")
    header = f"{'model':<32} {'backend':<8} {'what':<28} {'wall s':>8} {'cpu s':>8} {'x eager(cpu)':>12}"
    print(header)
    print("-" * len(header))
    for key in args.models:
        label, build, make_batches, paths = MODELS[key]()
        findings = scan(paths)  # scanned once: the scan's cost is the linter's, not confirm's
        model = build()
        batches = make_batches(args.steps)
        first = batches[0]
        call = (lambda: model(*first)) if isinstance(first, tuple) else (lambda: model(first))
        with torch.no_grad():
            call()  # first-call allocations are not a step's cost
            samples = [timed(call)[:2] for _ in range(3)]
        eager_wall = statistics.median(s[0] for s in samples)
        eager_cpu = statistics.median(s[1] for s in samples)
        print(f"{label:<32} {'-':<8} {'plain eager step (anchor)':<28} {eager_wall:8.3f} {eager_cpu:8.3f} {1:12.1f}")
        for backend in args.backends:
            def run(steps, backend=backend, build=build, make_batches=make_batches, paths=paths,
                    findings=findings):
                return run_confirm(build(), make_batches(steps), paths, steps=steps, backend=backend,
                                   findings=findings)

            cold_wall, cold_cpu, _ = timed(lambda run=run: run(1))  # pays the process's one-time costs
            ones, manys = [], []
            for _ in range(args.repeats):  # alternate, keep the least disturbed (minimum) of each
                ones.append(timed(lambda run=run: run(1)))
                manys.append(timed(lambda run=run: run(args.steps)))
            one_wall, one_cpu = min(t[0] for t in ones), min(t[1] for t in ones)
            many_wall, many_cpu = min(t[0] for t in manys), min(t[1] for t in manys)
            result = manys[-1][2]
            step_wall = (many_wall - one_wall) / (args.steps - 1)
            step_cpu = (many_cpu - one_cpu) / (args.steps - 1)
            for what, wall, cpu in (("first run in the process, extra", cold_wall - one_wall, cold_cpu - one_cpu),
                                    ("fixed start-up cost per run", one_wall - step_wall, one_cpu - step_cpu),
                                    ("per step", step_wall, step_cpu)):
                print(f"{label:<32} {backend:<8} {what:<28} {wall:8.3f} {cpu:8.3f} {cpu / eager_cpu:12.1f}")
            phases = ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items())
            print(f"{'':<32} {backend:<8} {args.steps}-step run: {phases}; dynamic: "
                  f"{', '.join(n or '(root)' for n in result.dynamic_modules()) or 'none'}")


if __name__ == "__main__":
    main()
