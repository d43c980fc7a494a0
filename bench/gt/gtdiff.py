#!/usr/bin/env python
"""Compare two ground-truth files of bench/groundtruth.py: is the new recording a superset of the old?

    python bench/gt/gtdiff.py OLD.json NEW.json [--quiet]

Prints per model the status change, every (file, line, op) of the old file that the new file lacks
(a recording must be deterministic: only what a recorder change adds may differ), and the sites
the new file adds, counted by op (listed unless --quiet). Exit status 1 when an old site is missing.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter


def sites(gt: dict) -> dict[str, set]:
    """model -> {(file, line, op)}"""
    out = {}
    for name, res in gt["models"].items():
        out[name] = {(rel, int(line), op) for rel, fr in res["files"].items()
                     for line, site in fr["dynamic"].items() for op in site["ops"]}
    return out


def diff(old: dict, new: dict) -> tuple[list, list, list]:
    """(status changes, missing old sites, added sites) as sorted lists of tuples."""
    so, sn = sites(old), sites(new)
    status = sorted((m, old["models"][m]["status"], new["models"].get(m, {}).get("status", "absent"))
                    for m in old["models"] if old["models"][m]["status"] != new["models"].get(m, {}).get("status"))
    missing = sorted((m, *s) for m in so for s in so[m] - sn.get(m, set()))
    added = sorted((m, *s) for m in sn for s in sn[m] - so.get(m, set()))
    return status, missing, added


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--quiet", action="store_true", help="count added sites, do not list them")
    args = ap.parse_args(argv)
    with open(args.old) as fh:
        old = json.load(fh)
    with open(args.new) as fh:
        new = json.load(fh)
    status, missing, added = diff(old, new)
    print(f"{args.old} -> {args.new}: {len(old['models'])} -> {len(new['models'])} models")
    for m, a, b in status:
        print(f"  status {m}: {a} -> {b}")
    # a site is (file, line): an op missing from the union over models is a real loss
    lines_old = {(f, ln, op) for _, f, ln, op in missing}
    print(f"  old (model, site, op) missing: {len(missing)}")
    for m, f, ln, op in missing:
        print(f"    MISSING {m}: {f}:{ln} {op}")
    union_new = {(f, ln, op) for _, f, ln, op in sites_union(new)}
    lost = sorted(s for s in lines_old if s not in union_new)
    print(f"  of which missing from every model of the new file: {len(lost)}")
    by_op = Counter(op for _, _, _, op in added)
    print(f"  added (model, site, op): {len(added)}  by op: {dict(sorted(by_op.items()))}")
    new_lines = sorted({(f, ln) for _, f, ln, _ in added} - {(f, ln) for _, f, ln, _ in sites_union(old)})
    print(f"  added GT lines (file, line) not in the old file at all: {len(new_lines)}")
    if not args.quiet:
        for f, ln in new_lines:
            ops = sorted({op for _, f2, l2, op in added if (f2, l2) == (f, ln)})
            print(f"    + {f}:{ln} {','.join(ops)}")
    return 1 if missing else 0


def sites_union(gt: dict) -> list:
    return [(m, *s) for m, ss in sites(gt).items() for s in ss]


if __name__ == "__main__":
    sys.exit(main())
