"""An attribute declared a container of tensors in the class body (`iou_matrix: List[Tensor]`,
a metric's list state that `add_state("iou_matrix", default=[])` registers where no
assignment shows it) holds tensors: the items of `zip(self.iou_matrix, self.labels)` are
tensors, so `mat[:, lab == c]` indexes with a mask. An empty container assigned (the state's
reset) agrees with the declaration; another value (a list of numbers) voids it. Through the
real CLI on a small package whose base class (registering the states, calling `compute` from
its `forward`) is in another file; a file checked alone gets its project's findings."""
from __future__ import annotations

from _tree import findings, write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/base.py": """\
        import torch


        class Metric(torch.nn.Module):
            def add_state(self, name, default):
                setattr(self, name, default)

            def forward(self, *args):
                self.update(*args)
                return self.compute()
        """,
    "pkg/iou.py": """\
        from typing import List

        import torch
        from torch import Tensor

        from pkg.base import Metric


        class IoU(Metric):
            labels: List[Tensor]
            iou_matrix: List[Tensor]
            sizes: List[Tensor]

            def __init__(self):
                super().__init__()
                self.add_state("labels", default=[])
                self.add_state("iou_matrix", default=[])
                self.sizes = [1, 2]

            def reset(self):
                self.labels = []

            def update(self, iou: Tensor, labels: Tensor):
                self.iou_matrix.append(iou)
                self.labels.append(labels)

            def compute(self):
                out = []
                for c in range(3):
                    for mat, lab in zip(self.iou_matrix, self.labels):
                        out.append(mat[:, lab == c].sum())
                    for size in self.sizes:
                        if size == c:
                            out.append(size)
                return out
        """,
}
EXPECTED = [("iou.py", 31, "DYN101")]


def test_items_of_a_declared_list_state_are_tensors(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    for target in (".", "pkg/iou.py"):         # the whole project, the file alone
        found = findings(dynlint, tmp_path, target, "--no-cache")
        assert found == EXPECTED, (target, found)
