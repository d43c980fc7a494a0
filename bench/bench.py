#!/usr/bin/env python
"""Speed of `dynlint check` against two anchors measured in the same run.

    python bench/bench.py [TREE] [--repeat N]

TREE defaults to the installed `transformers` package (about 2,900 files, 1.2 M lines).
Anchors:
  * a bare `ast.parse` loop over the same files, in one Python process;
  * ruff (`ruff check --no-cache --isolated`, its default rules), when installed.
dynlint runs are a cold run (`--no-cache`) and a warm run (cache primed, nothing changed).
Peak memory is the largest resident set of dynlint or one of its worker processes.
Prints wall times and ratios; asserts nothing.
"""
from __future__ import annotations

import argparse
import ast
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def default_tree() -> str:
    import importlib.util
    spec = importlib.util.find_spec("transformers")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("transformers is not installed; pass a TREE to benchmark")
    return list(spec.submodule_search_locations)[0]


def python_files(tree: str) -> list[str]:
    from dynlint.project.discover import discover
    from dynlint.project.resolve import Resolver
    files, _ = discover([tree], Resolver(isolated=True, cwd=Path(tree)))
    return files


def parse_loop(files) -> float:
    start = time.perf_counter()
    for f in files:
        try:
            ast.parse(Path(f).read_bytes())
        except (SyntaxError, ValueError):
            pass
    return time.perf_counter() - start


def timed(cmd, cwd) -> tuple[float, int]:
    start = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if r.returncode not in (0, 1):
        sys.exit(f"{' '.join(map(str, cmd))} failed ({r.returncode}): {r.stderr[-2000:]}")
    return elapsed, r.returncode


def best(values):
    return min(values), statistics.median(values)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", nargs="?", default=None)
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (best is reported)")
    args = ap.parse_args()
    tree = os.path.abspath(args.tree or default_tree())
    files = python_files(tree)
    lines = sum(Path(f).read_bytes().count(b"\n") for f in files)
    print(f"tree: {tree}\nfiles: {len(files)}, lines: {lines:,}, cores: {os.cpu_count()}\n")

    workdir = tempfile.mkdtemp(prefix="dynlint-bench-")
    dyn = [sys.executable, "-m", "dynlint", "check", tree, "-q", "--exit-zero",
           "--cache-dir", os.path.join(workdir, "cache")]
    rows = {}
    rows["ast.parse loop (1 process)"] = best([parse_loop(files) for _ in range(args.repeat)])
    rows["dynlint cold (--no-cache)"] = best([timed(dyn + ["--no-cache"], workdir)[0]
                                             for _ in range(args.repeat)])
    timed(dyn, workdir)                                  # prime the cache
    rows["dynlint warm (cached)"] = best([timed(dyn, workdir)[0] for _ in range(args.repeat)])
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    ruff = shutil.which("ruff")
    if ruff:
        rows["ruff check (default rules)"] = best(
            [timed([ruff, "check", "--no-cache", "--isolated", "--exit-zero", "-q", tree], workdir)[0]
             for _ in range(args.repeat)])
    shutil.rmtree(workdir, ignore_errors=True)

    anchor = rows["ast.parse loop (1 process)"][0]
    print(f"{'run':32} {'best s':>8} {'median s':>9} {'vs ast.parse':>13} {'vs ruff':>9}")
    for name, (b, med) in rows.items():
        vs_ruff = f"{b / rows['ruff check (default rules)'][0]:8.1f}x" if ruff else "      n/a"
        print(f"{name:32} {b:8.2f} {med:9.2f} {b / anchor:12.2f}x {vs_ruff}")
    print(f"\npeak memory of one process (dynlint or a worker): {peak_kb / 1024:.0f} MB")
    cold = rows["dynlint cold (--no-cache)"][0]
    print(f"cold dynlint / ast.parse loop = {cold / anchor:.2f} (target <= 1.00); "
          f"warm = {rows['dynlint warm (cached)'][0]:.2f} s (target <= 1 s)")


if __name__ == "__main__":
    main()
