"""Measure what safe `--fix` does to copies of installed packages (issue 10's figures).

    python bench/fix_corpus.py [--site DIR] [--packages transformers torchvision] [--keep]

On a fresh copy (never the installed tree) it reports, with the default rules:
findings before and after `--fix`, the net number removed, the safe fixes offered per
template (rule + description), the median and maximum length of the text a safe fix
inserts, whether every fixed file parses, and whether a second `--fix` changes anything.
"""
from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

DEFAULT_SITE = "/work/main/.ci/venv/lib/python3.11/site-packages"


def run(args, cwd):
    return subprocess.run([sys.executable, "-m", "dynlint", "check", "--no-cache", *args],
                          cwd=cwd, capture_output=True, text=True)


def findings(pkgs, cwd) -> list:
    proc = run(["--format", "json", *pkgs], cwd)
    return json.loads(proc.stdout or "[]")


def template(f) -> str:
    """A fix's template: its rule and its description with the matched code blanked."""
    desc = re.sub(r"`[^`]*`", "`…`", f["fix"]["message"])
    return f"{f['code']}: {desc[:90]}"


def inserted(fix) -> int:
    return sum(len(e["content"]) for e in fix["edits"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default=DEFAULT_SITE)
    parser.add_argument("--packages", nargs="+", default=["transformers", "torchvision"])
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--show", type=int, default=0, help="print N sample safe fixes")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="dynlint-fix-corpus-")
    for p in args.packages:
        shutil.copytree(os.path.join(args.site, p), os.path.join(work, p),
                        ignore=shutil.ignore_patterns("__pycache__"))
    before = findings(args.packages, work)
    fixes = [f for f in before if f.get("fix")]
    safe = [f for f in fixes if f["fix"]["applicability"] == "safe"]
    by_kind = collections.Counter(f["fix"]["applicability"] for f in fixes)
    lengths = sorted(inserted(f["fix"]) for f in safe)
    print(f"findings before: {len(before)}; fixes offered: {dict(by_kind)}")
    print("safe fixes per template:")
    for name, n in collections.Counter(template(f) for f in safe).most_common():
        print(f"  {n:4d}  {name}")
    if lengths:
        print(f"inserted text (safe): median {statistics.median(lengths):.0f}, max {lengths[-1]} chars "
              f"(all: {lengths})")
    for f in safe[:args.show]:
        print(f"  {f['path']}:{f['line']}: " + " | ".join(e["content"] for e in f["fix"]["edits"]))
    mtimes = {os.path.join(d, n): os.stat(os.path.join(d, n)).st_mtime_ns
              for p in args.packages for d, _, ns in os.walk(os.path.join(work, p)) for n in ns}
    proc = run(["--fix", "-q", *args.packages], work)
    if proc.stderr.strip():
        print("fix stderr:", proc.stderr.strip()[:2000])
    changed = [p for p, t in mtimes.items() if os.path.exists(p) and os.stat(p).st_mtime_ns != t]
    bad = []
    for p in changed:
        try:
            ast.parse(open(p, encoding="utf-8").read())
        except SyntaxError as e:
            bad.append(f"{p}: {e}")
    after = findings(args.packages, work)
    print(f"findings after --fix: {len(after)}; net removed: {len(before) - len(after)}")
    print(f"files changed: {len(changed)}; not parsing: {len(bad)}")
    for b in bad:
        print("  ", b)
    again = run(["--diff", *args.packages], work)
    idem = again.returncode == 0 and not again.stdout
    print(f"second --fix: {'no changes' if idem else 'CHANGES'}")
    if not idem:
        print(again.stdout[:3000])
    if args.keep:
        print(f"copy kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if idem and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
