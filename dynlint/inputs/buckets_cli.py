"""`dynlint buckets`: choose bucket boundaries from a length histogram and compare methods."""
from __future__ import annotations

import argparse
import csv
import io
import json
import sys

from .histogram import LengthsError

EPILOG = """\
examples:
  dynlint buckets --lengths lengths.txt -k 8
  dynlint buckets --lengths lengths.txt -k 2,4,8,16 --method all --format text
  dynlint buckets --lengths lengths.txt --k-max 32 --compile-seconds 30 --world-size 8 --epochs 3
  dynlint buckets --entry mypkg.data:make_loader --dim input_ids:1 -k 8

lengths files: .txt/.csv (one length a line, or `length count` pairs), .json (a list, or
{"lengths": [...]}, or {"histogram": {"length": count}}), .npy (integer array, no pickle).

--per batch: random batches of --batch-size are padded to their longest item; the boundaries
are chosen for those batch maxima (each weighted by its batch size). Percentile and the other
heuristics are fitted on the per-sample lengths, as the guides do, and scored on the batches.

exit codes: 0 done, 2 bad input or usage
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dynlint buckets", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Choose K bucket boundaries for variable-length inputs: pad every batch to "
                    "its bucket so a loader yields at most K shapes, with the least padding.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--lengths", metavar="FILE", help="a file of lengths (see below)")
    src.add_argument("--entry", metavar="MOD:FACTORY",
                     help="a function returning a DataLoader (or any iterable of batches); "
                          "the length is read from each batch at --dim")
    p.add_argument("--dim", metavar="PATH:DIM", default=None,
                   help="with --entry: the batch leaf and dimension holding the length, e.g. "
                        "input_ids:1, 0:1 (tuple position 0), default: the first tensor's last dim")
    p.add_argument("--max-batches", type=int, metavar="N", help="with --entry: read at most N batches")
    p.add_argument("-k", dest="k", metavar="K[,K...]", default=None,
                   help="number of buckets; a comma list compares several (default: 8)")
    p.add_argument("--k-max", type=int, metavar="K", default=None,
                   help="cost-model search range for the recommended K (default: max(32, K))")
    p.add_argument("--method", default="optimal", metavar="NAME[,NAME...]",
                   help="optimal (default), percentile, uniform, pow2, multiple, max, or all")
    p.add_argument("--multiple-of", type=int, default=None, metavar="M",
                   help="for --method multiple the grid step (default 8); for optimal, restrict "
                        "boundaries to multiples of M (hardware alignment, still exact)")
    p.add_argument("--per", choices=("sample", "batch"), default="sample",
                   help="sample: items are bucketed one by one (bucket-first samplers); batch: "
                        "random batches pad to their longest item (needs --batch-size)")
    p.add_argument("--batch-size", type=int, default=None, metavar="B")
    p.add_argument("--seed", type=int, default=0, help="shuffle seed for --per batch (default 0)")
    p.add_argument("--cost", choices=("linear", "quadratic"), default="linear",
                   help="price of a padded position: linear, or quadratic (attention: L^2)")
    cm = p.add_argument_group("cost model for the recommended K")
    cm.add_argument("--compile-seconds", type=float, default=None, metavar="S",
                    help="compile time per shape (default 20)")
    cm.add_argument("--token-seconds", type=float, default=None, metavar="S",
                    help="compute time per padded position (default 1e-6; per L^2 unit with --cost quadratic)")
    cm.add_argument("--epochs", type=float, default=1.0, metavar="N")
    cm.add_argument("--world-size", type=int, default=1, metavar="W",
                    help="ranks: W*(K-1)+1 compile stalls in the worst case")
    out = p.add_argument_group("output")
    out.add_argument("--format", choices=("text", "json", "csv"), default="text")
    out.add_argument("--cache", metavar="DIR", default=None,
                     help="bucket cache directory (default: the user cache dir, "
                          "$XDG_CACHE_HOME/dynlint/buckets)")
    out.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    return p


class UsageError(Exception):
    pass


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        doc = run(args)
    except (UsageError, LengthsError, ValueError) as exc:
        print(f"dynlint buckets: error: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(f"dynlint buckets: error: {exc} (pip install 'dynlint[buckets]')", file=sys.stderr)
        return 2
    try:
        sys.stdout.write(render(doc, args.format))
        sys.stdout.flush()
    except BrokenPipeError:
        return 0
    return 0


def _ks(text) -> list[int]:
    if text is None:
        return [8]
    ks = []
    for part in text.split(","):
        try:
            k = int(part)
        except ValueError:
            raise UsageError(f"-k expects integers, got {part!r}") from None
        if k < 1:
            raise UsageError(f"K must be >= 1, got {k}")
        ks.append(k)
    return ks


def _methods(text) -> list[str]:
    from .buckets import METHODS
    names = [m.strip() for m in text.split(",") if m.strip()]
    if names == ["all"]:
        return list(METHODS)
    out = []
    for name in names:
        base = name.split(":", 1)[0]
        if base not in METHODS:
            raise UsageError(f"unknown method {name!r}: expected {', '.join(METHODS)} or all")
        out.append(name)
    return out


def run(args) -> dict:
    from . import buckets as bk
    from .cache import BucketCache
    from .costmodel import (
        DEFAULT_COMPILE_SECONDS,
        DEFAULT_TOKEN_SECONDS,
        CostInputs,
        recommend,
    )
    from .histogram import batch_maxima

    ks = _ks(args.k)
    methods = _methods(args.method)
    if args.per == "batch" and not args.batch_size:
        raise UsageError("--per batch needs --batch-size B")
    if args.lengths:
        from .histogram import load_lengths
        samples = load_lengths(args.lengths)
        scored = samples
        if args.per == "batch":
            scored = batch_maxima(samples.expand(), args.batch_size, seed=args.seed)
    else:
        from .loader import lengths_from_entry
        samples, scored = lengths_from_entry(args.entry, args.dim, args.max_batches)
    cache = None if args.no_cache else BucketCache(args.cache)
    multiple_of = args.multiple_of
    k_max = max(args.k_max or 32, *ks)
    curve = bk.optimal_all(scored, k_max, cost=args.cost,
                           multiple_of=multiple_of if "optimal" in methods else None, cache=cache)
    results = []
    for method in methods:
        for k in ks:
            if method == "optimal":
                results.append(curve[k - 1])
                continue
            base, _, m = method.partition(":")
            step = int(m) if m.isdigit() else (multiple_of or 8)
            results.append(bk.by_name(base, samples, k, cost=args.cost, multiple_of=step,
                                      evaluate_on=scored if scored is not samples else None))
    inputs = CostInputs(
        compile_seconds=DEFAULT_COMPILE_SECONDS if args.compile_seconds is None else args.compile_seconds,
        token_seconds=DEFAULT_TOKEN_SECONDS if args.token_seconds is None else args.token_seconds,
        epochs=args.epochs, world_size=args.world_size)
    rec = recommend(curve, inputs)
    primary = results[0].to_dict()
    doc = {**primary,
           "input": {**scored.to_dict(), "per": "batch" if args.entry else args.per,
                     "batch_size": args.batch_size,
                     "source": args.lengths or args.entry},
           "results": [r.to_dict() for r in results],
           "recommendation": rec}
    if cache is not None:
        doc["cache"] = {"dir": str(cache.dir), "hits": cache.hits}
        for warning in cache.warnings:
            print(f"dynlint buckets: warning: {warning}", file=sys.stderr)
    return doc


def render(doc: dict, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(doc, indent=2) + "\n"
    cols = ("method", "k", "shapes", "waste", "waste_fraction", "solve_seconds", "boundaries")
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        for r in doc["results"]:
            w.writerow([" ".join(map(str, r[c])) if c == "boundaries" else r[c] for c in cols])
        return buf.getvalue()
    inp = doc["input"]
    what = (f"{inp['items']} items in batches of {inp['batch_size']} (scored at the batch maxima)"
            if inp["per"] == "batch" else f"{inp['items']} items")
    lines = [(f"{what}: {inp['distinct']} distinct lengths, {inp['min']}..{inp['max']}, "
              f"{inp['tokens']} real positions"), ""]
    lines.append(f"{'method':<12} {'K':>4} {'shapes':>6} {'waste':>12} {'waste %':>8} "
                 f"{'solve s':>9}  boundaries")
    for r in doc["results"]:
        bounds = " ".join(map(str, r["boundaries"]))
        if len(bounds) > 60:
            bounds = bounds[:57] + "..."
        lines.append(f"{r['method']:<12} {r['k']:>4} {r['shapes']:>6} {r['waste']:>12} "
                     f"{100 * r['waste_fraction']:>7.1f}% {r['solve_seconds']:>9.4f}  {bounds}")
    rec = doc["recommendation"]
    i = rec["inputs"]
    row = next(r for r in rec["curve"] if r["k"] == rec["k"])
    lines += ["", f"recommended K = {rec['k']} (optimal boundaries: {' '.join(map(str, rec['boundaries']))})",
              f"  cost model: {rec['formula']}",
              (f"  inputs: compile_seconds={i['compile_seconds']} token_seconds={i['token_seconds']} "
               f"epochs={i['epochs']} world_size={i['world_size']} (override with --compile-seconds, "
               f"--token-seconds, --epochs, --world-size)"),
              (f"  at K={rec['k']}: compile {row['compile_seconds']} s + padding "
               f"{row['padding_seconds']} s = {row['total_seconds']} s")]
    return "\n".join(lines) + "\n"
