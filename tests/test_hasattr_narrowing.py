"""`if hasattr(x, "tolist"): x = x.tolist()`: where the test fails, `x` is no tensor (every
tensor has the attribute), so after the `if` it holds the list either way and `if x` reads no
tensor. Where it holds, nothing is proved (numpy arrays have `tolist` too): `if x` there
still reads the tensor. Through the CLI."""
from __future__ import annotations

SOURCE = """\
import torch


def decode(tokenizer, input_ids):
    if hasattr(input_ids, "tolist"):
        input_ids = input_ids.tolist()
    if input_ids and isinstance(input_ids[0], list):
        input_ids = input_ids[0]
    return tokenizer.decode(input_ids)


def keep(x):
    if not hasattr(x, "shape"):
        return x
    if x:
        return x
    return None


class M(torch.nn.Module):
    def forward(self, tok, x: torch.Tensor):
        ids = torch.argmax(x, -1)
        return decode(tok, ids), keep(ids)
"""


def test_a_failed_tensor_attribute_test_proves_no_tensor(dynlint, write, tmp_path):
    write("m.py", SOURCE)
    out = dynlint("check", "m.py", "--no-cache", "--exit-zero", cwd=tmp_path)
    found = sorted(line.split(" ")[0] for line in out.stdout.splitlines() if line.startswith("m.py:"))
    assert found == ["m.py:15:8:", "m.py:6:21:"]
