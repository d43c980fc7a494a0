"""Compile stalls in data-parallel training.

Every rank runs the same step in lockstep; a rank that meets a shape it has no compiled graph for
compiles, and the others wait at the next collective.  So a *stall step* is a step in which at
least one rank compiles.  With S shapes and N ranks each keeping its own cache, the worst case is
N*(S-1)+1 stall steps (the guides): step 0, then every rank meeting every other shape alone.  A
recipe cache shared across ranks (PT_HPU_RECIPE_CACHE_CONFIG on Gaudi) lets a shape compiled by
one rank serve the others from the next step on, so at most S steps stall.
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence


def worst_case_stalls(ranks: int, shapes: int) -> int:
    return ranks * (shapes - 1) + 1 if shapes else 0


def simulate(per_rank: Sequence[Sequence[Hashable]]) -> dict:
    """per_rank[r][t] is the shape rank r sees at step t (ranks may run out of batches early).

    Returns stall steps with per-rank caches and with a shared cache, compiles per rank, the
    distinct shape count S and the N*(S-1)+1 bound."""
    ranks = len(per_rank)
    steps = max((len(seq) for seq in per_rank), default=0)
    own: list[set] = [set() for _ in range(ranks)]
    shared: set = set()
    stalls_own, stalls_shared = [], []
    for t in range(steps):
        at_step = [seq[t] for seq in per_rank if t < len(seq)]
        if any(seq[t] not in own[r] for r, seq in enumerate(per_rank) if t < len(seq)):
            stalls_own.append(t)
        if any(key not in shared for key in at_step):
            stalls_shared.append(t)
        for r, seq in enumerate(per_rank):
            if t < len(seq):
                own[r].add(seq[t])
        shared.update(at_step)  # compiled this step: available to every rank from the next one
    distinct = len(shared)
    return {"world_size": ranks, "steps": steps, "unique_shapes": distinct,
            "bound": worst_case_stalls(ranks, distinct),
            "stall_steps_per_rank_cache": len(stalls_own),
            "stall_steps_shared_cache": len(stalls_shared),
            "compiles_per_rank": [len(c) for c in own],
            "compiles_per_rank_cache": sum(len(c) for c in own),
            "first_stall_steps": stalls_own[:20],
            "last_stall_step": stalls_own[-1] if stalls_own else None}


def round_robin(sequence: Sequence[Hashable], ranks: int) -> list[list[Hashable]]:
    """Batch i to rank i % N: how accelerate shards a batch sampler by default."""
    return [list(sequence[r::ranks]) for r in range(ranks)]


def sampler_shards(loader, ranks: int, seed: int = 0):
    """Per-rank DataLoaders as torch.utils.data.DistributedSampler would build them, or None when
    the loader cannot be re-sharded that way (an iterable, a custom batch sampler)."""
    try:
        from torch.utils.data import (
            BatchSampler,
            DataLoader,
            DistributedSampler,
            IterableDataset,
            RandomSampler,
        )
    except ImportError:
        return None
    if not isinstance(loader, DataLoader) or isinstance(loader.dataset, IterableDataset):
        return None
    if type(loader.batch_sampler) is not BatchSampler or loader.batch_size is None:
        return None
    shuffle = isinstance(loader.sampler, RandomSampler)
    shards = []
    for rank in range(ranks):
        sampler = DistributedSampler(loader.dataset, num_replicas=ranks, rank=rank, shuffle=shuffle, seed=seed)
        shards.append(DataLoader(loader.dataset, batch_size=loader.batch_size, sampler=sampler,
                                 collate_fn=loader.collate_fn, drop_last=loader.drop_last))
    return shards
