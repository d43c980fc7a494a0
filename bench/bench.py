#!/usr/bin/env python
"""Speed of `dynlint check` against two anchors measured in the same run.

    python bench/bench.py [TREE] [--repeat N]

TREE defaults to the installed `transformers` package (about 2,900 files, 1.2 M lines). Its
Python files are copied to a temporary directory first, so that one of them can be edited;
every run below works on that copy. Anchors:
  * a bare `ast.parse` loop over the same files, in one Python process;
  * ruff (`ruff check --no-cache --isolated`, its default rules), when installed.
dynlint runs are: cold (`--no-cache`); warm (cache primed, nothing changed); edit (the
biggest file that mentions torch changed since the last run, a different edit each time).
dynlint runs with its bytecode cached, as an installed package has it (a private
PYTHONPYCACHEPREFIX, even where PYTHONDONTWRITEBYTECODE is set).
Peak memory is the largest resident set of dynlint or one of its worker processes.
Prints wall times, CPU times (of dynlint and its workers; on a shared machine a wall time far
above the CPU time means the run waited for a core) and ratios; asserts nothing.
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


def parse_loop(files) -> tuple[float, float]:
    """(wall, CPU) of reading and parsing every file in this process."""
    start, cpu = time.perf_counter(), time.process_time()
    for f in files:
        try:
            ast.parse(Path(f).read_bytes())
        except (SyntaxError, ValueError):
            pass
    return time.perf_counter() - start, time.process_time() - cpu


def find_ruff() -> str | None:
    try:                                   # the binary of the ruff package next to dynlint
        from ruff.__main__ import find_ruff_bin
        return os.fsdecode(find_ruff_bin())
    except (ImportError, FileNotFoundError):
        return shutil.which("ruff")


def copy_tree(tree: str, files, dest: str) -> list[str]:
    out = []
    for f in files:
        target = os.path.join(dest, os.path.relpath(f, tree))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(f, target)
        out.append(target)
    return out


def timed(cmd, cwd, env=None) -> tuple[float, float]:
    """(wall, CPU of the process and its workers) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in (0, 1):
        sys.exit(f"{' '.join(map(str, cmd))} failed ({r.returncode}): {r.stderr[-2000:]}")
    return elapsed, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def best(runs):
    """(best wall, median wall, CPU of the best run)"""
    runs = sorted(runs)
    return runs[0][0], statistics.median(r[0] for r in runs), runs[0][1]


def edited(path: str, n: int) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(f"\n# edit {n} by bench.py\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", nargs="?", default=None)
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (best is reported)")
    args = ap.parse_args()
    tree = os.path.abspath(args.tree or default_tree())
    workdir = tempfile.mkdtemp(prefix="dynlint-bench-")
    copy = os.path.join(workdir, os.path.basename(tree))
    files = copy_tree(tree, python_files(tree), copy)
    lines = sum(Path(f).read_bytes().count(b"\n") for f in files)
    torch_files = [f for f in files if b"torch" in Path(f).read_bytes()]
    target = max(torch_files or files, key=os.path.getsize)
    print(f"tree: {tree} (copied to {copy})\nfiles: {len(files)}, lines: {lines:,}, "
          f"cores: {os.cpu_count()}\nedited file: {os.path.relpath(target, copy)} "
          f"({os.path.getsize(target):,} bytes)\n")

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.path.join(workdir, "pycache")
    dyn = [sys.executable, "-m", "dynlint", "check", copy, "-q", "--exit-zero",
           "--cache-dir", os.path.join(workdir, "cache")]
    empty = os.path.join(workdir, "empty")
    os.mkdir(empty)
    timed(dyn[:4] + [empty], workdir, env)                # compile dynlint's bytecode once
    rows = {}
    rows["ast.parse loop (1 process)"] = best([parse_loop(files) for _ in range(args.repeat)])
    rows["dynlint cold (--no-cache)"] = best([timed(dyn + ["--no-cache"], workdir, env)
                                             for _ in range(args.repeat)])
    timed(dyn, workdir, env)                             # prime the cache
    rows["dynlint warm (cached)"] = best([timed(dyn, workdir, env) for _ in range(args.repeat)])
    runs = []
    for n in range(args.repeat):
        edited(target, n)
        runs.append(timed(dyn, workdir, env))
    rows["dynlint, one file edited"] = best(runs)
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    ruff = find_ruff()
    if ruff:
        rows["ruff check (default rules)"] = best(
            [timed([ruff, "check", "--no-cache", "--isolated", "--exit-zero", "-q", copy], workdir)
             for _ in range(args.repeat)])
    shutil.rmtree(workdir, ignore_errors=True)

    anchor = rows["ast.parse loop (1 process)"][0]
    print(f"{'run':32} {'best s':>8} {'median s':>9} {'CPU s':>7} {'vs ast.parse':>13} {'vs ruff':>9}")
    for name, (b, med, cpu) in rows.items():
        vs_ruff = f"{b / rows['ruff check (default rules)'][0]:8.2f}x" if ruff else "      n/a"
        cpu = f"{cpu:7.2f}"
        print(f"{name:32} {b:8.2f} {med:9.2f} {cpu} {b / anchor:12.2f}x {vs_ruff}")
    print(f"\npeak memory of one process (dynlint or a worker): {peak_kb / 1024:.0f} MB")
    cold = rows["dynlint cold (--no-cache)"][0]
    cpu_ratio = rows["dynlint cold (--no-cache)"][2] / rows["ast.parse loop (1 process)"][2]
    print(f"CPU of a cold run / CPU of the ast.parse loop = {cpu_ratio:.2f} (all processes)")
    print(f"cold dynlint / ast.parse loop = {cold / anchor:.2f} (target <= 1.10); "
          f"warm = {rows['dynlint warm (cached)'][0]:.2f} s (target <= 0.5 s); "
          f"one file edited = {rows['dynlint, one file edited'][0]:.2f} s (target <= 1.5 s)")


if __name__ == "__main__":
    main()
