"""Exact minimum-padding bucket boundaries by dynamic programming.

Items of distinct lengths v_1 < ... < v_U (weights c_i) are padded to the smallest chosen
boundary that holds them. Some optimal set of K boundaries uses observed lengths only (lowering
a boundary to the longest item it serves never adds padding) and always includes v_U, so the
problem is a partition of the sorted lengths into K contiguous groups. A group i..j-1 costs

    cost(i, j) = g(v_{j-1}) * (C_j - C_i) - (G_j - G_i)

with prefix sums C of weights and G of weight * g(length), g(L) = L (padded positions) or
L**2 (attention). cost is Monge, (v_d - v_c) * weight(a..b-1) >= 0, so the best split point of
a layer is monotone in j and divide and conquer fills a layer with O(U log U) evaluations.

The recursion runs level by level: all the sub-problems of one level are evaluated in one
vectorised numpy pass (their candidate ranges overlap only at the ends, so a level touches
O(U) candidates), which keeps U = 10,000 and K = 64 well under a second.
"""
from __future__ import annotations

from dataclasses import dataclass

COSTS = ("linear", "quadratic")


def _g(cost: str):
    if cost == "linear":
        return lambda v: v
    if cost == "quadratic":
        return lambda v: v * v
    raise ValueError(f"unknown cost {cost!r}: expected one of {', '.join(COSTS)}")


@dataclass
class Solution:
    """Optimal boundaries for every K in 1..k_max from one DP run."""
    objective: list            # objective[k-1]: the minimum cost with k boundaries
    boundaries: list           # boundaries[k-1]: the optimal boundaries for k


def solve(values, counts, k_max: int, cost: str = "linear") -> Solution:
    """Exact optimum for every k <= k_max (k beyond the number of distinct lengths: zero cost)."""
    import numpy as np

    g = _g(cost)
    u = len(values)
    kk = min(k_max, u)
    integral = all(isinstance(c, int) for c in counts)
    dtype = np.int64 if integral and _fits_int64(values, counts, cost) else np.float64
    v = np.asarray(values, dtype=dtype)
    c = np.asarray(counts, dtype=dtype)
    gv = g(v)
    C = np.concatenate([[0], np.cumsum(c)]).astype(dtype)
    G = np.concatenate([[0], np.cumsum(c * gv)]).astype(dtype)
    # D[j] = best cost of the first j lengths with the current number of groups.
    j_all = np.arange(1, u + 1)
    prev = gv[j_all - 1] * C[j_all] - G[j_all]          # one group: pad all to v_{j-1}
    prev = np.concatenate([[0], prev]).astype(dtype)
    splits = [np.zeros(u + 1, dtype=np.int64)]          # splits[k][j]: start of the last group
    objective = [prev[u]]
    for k in range(2, kk + 1):
        cur, arg = _layer(np, prev, gv, C, G, k, u, dtype)
        splits.append(arg)
        objective.append(cur[u])
        prev = cur
    boundaries = [_backtrack(values, splits, k, u) for k in range(1, kk + 1)]
    zero = 0 if integral else 0.0
    for _ in range(kk, k_max):
        objective.append(zero)
        boundaries.append(list(values))
    return Solution([_py(x) for x in objective], boundaries)


def _fits_int64(values, counts, cost) -> bool:
    top = max(values) ** (2 if cost == "quadratic" else 1)
    return top * sum(counts) < 2 ** 62


def _py(x):
    return x.item() if hasattr(x, "item") else x


def _layer(np, prev, gv, C, G, k, u, dtype):
    """D_k[j] = min_{k-1 <= i < j} D_{k-1}[i] + cost(i, j) for j = k..u, level-wise D&C."""
    cur = np.zeros(u + 1, dtype=dtype)
    arg = np.zeros(u + 1, dtype=np.int64)
    lo = np.array([k]); hi = np.array([u])
    optlo = np.array([k - 1]); opthi = np.array([u - 1])
    while lo.size:
        mid = (lo + hi) // 2
        top = np.minimum(mid - 1, opthi)
        sizes = top - optlo + 1                          # >= 1: optlo <= mid - 1 always holds
        owner = np.repeat(np.arange(mid.size), sizes)
        starts = np.cumsum(sizes) - sizes
        i = np.arange(sizes.sum()) - np.repeat(starts, sizes) + np.repeat(optlo, sizes)
        j = mid[owner]
        vals = prev[i] + gv[j - 1] * (C[j] - C[i]) - (G[j] - G[i])
        best = np.minimum.reduceat(vals, starts)
        # the first (smallest) split reaching the minimum: keeps the argmin monotone
        hit = np.flatnonzero(vals == best[owner])
        hit_owner = owner[hit]                           # non-decreasing: segments are in order
        first = hit[np.concatenate(([True], hit_owner[1:] != hit_owner[:-1]))]
        opt = i[first]
        cur[mid] = best
        arg[mid] = opt
        left = lo <= mid - 1
        right = mid + 1 <= hi
        lo = np.concatenate([lo[left], (mid + 1)[right]])
        hi_new = np.concatenate([(mid - 1)[left], hi[right]])
        optlo = np.concatenate([optlo[left], opt[right]])
        opthi = np.concatenate([opt[left], opthi[right]])
        hi = hi_new
    return cur, arg


def _backtrack(values, splits, k, u) -> list:
    bounds = []
    j = u
    for layer in range(k, 0, -1):
        bounds.append(values[j - 1])
        j = int(splits[layer - 1][j])
    return sorted(bounds)


def solve_reference(values, counts, k: int, cost: str = "linear"):
    """The plain O(K U^2) DP in pure Python: the anchor the fast solver is checked against."""
    g = _g(cost)
    u = len(values)
    k = min(k, u)
    C = [0]; G = [0]
    for v, c in zip(values, counts):
        C.append(C[-1] + c); G.append(G[-1] + c * g(v))

    def group(i, j):
        return g(values[j - 1]) * (C[j] - C[i]) - (G[j] - G[i])

    inf = float("inf")
    D = [[inf] * (u + 1) for _ in range(k + 1)]
    S = [[0] * (u + 1) for _ in range(k + 1)]
    D[0][0] = 0
    for kk in range(1, k + 1):
        for j in range(kk, u + 1):
            for i in range(kk - 1, j):
                val = D[kk - 1][i] + group(i, j)
                if val < D[kk][j]:
                    D[kk][j], S[kk][j] = val, i
    bounds, j = [], u
    for kk in range(k, 0, -1):
        bounds.append(values[j - 1]); j = S[kk][j]
    return D[k][u], sorted(bounds)
