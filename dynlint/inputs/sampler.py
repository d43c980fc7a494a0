"""`BucketBatchSampler`: batches drawn from one bucket at a time, so each batch pads to its
bucket with little waste, and (with `max_tokens`) the guides' variable batch size: short
buckets get big batches, long ones small batches, `batch = max_tokens // boundary`, so the
padded batch never holds more than `max_tokens` positions. Pass it as `batch_sampler=` to a
DataLoader together with a `BucketCollator` over the same boundaries."""
from __future__ import annotations

import bisect
import random


class BucketBatchSampler:
    def __init__(self, lengths, boundaries, batch_size=None, max_tokens=None, shuffle=True,
                 seed=0, drop_last=False):
        if (batch_size is None) == (max_tokens is None):
            raise ValueError("give exactly one of batch_size and max_tokens")
        self.boundaries = sorted({int(b) for b in boundaries})
        if not self.boundaries:
            raise ValueError("no boundaries")
        if batch_size is not None and batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if max_tokens is not None and max_tokens < self.boundaries[0]:
            raise ValueError(f"max_tokens={max_tokens} cannot hold one item of the shortest "
                             f"bucket ({self.boundaries[0]})")
        self.batch_size, self.max_tokens = batch_size, max_tokens
        self.shuffle, self.seed, self.drop_last = shuffle, seed, drop_last
        self.epoch = 0
        self.by_bucket: dict[int, list[int]] = {b: [] for b in self.boundaries}
        for index, n in enumerate(lengths):
            i = bisect.bisect_left(self.boundaries, int(n))
            if i == len(self.boundaries):
                raise ValueError(f"item {index} has length {n}, longer than the largest bucket "
                                 f"{self.boundaries[-1]}")
            self.by_bucket[self.boundaries[i]].append(index)
        too_long = [b for b in self.boundaries if self.by_bucket[b] and self.size_for(b) < 1]
        if too_long:
            raise ValueError(f"max_tokens={max_tokens} cannot hold one item of bucket {too_long[0]}")

    def size_for(self, boundary: int) -> int:
        """Items per batch in a bucket: fixed, or as many as fit in the token budget."""
        return self.batch_size if self.max_tokens is None else self.max_tokens // boundary

    def batch_sizes(self) -> dict[int, int]:
        """{boundary: batch size}: give it to BucketCollator(batch_size=...) to pad short last
        batches, or to BucketCollator.warmup() to compile every (batch, length) shape."""
        return {b: self.size_for(b) for b in self.boundaries if self.by_bucket[b]}

    def set_epoch(self, epoch: int) -> None:
        """Like DistributedSampler.set_epoch: a new shuffle each epoch, reproducible."""
        self.epoch = epoch

    def _batches(self):
        rng = random.Random(self.seed * 1_000_003 + self.epoch)
        batches = []
        for b in self.boundaries:
            indices = list(self.by_bucket[b])
            if self.shuffle:
                rng.shuffle(indices)
            size = self.size_for(b)
            for start in range(0, len(indices), size):
                chunk = indices[start:start + size]
                if self.drop_last and len(chunk) < size:
                    continue
                batches.append(chunk)
        if self.shuffle:
            rng.shuffle(batches)
        return batches

    def __iter__(self):
        return iter(self._batches())

    def __len__(self) -> int:
        total = 0
        for b, indices in self.by_bucket.items():
            size = self.size_for(b) if indices else 1
            total += len(indices) // size if self.drop_last else -(-len(indices) // size)
        return total
