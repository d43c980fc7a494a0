"""Time the exact bucket solver (not a test: no timing assertions in tests).

    python bench/bench_buckets.py [--distinct 10000] [--k 64] [--repeat 3]

1. Target: U = 10,000 distinct lengths, K = 64 in <= 2 s (best of --repeat runs).
2. Anchors measured in the same run: the plain O(K U^2) DP in pure Python and brute force
   over every boundary set (itertools.combinations) on small inputs, with the optima
   asserted equal, so the speed-up is shown against a known-correct baseline.
"""
from __future__ import annotations

import argparse
import itertools
import random
import time

from dynlint.buckets import Histogram, evaluate, solve, solve_reference


def best_of(fn, repeat):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def brute_force(hist, k):
    rest, top = hist.values[:-1], hist.longest
    best = None
    for r in range(min(k - 1, len(rest)) + 1):
        for combo in itertools.combinations(rest, r):
            w = evaluate(hist, [*combo, top]).waste
            best = w if best is None else min(best, w)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--distinct", type=int, default=10_000)
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(0)

    values = sorted(rng.sample(range(1, 50 * args.distinct), args.distinct))
    counts = [rng.randint(1, 1000) for _ in values]
    seconds, sol = best_of(lambda: solve(values, counts, args.k), args.repeat)
    print(f"target: U={args.distinct} distinct lengths, K={args.k}: {seconds:.3f} s "
          f"(best of {args.repeat}; target <= 2 s) -> waste {sol.objective[-1]}")

    small_v = sorted(rng.sample(range(1, 2000), 1000))
    small_c = [rng.randint(1, 50) for _ in small_v]
    t_fast, fast = best_of(lambda: solve(small_v, small_c, 16), args.repeat)
    t_ref, (ref_obj, _) = best_of(lambda: solve_reference(small_v, small_c, 16), 1)
    assert fast.objective[15] == ref_obj
    print(f"anchor: U=1000, K=16: D&C {t_fast * 1000:.1f} ms vs plain O(K U^2) DP "
          f"{t_ref:.2f} s (same optimum {ref_obj})")

    tiny = Histogram.from_pairs([(v, rng.randint(1, 20)) for v in rng.sample(range(1, 400), 40)])
    t_fast, fast = best_of(lambda: solve(tiny.values, tiny.counts, 5), args.repeat)
    t_bf, bf = best_of(lambda: brute_force(tiny, 5), 1)
    assert fast.objective[4] == bf
    print(f"anchor: U=40, K=5: D&C {t_fast * 1000:.2f} ms vs brute force over "
          f"{sum(1 for _ in itertools.combinations(range(39), 4))} boundary sets "
          f"{t_bf:.2f} s (same optimum {bf})")


if __name__ == "__main__":
    main()
