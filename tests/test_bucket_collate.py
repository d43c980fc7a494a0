"""BucketCollator and BucketBatchSampler on a real text loader (stdlib docstrings tokenised
by a tokenizer trained offline): shapes counted directly from the batches."""
import collections

import pytest
import torch
from buckets_corpus import DocstringDataset
from buckets_corpus import lengths as corpus_lengths
from torch.utils.data import DataLoader

import dynlint.buckets as bk


@pytest.fixture(scope="module")
def dataset():
    return DocstringDataset()


def shapes_of(loader):
    seen = collections.Counter()
    for batch in loader:
        seen[tuple((k, tuple(v.shape)) for k, v in sorted(batch.items()))] += 1
    return seen


def pad_per_batch(items):
    longest = max(len(x["input_ids"]) for x in items)
    return {k: torch.tensor([x[k] + [0] * (longest - len(x[k])) for x in items])
            for k in items[0]}


@pytest.mark.parametrize("k", [4, 8])
def test_k_optimal_buckets_give_at_most_k_plus_1_shapes(dataset, k):
    lengths = corpus_lengths()
    generator = torch.Generator().manual_seed(0)
    per_batch = shapes_of(DataLoader(dataset, batch_size=7, shuffle=True, generator=generator,
                                     collate_fn=pad_per_batch))
    hist = bk.batch_maxima(lengths, 7, seed=0)
    buckets = bk.optimal(hist, k)
    collate = bk.BucketCollator(buckets.boundaries)
    bucketed = shapes_of(DataLoader(dataset, batch_size=7, shuffle=True, generator=generator,
                                    collate_fn=collate))
    assert len(per_batch) > 50                   # padding per batch: many shapes
    assert len(bucketed) <= k + 1                # K lengths x (full batch, last partial batch)
    widths = {dict(sig)["input_ids"][1] for sig in bucketed}
    assert widths <= set(buckets.boundaries)
    assert sum(bucketed.values()) == sum(per_batch.values())
    # Batch padding too: exactly one batch size.
    fixed = shapes_of(DataLoader(dataset, batch_size=7, collate_fn=bk.BucketCollator(
        buckets.boundaries, batch_size=7)))
    assert {dict(sig)["input_ids"][0] for sig in fixed} == {7} and len(fixed) <= k


def test_padding_values_per_key_and_masks(dataset):
    items = [dataset[i] for i in range(5)]
    for it, label in zip(items, range(5)):
        it["labels"] = list(it["input_ids"])
        it["label"] = label
    longest = max(len(it["input_ids"]) for it in items)
    collate = bk.BucketCollator([longest + 3, 1024], pad_value=1, pad_values={"labels": -100})
    batch = collate(items)
    assert batch["input_ids"].shape == (5, longest + 3)
    for row, it in enumerate(items):
        n = len(it["input_ids"])
        assert batch["input_ids"][row, :n].tolist() == it["input_ids"]
        assert (batch["input_ids"][row, n:] == 1).all()
        assert (batch["labels"][row, n:] == -100).all()
        assert batch["attention_mask"][row].tolist() == [1] * n + [0] * (longest + 3 - n)
    assert batch["label"].tolist() == [0, 1, 2, 3, 4]


def test_tuples_tensors_left_padding_and_overflow():
    items = [(torch.arange(1, 4), 7), (torch.arange(1, 6), 8)]
    ids, labels = bk.BucketCollator([4, 8], padding_side="left")(items)
    assert ids.tolist() == [[0, 0, 0, 0, 0, 1, 2, 3], [0, 0, 0, 1, 2, 3, 4, 5]]
    assert labels.tolist() == [7, 8]
    with pytest.raises(bk.BucketOverflow, match="exceeds the largest bucket 4"):
        bk.BucketCollator([4])(items)
    ids, _ = bk.BucketCollator([4], overflow="truncate")(items)
    assert ids.shape == (2, 4)


def test_warmup_has_one_batch_per_bucket_shape(dataset):
    lengths = corpus_lengths()
    buckets = bk.optimal(lengths, 6)
    sampler = bk.BucketBatchSampler(lengths, buckets.boundaries, max_tokens=2048)
    collate = bk.BucketCollator(buckets.boundaries, batch_size=sampler.batch_sizes())
    warm = bk.warmup_batches(collate, dataset[0], sampler.batch_sizes())
    warm_shapes = {tuple(b["input_ids"].shape) for b in warm}
    assert warm_shapes == {(sampler.size_for(b), b) for b in buckets.boundaries}
    # every shape the training loader produces was compiled by the warm-up
    loader = DataLoader(dataset, batch_sampler=sampler, collate_fn=collate)
    assert {dict(sig)["input_ids"] for sig in shapes_of(loader)} <= warm_shapes


def test_sampler_respects_the_token_budget():
    lengths = corpus_lengths()
    buckets = bk.optimal(lengths, 8)
    budget = 4096
    sampler = bk.BucketBatchSampler(lengths, buckets.boundaries, max_tokens=budget, seed=1)
    batches = list(sampler)
    assert len(batches) == len(sampler)
    seen = sorted(i for b in batches for i in b)
    assert seen == list(range(len(lengths)))            # every item exactly once
    sizes = set()
    for batch in batches:
        bound = bk.bucket_for(buckets.boundaries, max(lengths[i] for i in batch))
        assert len(batch) * bound <= budget
        assert all(bk.bucket_for(buckets.boundaries, lengths[i]) == bound for i in batch)
        sizes.add(len(batch))
    assert len(sizes) > 2                               # variable batch size
    sampler.set_epoch(1)
    assert [sorted(b) for b in sampler] != [sorted(b) for b in batches]
    dropped = bk.BucketBatchSampler(lengths, buckets.boundaries, max_tokens=budget, drop_last=True)
    assert all(len(b) == dropped.size_for(bk.bucket_for(buckets.boundaries, lengths[b[0]]))
               for b in dropped)
    assert len(list(dropped)) == len(dropped)
    with pytest.raises(ValueError, match="cannot hold one item"):
        bk.BucketBatchSampler(lengths, buckets.boundaries, max_tokens=buckets.boundaries[-1] - 1)


def test_multidimensional_fields_are_padded_only_when_named():
    items = [{"features": torch.ones(n, 3), "image": torch.zeros(3, 4, 4), "id": f"doc{n}"}
             for n in (2, 5)]
    batch = bk.BucketCollator([4, 8], keys=["features"])(items)
    assert batch["features"].shape == (2, 8, 3) and batch["image"].shape == (2, 3, 4, 4)
    assert batch["features"][0, 2:].abs().sum() == 0 and batch["id"] == ["doc2", "doc5"]
    # by default a 3-D image is stacked, never padded along its channels
    batch = bk.BucketCollator([4, 8])([{"image": torch.zeros(3, 4, 4), "ids": [1, 2]}] * 2)
    assert batch["image"].shape == (2, 3, 4, 4) and batch["ids"].shape == (2, 4)


from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.integers(1, 99), min_size=1, max_size=30), min_size=1, max_size=6),
       st.sets(st.integers(1, 40), min_size=1, max_size=5), st.sampled_from(["right", "left"]))
def test_collator_keeps_every_token_and_masks_the_padding(seqs, bounds, side):
    bounds = sorted(bounds | {30})
    items = [{"input_ids": s, "attention_mask": [1] * len(s), "label": i} for i, s in enumerate(seqs)]
    batch = bk.BucketCollator(bounds, pad_value=0, padding_side=side)(items)
    width = bk.bucket_for(bounds, max(map(len, seqs)))
    assert batch["input_ids"].shape == (len(seqs), width)
    for row, s in zip(batch["input_ids"].tolist(), seqs):
        pad = [0] * (width - len(s))
        assert row == (s + pad if side == "right" else pad + s)
    assert batch["attention_mask"].sum(1).tolist() == [len(s) for s in seqs]
    assert batch["label"].tolist() == list(range(len(seqs)))
