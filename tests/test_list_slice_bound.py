"""DYN213 covers a Python list (or ModuleList) *sliced* by a tensor bound (`steps[0:self.n]` with
`self.n` drawn on the device): each bound is read back with `operator.index`, as an index is,
and how many items are taken depends on the data. A Python int bound, and a tensor sliced by a
tensor (DYN207's), are not DYN213's. Through the CLI."""
from __future__ import annotations

from _tree import findings, write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/augment.py": """\
        import torch


        class Augment(torch.nn.Module):
            def __init__(self, n: int):
                super().__init__()
                self.steps = torch.nn.ModuleList([torch.nn.ReLU(), torch.nn.Tanh()])
                self.fixed = n

            def forward(self, x):
                k = (x > 0).sum()
                head = x[:k]
                self.n_aug = torch.randint(1, 3, (), device=x.device)
                for step in self.steps[0 : self.n_aug]:
                    x = step(x)
                for step in self.steps[: self.fixed]:
                    x = step(x)
                return head, x
        """,
}


def test_a_list_sliced_by_a_tensor_bound_is_flagged(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    found = [(line, code) for _, line, code in findings(dynlint, tmp_path, ".")]
    assert (14, "DYN213") in found, found            # the tensor bound ...
    assert (14, "DYN207") not in found, found        # ... reported once
    assert (16, "DYN213") not in found, found        # a Python int bound
    assert (12, "DYN213") not in found, found        # a tensor sliced: DYN207's
    assert (12, "DYN207") in found, found
