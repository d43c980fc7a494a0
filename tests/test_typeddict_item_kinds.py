"""Items of a TypedDict (typeddicts.py): a batch dict declared `class Batch(TypedDict):
masks: NotRequired[BoolTensor]` says what `batch["masks"]` and `batch.get("masks")` hold
where `batch: Batch` is a parameter, in the class's file and, through the cross-file step,
in another file of the project (pykeen's `SLCWABatch` read by the sLCWA training loop). An
item declared a Python value, or a dict not declared so, says nothing. Through the real CLI."""
from __future__ import annotations

from _tree import findings, write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/batches.py": """\
        from typing import TypedDict

        import torch
        from typing_extensions import NotRequired


        class Batch(TypedDict):
            negatives: torch.LongTensor
            masks: NotRequired[torch.BoolTensor]
            count: int
        """,
    "pkg/loop.py": """\
        import torch

        from pkg.batches import Batch


        class Scorer(torch.nn.Module):
            def forward(self, batch: Batch, plain: dict, start: int, stop: int):
                negative = batch["negatives"][start:stop]
                keep = batch.get("masks")
                if keep is not None:
                    negative = negative[keep[start:stop]]
                other = plain.get("masks")
                return negative.float().sum(), negative[batch["count"]], negative[other]
        """,
    "pkg/local.py": """\
        from typing import TypedDict

        import torch


        class Pair(TypedDict):
            x: torch.Tensor
            valid: torch.BoolTensor


        class Net(torch.nn.Module):
            def forward(self, pair: Pair):
                return pair["x"][pair["valid"]]
        """,
}


def test_typed_dict_items_have_their_declared_kinds(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    whole = findings(dynlint, tmp_path, ".", "--no-cache")
    # (`negative[other]`: a plain dict's item named `masks` is left to the names: `likely`.)
    assert ("loop.py", 11, "DYN101") in whole, whole
    assert ("local.py", 13, "DYN101") in whole, whole
    assert not [f for f in whole if f[:2] == ("loop.py", 13) and f[2] != "DYN101"], whole
    # The file alone, its project around it: the same (no cache, then the cache cold and warm).
    for cache in (["--no-cache"], [], []):
        assert ("loop.py", 11, "DYN101") in findings(dynlint, tmp_path, "pkg/loop.py", *cache)
