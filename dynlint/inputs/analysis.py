"""What the sequence of batch signatures says: varying dimensions, saturation, coverage, the
last partial batch.  Pure Python over (unique signatures, per-batch index); no torch."""
from __future__ import annotations

import math
from collections import Counter, defaultdict

from .signature import Signature

# The guides' thresholds and phrases (Habana's data_dynamicity), kept for continuity.
_MODIFIERS = ((1, "no"), (5, "a little"), (20, "some"))


def habana_modifier(unique_shapes: int) -> str | None:
    if unique_shapes == 0:
        return None
    for limit, word in _MODIFIERS:
        if unique_shapes <= limit:
            return word
    return "a lot of"


def habana_verdict(unique_shapes: int) -> str:
    word = habana_modifier(unique_shapes)
    return "Dataset looks empty" if word is None else f"There is {word} dynamicity in input data shapes"


def _canonical(values: tuple) -> tuple:
    """Relabel values by first occurrence: two dims vary together iff their relabelings match."""
    seen: dict = {}
    return tuple(seen.setdefault(v, len(seen)) for v in values)


def varying_dims(signatures: list[Signature], counts: list[int]) -> list[dict]:
    """Per (leaf path, dim): the values seen, weighted by batches; only dims with >1 value.

    Dims whose values move in lockstep over every observed signature share a `group` number:
    input_ids, attention_mask and token_type_ids dim 1 form one group, so one set of buckets fixes
    all three."""
    per_dim: dict[tuple[str, int], list] = defaultdict(lambda: [None] * len(signatures))
    for i, sig in enumerate(signatures):
        for leaf in sig:
            if leaf.shape is None:
                continue
            for d, size in enumerate(leaf.shape):
                per_dim[(leaf.path, d)][i] = size
    rows = []
    for (path, dim), values in per_dim.items():
        present = [(v, c) for v, c in zip(values, counts) if v is not None]
        distinct = {v for v, _ in present}
        if len(distinct) < 2 and len(present) == len(signatures):
            continue
        rows.append({"path": path, "dim": dim, "values": len(distinct), "min": min(distinct),
                     "median": _weighted_median(present), "max": max(distinct),
                     "missing_in_shapes": len(signatures) - len(present), "_key": _canonical(tuple(values))})
    groups: dict[tuple, int] = {}
    for row in rows:
        row["group"] = groups.setdefault(row.pop("_key"), len(groups) + 1)
    sizes = Counter(row["group"] for row in rows)
    for row in rows:
        row["tied_with"] = [f"{r['path'] or 'batch'}:{r['dim']}" for r in rows
                            if r["group"] == row["group"] and r is not row] if sizes[row["group"]] > 1 else []
    return rows


def _weighted_median(pairs: list[tuple[int, int]]) -> int:
    total = sum(c for _, c in pairs)
    running = 0
    for value, count in sorted(pairs):
        running += count
        if 2 * running >= total:
            return value
    return pairs[-1][0]


def saturation(first_steps: list[int], batches: int) -> dict:
    """How late new shapes still appear; late shapes mean compiles late in training."""
    order = sorted(first_steps)
    if not order:
        return {"step_95": None, "step_all": None, "late_shapes": 0, "new_in_last_10pct": 0}
    k95 = max(1, math.ceil(0.95 * len(order)))
    half, tail = batches / 2, batches * 0.9
    return {"step_95": order[k95 - 1], "step_all": order[-1],
            "late_shapes": sum(1 for s in order if s >= half and s > 0),
            "new_in_last_10pct": sum(1 for s in order if s >= tail and s > 0)}


def coverage(counts_desc: list[int], fraction: float) -> int:
    """How many of the most frequent shapes it takes to cover `fraction` of batches."""
    total = sum(counts_desc)
    running = 0
    for i, c in enumerate(counts_desc, 1):
        running += c
        if running >= fraction * total - 1e-9:
            return i
    return len(counts_desc)


def effective_shapes(counts: list[int]) -> float:
    """exp(entropy): 443 shapes with one covering 99.9% of batches behave like ~1."""
    total = sum(counts)
    if not total:
        return 0.0
    h = -sum(c / total * math.log(c / total) for c in counts if c)
    return round(math.exp(h), 3)


def batch_dim(sig: Signature) -> int | None:
    """The batch size of a signature: the common dim 0 of its tensors/arrays/lists, if they agree."""
    sizes = {leaf.shape[0] for leaf in sig if leaf.shape}
    return sizes.pop() if len(sizes) == 1 else None


def _without_batch_dim(sig: Signature) -> tuple:
    return tuple((leaf.path, leaf.kind, leaf.dtype, leaf.shape[1:] if leaf.shape else leaf.shape) for leaf in sig)


def partial_batches(signatures: list[Signature], counts: list[int], first: list[int], last: list[int],
                    batches: int, complete: bool) -> dict | None:
    """Shapes that differ from a common one only by a smaller batch dimension.

    One such shape seen once, at the very end of a complete pass, is the last partial batch:
    `drop_last=True` (or padding the batch dimension) removes a shape and its compile."""
    dims = Counter()
    for sig, c in zip(signatures, counts):
        b = batch_dim(sig)
        if b is not None:
            dims[b] += c
    if not dims:
        return None
    full = max(dims.items(), key=lambda kv: (kv[1], kv[0]))[0]
    rest = {_without_batch_dim(s) for s in signatures if batch_dim(s) == full}
    smaller = [i for i, s in enumerate(signatures)
               if (b := batch_dim(s)) is not None and b < full and _without_batch_dim(s) in rest]
    if not smaller:
        return None
    only_last = (complete and len(smaller) == 1 and counts[smaller[0]] == 1
                 and first[smaller[0]] == batches - 1)
    return {"batch_size": full, "smaller_batches": sum(counts[i] for i in smaller),
            "smaller_shapes": len(smaller), "last_batch_only": only_last,
            "last_batch_size": batch_dim(signatures[smaller[0]]) if only_last else None}
