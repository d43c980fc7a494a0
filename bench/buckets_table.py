"""The waste-vs-K table of docs/buckets.md, on the stdlib-docstring corpus.

    python bench/buckets_table.py            # print the tables
    python bench/buckets_table.py --update docs/buckets.md

Corpus: docstrings of the installed Python standard library (every package, tests
excluded), tokenised by a BPE tokenizer trained here offline (tests/buckets_corpus.py),
truncated to 512 tokens. Numbers vary a little between Python versions.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import buckets_corpus

from dynlint import buckets as bk

KS = (2, 4, 5, 8, 16, 32)
BEGIN, END = "<!-- buckets-table: begin -->", "<!-- buckets-table: end -->"


def table(lengths, scored, title):
    rows = [f"**{title}**", "",
            "| K | percentile | uniform | exact optimum | optimum boundaries |",
            "|---|---|---|---|---|"]
    start = time.perf_counter()
    curve = bk.optimal_all(scored, max(KS))
    solve_s = time.perf_counter() - start
    for k in KS:
        p = bk.percentile(lengths, k, evaluate_on=scored)
        u = bk.uniform(lengths, k, evaluate_on=scored)
        o = curve[k - 1]
        assert o.waste <= p.waste and o.waste <= u.waste
        bounds = " ".join(map(str, o.boundaries)) if k <= 8 else f"({len(o.boundaries)} boundaries)"
        rows.append(f"| {k} | {_cell(p)} | {_cell(u)} | {_cell(o)} | {bounds} |")
    rows += ["", (f"One DP run gives the optimum for every K <= {max(KS)}: {solve_s * 1000:.0f} ms "
                  f"({len(scored.values)} distinct lengths).")]
    return rows


def _cell(b):
    return f"{100 * b.waste_fraction:.1f}% ({b.shapes})"


def build() -> str:
    lengths = bk.Histogram.from_lengths(buckets_corpus.lengths(full=True))
    batches = bk.batch_maxima(lengths.expand(), 7, seed=0)
    lines = [(f"Corpus: {lengths.items} docstrings, {len(lengths.values)} distinct token lengths "
              f"({lengths.values[0]}..{lengths.longest}). Cells: padding as a share of all padded "
              f"positions, and (in brackets) the number of shapes actually used."), ""]
    lines += table(lengths, lengths, "Per sample (bucket-first sampler: each item pads to its bucket)")
    lines += [""]
    lines += table(lengths, batches, f"Per batch (random batches of 7 padded to their longest item, "
                                     f"{batches.items // 7}+ batches, seed 0; padding beyond the "
                                     f"batch maximum)")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--update", metavar="FILE")
    args = ap.parse_args()
    text = build()
    if not args.update:
        sys.stdout.write(text)
        return
    path = Path(args.update)
    doc = path.read_text(encoding="utf-8")
    new = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), BEGIN + "\n" + text + END, doc, flags=re.DOTALL)
    path.write_text(new, encoding="utf-8")
    print(f"{path}: table {'updated' if new != doc else 'unchanged'}")


if __name__ == "__main__":
    main()
