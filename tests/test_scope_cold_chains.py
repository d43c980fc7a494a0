"""Cold by callers through chains, across files, through the real CLI (torch_geometric's
`Data.__inc__`: only the loader's collate calls it, through `collate` -> `_collate` ->
`get_incs`, and a class docstring names it). A function cold in its file only for want of a
caller that is not cold (soft cold) is one link of the chain, so what only it calls is cold
too; a library's own dunder is called by text like any method (Python's own, `__getitem__`,
are called with no text); a docstring hands nothing on. The twin that model code also calls
stays in scope, and so does a method a docstring's doctest calls (code, not prose)."""
from __future__ import annotations

from pathlib import Path

from _tree import findings, write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'geo'\n",
    "geo/__init__.py": "",
    "geo/data.py": """\
        import torch


        class Data:
            def __init__(self, x, edge_index):
                self.x, self.edge_index = x, edge_index

            def __inc__(self, key, value: torch.Tensor):
                if key == "edge_index":
                    return int(value.max()) + 1
                return 0

            def __offset__(self, key, value: torch.Tensor):
                return int(value.max()) + 1
        """,
    "geo/collate.py": """\
        import torch


        def collate(data_list):
            return _collate("edge_index", data_list)


        def _collate(key, data_list):
            values = [getattr(d, key) for d in data_list]
            incs = get_incs(key, values, data_list)
            return torch.cat([v + i for v, i in zip(values, incs)], dim=-1)


        def get_incs(key, values, data_list):
            return [d.__inc__(key, v) for v, d in zip(values, data_list)]
        """,
    "geo/batch.py": """\
        import torch


        class Batch:
            \"\"\"A batch of graphs: :meth:`~Data.__inc__` and :meth:`~Data.__offset__` say how
            indices are shifted.\"\"\"

            def shift(self, data, value):
                return data.__offset__("edge_index", value)
        """,
    # An optimizer whose `step` the training loop, outside the project, calls: the docstring's
    # doctest shows that call (code, unlike prose), and a collator's own `self.step()` is the
    # only `.step(...)` of the project's code.
    "geo/optim.py": """\
        import torch


        class Lars(torch.optim.Optimizer):
            \"\"\"LARS.

            >>> optimizer = Lars(model.parameters(), lr=0.1)
            >>> optimizer.step()
            \"\"\"

            @torch.no_grad()
            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group["params"]:
                        if torch.norm(p) != 0:
                            p.mul_(0.9)
        """,
    "geo/masks.py": """\
        import torch


        class MaskCollator:
            def __call__(self, batch):
                return self.step(), batch

            def step(self):
                return 0
        """,
    "geo/model.py": """\
        import torch
        from geo.batch import Batch


        class Net(torch.nn.Module):
            def forward(self, data, x):
                return x + Batch().shift(data, x)
        """,
}


def test_method_only_a_cold_chain_calls_is_cold(dynlint, tmp_path: Path):
    write_tree(tmp_path, FILES)
    whole = findings(dynlint, tmp_path, ".", "--no-cache")
    # `__inc__` (line 10): only collate's chain calls it; `__offset__` (line 14): model code
    # calls it too.
    assert [f for f in whole if f[0] == "data.py"] == [("data.py", 14, "DYN203")], whole
    assert [f for f in whole if f[0] == "optim.py"] == [("optim.py", 15, "DYN204")], whole
    alone = findings(dynlint, tmp_path, "geo/data.py", "--no-cache")
    assert alone == [f for f in whole if f[0] == "data.py"], (alone, whole)
