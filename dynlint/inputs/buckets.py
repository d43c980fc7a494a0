"""Bucket boundaries from a length histogram: the guides' percentile method, fast grids, and
the exact minimum-padding optimum (solve.py). Every method returns a `Buckets`: sorted integer
boundaries and the padding they cost on the histogram they are evaluated on."""
from __future__ import annotations

import bisect
import math
import time
from dataclasses import dataclass, field

from .histogram import Histogram, LengthsError
from .solve import COSTS, solve

METHODS = ("optimal", "percentile", "uniform", "pow2", "multiple", "max")


@dataclass
class Buckets:
    method: str
    k: int                          # the number of buckets asked for
    boundaries: list[int]           # sorted; an item pads to the smallest boundary >= its length
    waste: int                      # padded positions added: sum of (boundary - length)
    tokens: int                     # real positions: sum of lengths
    cost: str = "linear"
    objective: float = 0            # sum of g(boundary) - g(length): = waste when linear
    shapes: int = 0                 # boundaries that some item actually pads to
    seconds: float = 0.0            # time to choose the boundaries
    counts: list[int] = field(default_factory=list)   # items per boundary

    @property
    def padded(self) -> int:
        return self.tokens + self.waste

    @property
    def waste_fraction(self) -> float:
        """Share of the padded positions that are padding."""
        return self.waste / self.padded if self.padded else 0.0

    @property
    def speedup_bound(self) -> float:
        """Padded / real positions: what removing all padding could gain at best (linear cost)."""
        return self.padded / self.tokens if self.tokens else 1.0

    def bucket_of(self, length: int) -> int:
        return bucket_for(self.boundaries, length)

    def to_dict(self) -> dict:
        return {"method": self.method, "k": self.k, "boundaries": list(self.boundaries),
                "shapes": self.shapes, "waste": self.waste, "tokens": self.tokens,
                "padded": self.padded, "waste_fraction": round(self.waste_fraction, 6),
                "speedup_bound": round(self.speedup_bound, 6), "cost": self.cost,
                "objective": self.objective, "items_per_bucket": list(self.counts),
                "solve_seconds": round(self.seconds, 6)}

    def table(self) -> str:
        rows = [f"{'boundary':>10} {'items':>10}"]
        rows += [f"{b:>10} {n:>10}" for b, n in zip(self.boundaries, self.counts)]
        rows.append(f"{self.method} K={self.k}: {self.shapes} shapes, waste {self.waste} "
                    f"({100 * self.waste_fraction:.1f}% of padded positions)")
        return "\n".join(rows) + "\n"


def bucket_for(boundaries, length: int) -> int:
    """The smallest boundary >= length; ValueError when the length exceeds every boundary."""
    i = bisect.bisect_left(boundaries, length)
    if i == len(boundaries):
        raise ValueError(f"length {length} exceeds the largest bucket {boundaries[-1]}")
    return boundaries[i]


def evaluate(hist: Histogram, boundaries, method: str = "given", k: int | None = None,
             cost: str = "linear", seconds: float = 0.0) -> Buckets:
    """Padding of `hist` when every item pads to the smallest boundary that holds it."""
    bounds = sorted({int(b) for b in boundaries})
    if not bounds or bounds[-1] < hist.longest:
        raise ValueError(f"boundaries {bounds} do not hold the longest length {hist.longest}")
    g = (lambda x: x) if cost == "linear" else (lambda x: x * x)
    per = [0] * len(bounds)
    waste = objective = 0
    for v, c in zip(hist.values, hist.counts):
        i = bisect.bisect_left(bounds, v)
        per[i] += c
        waste += (bounds[i] - v) * c
        objective += (g(bounds[i]) - g(v)) * c
    return Buckets(method, len(bounds) if k is None else k, bounds, waste, hist.tokens, cost,
                   objective, sum(1 for n in per if n), seconds, per)


def _check(k: int, cost: str) -> None:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"K must be an integer >= 1, got {k!r}")
    if cost not in COSTS:
        raise ValueError(f"unknown cost {cost!r}: expected one of {', '.join(COSTS)}")


def _hist(lengths, weights=None) -> Histogram:
    return lengths if isinstance(lengths, Histogram) else Histogram.from_lengths(lengths, weights)


def _timed(fn, hist, k, cost, method, evaluate_on=None):
    start = time.perf_counter()
    bounds = fn()
    elapsed = time.perf_counter() - start
    return evaluate(evaluate_on or hist, bounds, method, k, cost, elapsed)


# -- the methods ------------------------------------------------------------------------

def optimal(lengths, k: int, weights=None, cost: str = "linear", multiple_of: int | None = None,
            cache=None) -> Buckets:
    """The K boundaries with the least padding (exact; `cost="quadratic"` weighs a padded
    position by length, like attention). `multiple_of=M` restricts boundaries to multiples of M
    (still exact over that set)."""
    return optimal_all(lengths, k, weights, cost, multiple_of, cache)[k - 1]


def optimal_all(lengths, k_max: int, weights=None, cost: str = "linear",
                multiple_of: int | None = None, cache=None) -> list[Buckets]:
    """Optimal buckets for every K = 1..k_max from one DP run (the waste-vs-K curve)."""
    _check(k_max, cost)
    hist = _hist(lengths, weights)
    grid = hist
    if multiple_of is not None:
        if multiple_of < 1:
            raise ValueError(f"multiple_of must be >= 1, got {multiple_of}")
        # Padding to the next multiple is paid by any boundary set on that grid; solve on the
        # rounded lengths and evaluate on the real ones.
        grid = Histogram.from_lengths([_ceil_to(v, multiple_of) for v in hist.values], hist.counts)
    params = {"solver": "dp-1", "k_max": k_max, "cost": cost}
    import numpy  # noqa: F401 - imported before the clock starts: solve time, not import time
    start = time.perf_counter()
    stored = cache.get(grid, params) if cache is not None else None
    if stored is None:
        stored = solve(grid.values, grid.counts, k_max, cost).boundaries
        if cache is not None:
            cache.put(grid, params, stored)
    elapsed = time.perf_counter() - start
    name = "optimal" if multiple_of is None else f"optimal:{multiple_of}"
    return [evaluate(hist, b, name, k, cost, elapsed) for k, b in enumerate(stored, 1)]


def percentile(lengths, k: int, weights=None, cost: str = "linear", evaluate_on=None) -> Buckets:
    """The guides' percentile buckets: the K+1 evenly spaced percentiles of the lengths
    (0..100 %) taken with the "lower" rule (an observed length, never interpolated), the 0 %
    one dropped, duplicates merged. Equal-count buckets; K is an upper bound on their number."""
    _check(k, cost)
    hist = _hist(lengths, weights)
    return _timed(lambda: percentile_boundaries(hist, k), hist, k, cost, "percentile", evaluate_on)


def percentile_boundaries(hist: Histogram, k: int) -> list[int]:
    import numpy as np
    n = hist.items
    # The same float steps as np.percentile(sizes, np.linspace(0, 100, k + 1), method="lower"):
    # quantile q/100, position floor((n - 1) * q/100) in the sorted lengths.
    q = np.true_divide(np.linspace(0, 100, k + 1), 100)
    positions = np.floor((n - 1) * q).astype(np.intp)[1:]
    ends = np.cumsum(hist.counts)                  # sorted position p holds values[searchsorted]
    picks = np.searchsorted(ends, positions, side="right")
    return sorted({int(hist.values[i]) for i in picks})


def uniform(lengths, k: int, weights=None, cost: str = "linear", evaluate_on=None) -> Buckets:
    """K evenly spaced boundaries from the shortest to the longest length (rounded up)."""
    _check(k, cost)
    hist = _hist(lengths, weights)
    lo, hi = hist.values[0], hist.longest

    def bounds():
        return sorted({min(hi, math.ceil(lo + (hi - lo) * i / k)) for i in range(1, k + 1)})
    return _timed(bounds, hist, k, cost, "uniform", evaluate_on)


def pow2(lengths, k: int | None = None, weights=None, cost: str = "linear", evaluate_on=None) -> Buckets:
    """Powers of two: each length pads to the next power of two (the last boundary may exceed
    the longest length). With K, only the K largest powers are kept."""
    return _grid(lengths, k, weights, cost, evaluate_on, "pow2",
                 lambda v: 1 if v <= 1 else 1 << (v - 1).bit_length())


def multiple(lengths, k: int | None = None, m: int = 8, weights=None, cost: str = "linear",
             evaluate_on=None) -> Buckets:
    """Multiples of M (hardware alignment): each length pads to the next multiple of M. With
    K, only the K largest multiples in use are kept."""
    if m < 1:
        raise ValueError(f"M must be >= 1, got {m}")
    return _grid(lengths, k, weights, cost, evaluate_on, f"multiple:{m}", lambda v: _ceil_to(v, m))


def pad_to_max(lengths, k: int = 1, weights=None, cost: str = "linear", evaluate_on=None) -> Buckets:
    """One bucket: everything pads to the longest length (one shape, most padding)."""
    hist = _hist(lengths, weights)
    return _timed(lambda: [hist.longest], hist, k, cost, "max", evaluate_on)


def _grid(lengths, k, weights, cost, evaluate_on, name, up):
    if k is not None:
        _check(k, cost)
    hist = _hist(lengths, weights)

    def bounds():
        used = sorted({up(v) for v in hist.values})
        return used if k is None else used[-k:]
    return _timed(bounds, hist, k if k is not None else 0, cost, name, evaluate_on)


def _ceil_to(v: int, m: int) -> int:
    return -(-v // m) * m


def by_name(method: str, lengths, k: int, *, cost: str = "linear", multiple_of: int = 8,
            evaluate_on: Histogram | None = None, cache=None) -> Buckets:
    """Run one method by its CLI name. `evaluate_on` (the batch-maxima histogram) is where the
    heuristics' padding is measured when they are fitted on per-sample lengths, as the guides do."""
    hist = _hist(lengths)
    if method == "optimal":
        return optimal(evaluate_on or hist, k, cost=cost, cache=cache)
    if method == "percentile":
        return percentile(hist, k, cost=cost, evaluate_on=evaluate_on)
    if method == "uniform":
        return uniform(hist, k, cost=cost, evaluate_on=evaluate_on)
    if method == "pow2":
        return pow2(hist, k, cost=cost, evaluate_on=evaluate_on)
    if method == "multiple":
        return multiple(hist, k, multiple_of, cost=cost, evaluate_on=evaluate_on)
    if method == "max":
        return pad_to_max(hist, k, cost=cost, evaluate_on=evaluate_on)
    raise ValueError(f"unknown method {method!r}: expected one of {', '.join(METHODS)}")


__all__ = [
    "METHODS",
    "Buckets",
    "LengthsError",
    "bucket_for",
    "by_name",
    "evaluate",
    "multiple",
    "optimal",
    "optimal_all",
    "pad_to_max",
    "percentile",
    "pow2",
    "uniform",
]
