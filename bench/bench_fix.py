"""Time `dynlint check --fix` on a copy of the installed transformers package.

    python bench/bench_fix.py [--unsafe-fixes] [--keep]

Prints the wall time of a plain check, of `--fix`, and of a second `--fix` pass (which must
change nothing), on a fresh copy each time and without the cache. Target: --fix within 60 s
on 2 cores.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def transformers_dir() -> str:
    out = subprocess.run([sys.executable, "-c",
                          "import transformers, os; print(os.path.dirname(transformers.__file__))"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def dynlint(*args, cwd):
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "dynlint", "check", "--no-cache", *args],
                          cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - start, proc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unsafe-fixes", action="store_true", help="also apply unsafe fixes")
    parser.add_argument("--keep", action="store_true", help="keep the fixed copy")
    args = parser.parse_args()
    source = transformers_dir()
    extra = ["--unsafe-fixes"] if args.unsafe_fixes else []
    work = tempfile.mkdtemp(prefix="dynlint-bench-fix-")
    tree = os.path.join(work, "transformers")
    shutil.copytree(source, tree, ignore=shutil.ignore_patterns("__pycache__"))
    n_files = sum(f.endswith(".py") for _, _, fs in os.walk(tree) for f in fs)
    print(f"tree: {source} ({n_files} Python files), {os.cpu_count()} cores")

    t_check, proc = dynlint("-q", "--statistics", "transformers", cwd=work)
    print(f"check:            {t_check:6.1f} s")
    t_fix, proc = dynlint("--fix", *extra, "transformers", cwd=work)
    summary = proc.stdout.strip().splitlines()[-2:] if proc.stdout.strip() else []
    m = re.search(r"\((\d+) fixed", proc.stdout)
    print(f"check --fix:      {t_fix:6.1f} s   {m.group(1) if m else 0} fixes applied"
          f"{'   ' + ' | '.join(summary) if summary else ''}")
    for line in proc.stderr.splitlines():
        print(f"  {line}")
    t_again, proc = dynlint("--diff", *extra, "transformers", cwd=work)
    print(f"second pass:      {t_again:6.1f} s   "
          f"{'no changes' if proc.returncode == 0 and not proc.stdout else 'CHANGES: not idempotent'}")
    print(f"target: --fix <= 60 s: {'met' if t_fix <= 60 else 'MISSED'}")
    if args.keep:
        print(f"fixed copy kept in {tree}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if proc.returncode == 0 and not proc.stdout else 1


if __name__ == "__main__":
    sys.exit(main())
