"""`dynlint shapes` on real data: sklearn digits, torchvision FakeData, stdlib docstrings."""
from __future__ import annotations

import collections
import dataclasses
import json
import os
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")
from torch.utils.data import DataLoader, TensorDataset

from dynlint.shapes import batch_signature, data_dynamicity, describe, scan

sys.path.insert(0, os.path.dirname(__file__))
import inputs_corpus

LIMIT = 120  # stdlib files for the text corpus: enough for hundreds of batches, quick to build


def digits_loader(**kwargs):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return DataLoader(TensorDataset(torch.tensor(X, dtype=torch.float32), torch.tensor(y)), batch_size=7, **kwargs)


def test_digits_batch_7_gives_the_guides_two_shapes():
    from sklearn.datasets import load_digits

    n, features = load_digits().data.shape
    full, rest = divmod(n, 7)
    assert rest  # 1797 = 256 * 7 + 5: the last batch is partial
    d = scan(digits_loader()).to_dict()
    assert d["batches"] == full + 1
    assert d["unique_shapes"] == 2
    assert [(s["signature"], s["count"]) for s in d["shapes"]] == [
        (f"[0]: float32 (7, {features}); [1]: int64 (7,)", full),
        (f"[0]: float32 ({rest}, {features}); [1]: int64 ({rest},)", 1)]
    assert d["verdict"] == "There is a little dynamicity in input data shapes"
    assert d["partial_batch"]["last_batch_only"] and d["partial_batch"]["last_batch_size"] == rest
    assert any("drop_last=True" in h for h in d["hints"])
    assert {(r["path"], r["dim"]) for r in d["varying_dims"]} == {("[0]", 0), ("[1]", 0)}


def test_digits_drop_last_has_no_dynamicity():
    d = scan(digits_loader(drop_last=True)).to_dict()
    assert d["unique_shapes"] == 1 and d["verdict"] == "There is no dynamicity in input data shapes"
    assert d["partial_batch"] is None and d["varying_dims"] == []


def test_data_dynamicity_prints_the_guides_report(capsys):
    counts = data_dynamicity(digits_loader())
    out = capsys.readouterr().out
    assert "|Shape" in out and "|Count" in out
    assert "((7, 64), (7,))" in out and "Number of unique shapes: 2" in out
    assert out.rstrip().endswith("There is a little dynamicity in input data shapes")
    assert counts == {((7, 64), (7,)): 256, ((5, 64), (5,)): 1}


def test_verdict_thresholds_follow_the_guides():
    from dynlint.shapes import habana_verdict

    words = {n: habana_verdict(n) for n in (0, 1, 2, 5, 6, 20, 21, 443)}
    assert words[0] == "Dataset looks empty"
    assert [words[n].split("There is ")[1].split(" dynamicity")[0] for n in (1, 2, 5, 6, 20, 21, 443)] == \
        ["no", "a little", "a little", "some", "some", "a lot of", "a lot of"]


class _SeededCrop:
    """Crop each FakeData image to a size drawn from its own pixels (FakeData seeds per index)."""

    def __call__(self, img):
        h = 20 + int(img[0, 0, 0] * 1000) % 9
        w = 20 + int(img[0, 1, 1] * 1000) % 7
        return img[:, :h, :w]


def _crop_to_smallest(batch):  # the guides' Flowers collate: crop the batch to its smallest image
    h = min(x.shape[1] for x, _ in batch)
    w = min(x.shape[2] for x, _ in batch)
    return torch.stack([x[:, :h, :w] for x, _ in batch]), torch.tensor([int(y) for _, y in batch])


def test_fakedata_varying_image_sizes_and_center_crop():
    from torchvision import datasets, transforms

    varying = datasets.FakeData(size=150, image_size=(3, 32, 32),
                                transform=transforms.Compose([transforms.ToTensor(), _SeededCrop()]))
    d = scan(DataLoader(varying, batch_size=7, collate_fn=_crop_to_smallest)).to_dict()
    sizes = collections.Counter()
    for start in range(0, 150, 7):
        items = [varying[i] for i in range(start, min(start + 7, 150))]
        x, _ = _crop_to_smallest(items)
        sizes[tuple(x.shape)] += 1
    assert d["unique_shapes"] == len(sizes) > 5
    assert sorted(s["count"] for s in d["shapes"]) == sorted(sizes.values())
    dims = {(r["path"], r["dim"]) for r in d["varying_dims"]}
    assert ("[0]", 2) in dims and ("[0]", 3) in dims
    assert any("crop images" in h for h in d["hints"])

    fixed = datasets.FakeData(size=150, image_size=(3, 32, 32),
                              transform=transforms.Compose([transforms.ToTensor(), _SeededCrop(),
                                                            transforms.CenterCrop((16, 16))]))
    d = scan(DataLoader(fixed, batch_size=7, collate_fn=_crop_to_smallest)).to_dict()
    assert d["unique_shapes"] == 2  # 21 full batches and the partial last one
    assert d["shapes"][0]["signature"] == "[0]: float32 (7, 3, 16, 16); [1]: int64 (7,)"


def test_text_padded_per_batch_has_a_lot_of_dynamicity():
    items = inputs_corpus.encoded_corpus(limit=LIMIT)
    lengths = inputs_corpus.lengths(items)
    expected = collections.Counter(
        (len(lengths[i:i + 7]), max(lengths[i:i + 7])) for i in range(0, len(lengths), 7))
    d = scan(inputs_corpus.text_loader(limit=LIMIT)).to_dict()
    assert d["unique_shapes"] == len(expected) > 20
    assert d["verdict"] == "There is a lot of dynamicity in input data shapes"
    assert sorted(s["count"] for s in d["shapes"]) == sorted(expected.values())
    # the three SQuAD keys share their length dimension: one set of buckets fixes all three
    length_dims = [r for r in d["varying_dims"] if r["dim"] == 1]
    assert {r["path"] for r in length_dims} == set(inputs_corpus.SQUAD_KEYS)
    assert len({r["group"] for r in length_dims}) == 1
    assert length_dims[0]["max"] == max(lengths)
    assert any("dynlint buckets" in h for h in d["hints"])


def test_text_padded_to_global_max_has_two_shapes():
    items = inputs_corpus.encoded_corpus(limit=LIMIT)
    longest = max(inputs_corpus.lengths(items))
    loader = inputs_corpus.text_loader(limit=LIMIT, collate=lambda b: inputs_corpus.pad_to(b, longest))
    d = scan(loader).to_dict()
    assert d["unique_shapes"] == (2 if len(items) % 7 else 1)
    assert d["shapes"][0]["signature"].startswith(f"attention_mask: int64 (7, {longest})")


def test_max_batches_is_a_sample_and_says_so():
    d = scan(inputs_corpus.text_loader(limit=LIMIT), max_batches=30).to_dict()
    assert d["batches"] == 30 and not d["complete"] and d["stopped_by"] == "max_batches"
    assert 0 < d["new_shape_probability"] <= 1
    assert any("sampled 30 batches" in h for h in d["hints"])


# ---- signatures: every shortcoming of the hash-based walk ------------------------------------

Box = collections.namedtuple("Box", "boxes labels")


@dataclasses.dataclass
class Sample:
    image: object
    ids: list


def test_signature_paths_dtypes_and_no_values():
    import numpy as np
    from transformers import BatchEncoding

    a = {"b": torch.zeros(2, 3), "a": [torch.ones(2, dtype=torch.int64), 7, "x"]}
    b = {"a": [torch.ones(2, dtype=torch.int64), 8, "y"], "b": torch.zeros(2, 3)}  # other order, values
    assert batch_signature(a) == batch_signature(b)
    assert describe(batch_signature(a)) == "a[0]: int64 (2,); a[1]: int; a[2]: str; b: float32 (2, 3)"
    enc = BatchEncoding({"input_ids": torch.zeros(4, 9, dtype=torch.int64), "attention_mask": np.ones((4, 9))})
    assert describe(batch_signature(enc)) == "attention_mask: float64 (4, 9); input_ids: int64 (4, 9)"
    nt = Box(torch.nn.Parameter(torch.zeros(3, 4)), torch.zeros(3, dtype=torch.int64))
    assert describe(batch_signature(nt)) == ".boxes: float32 (3, 4); .labels: int64 (3,)"
    dc = Sample(np.zeros((2, 2), dtype=np.uint8), ["id-1", "id-2"])
    assert describe(batch_signature(dc)) == ".image: uint8 (2, 2); .ids: list[str] (2,)"
    assert batch_signature(Sample(np.zeros((2, 2), dtype=np.uint8), ["z", "w"])) == batch_signature(dc)
    assert describe(batch_signature(torch.zeros(5))) == "batch: float32 (5,)"


def test_int_ids_and_string_lists_do_not_make_every_batch_new():
    batches = [{"id": i, "names": [f"n{i}", f"m{i}"], "x": torch.zeros(2, 3)} for i in range(50)]
    assert scan(batches).to_dict()["unique_shapes"] == 1


# ---- CLI --------------------------------------------------------------------------------------

FACTORIES = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {tests!r})
    import inputs_corpus

    def text():
        return inputs_corpus.loader_from_items({items!r})

    def digits():
        import torch
        from sklearn.datasets import load_digits
        from torch.utils.data import DataLoader, TensorDataset
        X, y = load_digits(return_X_y=True)
        return DataLoader(TensorDataset(torch.tensor(X, dtype=torch.float32), torch.tensor(y)), batch_size=7)

    def boom():
        raise RuntimeError("no data here")

    def empty():
        return []

    def bad_batches():
        def gen():
            yield {{"x": 1}}
            raise ValueError("corrupt record")
        return gen()
""")


@pytest.fixture
def factories(write, tmp_path):
    items = tmp_path / "items.json"
    inputs_corpus.save_items(items, inputs_corpus.encoded_corpus(limit=LIMIT))
    path = write("factories.py", FACTORIES.format(tests=os.path.dirname(__file__), items=str(items)))
    return path.parent


def test_cli_json_is_byte_identical_across_hash_seeds(dynlint, factories):
    runs = [dynlint("shapes", "--entry", "factories:text", "--format", "json", "--max-batches", "200",
                    cwd=factories, env={"PYTHONHASHSEED": seed}) for seed in ("1", "2")]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    d = json.loads(runs[0].stdout)
    assert d["batches"] == 200 and d["unique_shapes"] > 20
    assert {"batches", "unique_shapes", "shapes", "verdict"} <= d.keys()
    assert d["shapes"][0]["count"] >= d["shapes"][-1]["count"]


def test_cli_text_csv_fail_over_and_progress(dynlint, factories):
    r = dynlint("shapes", "--entry", "factories:digits", cwd=factories)
    assert r.returncode == 0 and "Number of unique shapes: 2 in 257 batches" in r.stdout
    assert "There is a little dynamicity in input data shapes" in r.stdout
    r = dynlint("shapes", "--entry", "factories:digits", "--format", "csv", "--fail-over", "1", cwd=factories)
    assert r.returncode == 1
    rows = list(__import__("csv").DictReader(r.stdout.splitlines()))
    assert [int(row["count"]) for row in rows] == [256, 1]
    r = dynlint("shapes", "--entry", "factories:digits", "--format", "json", "--progress", cwd=factories)
    assert r.returncode == 0 and json.loads(r.stdout)["unique_shapes"] == 2
    assert "batch" in r.stderr  # the bar went to stderr, stdout stayed pure JSON


@pytest.mark.parametrize("entry, message", [
    ("factories:boom", "factories:boom() raised RuntimeError: no data here"),
    ("factories:empty", "the loader yielded no batches"),
    ("factories:bad_batches", "the loader raised ValueError at batch 1: corrupt record"),
    ("factories:missing", "has no attribute 'missing'"),
    ("nosuchmodule:f", "cannot import 'nosuchmodule'"),
])
def test_cli_errors_exit_2_with_one_line(dynlint, factories, entry, message):
    r = dynlint("shapes", "--entry", entry, cwd=factories)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_cli_help_explains(dynlint):
    r = dynlint("shapes", "--help")
    assert r.returncode == 0
    for words in ("Number of unique shapes", "--max-batches", "--world-size", "--fail-over", "N*(S-1)+1"):
        assert words in r.stdout


def test_world_size_simulation_through_the_cli(dynlint, factories):
    r = dynlint("shapes", "--entry", "factories:text", "--world-size", "4", "--format", "json",
                "--max-batches", "120", cwd=factories)
    assert r.returncode == 0, r.stderr
    w = json.loads(r.stdout)["distributed"]
    assert w["shard"] == "sampler" and w["world_size"] == 4
    assert w["stall_steps_shared_cache"] <= w["stall_steps_per_rank_cache"] <= w["bound"]
    assert w["bound"] == 4 * (w["unique_shapes"] - 1) + 1
