"""A Python list a tensor is written into holds a tensor from then on (walker._store_item):
`shape = list(x.shape); shape[-2:] = size[0]; torch.Size(shape)` reads each item back to the
host (`torch.Size` calls `__index__` on them: kornia's `_get_new_batch_shape`), as a list
built with the tensor does. A list written with numbers, and a numpy array written with a
tensor (numpy copies it at the write: its items are numbers), stay plain. Through the real
CLI."""
from __future__ import annotations

import json

SOURCE = """\
import numpy as np
import torch


class Net(torch.nn.Module):
    def forward(self, x, size: torch.Tensor):
        shape = list(x.shape)
        shape[-2:] = size[0]
        a = x.new_zeros(torch.Size(shape))
        dims = list(x.shape)
        dims[0] = size.amax()
        b = x.new_zeros(dims)
        plain = list(x.shape)
        plain[0] = 2 * plain[0]
        c = x.new_zeros(torch.Size(plain))
        arr = np.zeros(2, dtype=np.int64)
        arr[0] = size.amax()
        d = x.new_zeros(torch.Size(arr.tolist()))
        return a, b, c, d, torch.Size(x.shape)
"""


def test_a_list_written_with_a_tensor_holds_one(dynlint, tmp_path):
    (tmp_path / "net.py").write_text(SOURCE)
    out = dynlint("check", "net.py", "--no-cache", "--output-format", "json", cwd=tmp_path)
    found = [(f["line"], f["code"]) for f in json.loads(out.stdout)]
    assert found == [(9, "DYN206"), (12, "DYN206")], found
