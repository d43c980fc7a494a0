"""Bucket boundaries for variable-length inputs (`dynlint buckets` in Python).

    b = dynlint.buckets.optimal(lengths, 8)          # exact minimum padding
    b.boundaries, b.waste, b.waste_fraction
    collate = dynlint.buckets.BucketCollator(b.boundaries, pad_values={"labels": -100})
    sampler = dynlint.buckets.BucketBatchSampler(lengths, b.boundaries, max_tokens=4096)

The static checker never imports this module; it needs numpy (and torch for the collator).
"""
from .inputs.buckets import (
    METHODS,
    Buckets,
    bucket_for,
    by_name,
    evaluate,
    multiple,
    optimal,
    optimal_all,
    pad_to_max,
    percentile,
    pow2,
    uniform,
)
from .inputs.collate import BucketCollator, BucketOverflow
from .inputs.costmodel import CostInputs, recommend
from .inputs.histogram import Histogram, LengthsError, batch_maxima, load_lengths
from .inputs.sampler import BucketBatchSampler
from .inputs.solve import solve, solve_reference


def warmup_batches(collator: BucketCollator, example, batch_size=1):
    """One batch per bucket shape (see BucketCollator.warmup)."""
    return collator.warmup(example, batch_size)


__all__ = ["METHODS", "BucketBatchSampler", "BucketCollator", "BucketOverflow", "Buckets",
           "CostInputs", "Histogram", "LengthsError", "batch_maxima", "bucket_for", "by_name",
           "evaluate", "load_lengths", "multiple", "optimal", "optimal_all", "pad_to_max",
           "percentile", "pow2", "recommend", "solve", "solve_reference", "uniform",
           "warmup_batches"]
