"""What the analysis infers: masks through local dataflow, tensors, model-code roles, and the
exact position of each finding. Through the API (`check_source`), which the CLI shares."""
import textwrap

import pytest

from dynlint.api import check_source


def found(src):
    return [(f.code, f.line, f.column) for f in check_source(textwrap.dedent(src), "m.py")]


def codes(src):
    return sorted({c for c, _, _ in found(src)})


MODEL = """\
import torch
import torch.nn.functional as F


class Net(torch.nn.Module):
    def forward(self, x, y, ids):
{body}
"""


def in_forward(body):
    return MODEL.format(body=textwrap.indent(textwrap.dedent(body), " " * 8))


@pytest.mark.parametrize("body", [
    "m = x > 0\nreturn x[m]",
    "m = ~(x > 0)\nreturn x[m]",
    "m = (x > 0) & (y < 1)\nreturn x[m]",
    "m = (x > 0) | y.bool()\nreturn x[m]",
    "m = y.bool()\nreturn x[m]",
    "m = ids.eq(0)\nreturn x[m]",
    "m = ids.ne(0).logical_and(ids.lt(5))\nreturn x[m]",
    "m = torch.isnan(x)\nreturn x[m]",
    "m = torch.isinf(x) | torch.isin(ids, y)\nreturn x[m]",
    "m = torch.logical_not(x.isfinite())\nreturn x[m]",
    "m = torch.ones(x.shape, dtype=torch.bool)\nreturn x[m]",
    "m = y.to(torch.bool)\nreturn x[m]",
    "a, m = x.sum(), y > 0\nreturn x[m]",
    "self.keep = y > 0\nreturn x[self.keep]",
    "return x[:, y > 0]",
    "return x[..., ids != 3]",
    "m = (y > 0)\nm2 = m\nreturn x[m2.unsqueeze(-1)]",
])
def test_mask_inference_recall(body):
    assert "DYN101" in codes(in_forward(body)), body


@pytest.mark.parametrize("body", [
    "return x[ids]",
    "return x[:, 0]",
    "return x[..., None]",
    "return x[1:]",
    "return x[ids.long()]",
    "return x[torch.arange(3)]",
    "d = {'a': x}\nreturn d['a']",
    "lst = [x, y]\nreturn lst[0]",
    "idx = torch.where(x > 0)[0]\nreturn y[idx]",
    "x[x < 0] = 0\nreturn x",
    "return torch.where(x > 0, x, y)",
    "return x.masked_fill(x > 0, 0)",
])
def test_precision_on_static_indexing(body):
    assert "DYN101" not in codes(in_forward(body)), body


def test_numpy_and_python_subscripts_are_not_masks():
    src = """\
    import numpy as np
    import torch

    def prep(values, a, b, table):
        arr = np.asarray(values)
        pos = arr[arr > 0]
        pair = table[a > b]
        return pos, pair
    """
    assert codes(src) == []


def test_item_in_forward_helpers_and_losses_but_not_in_loops_or_init():
    src = """\
    import torch

    def _scale(t):
        return t.max().item()

    class Net(torch.nn.Module):
        def __init__(self, w):
            super().__init__()
            self.s = w.max().item()

        def forward(self, x):
            return self._inner(x) * _scale(x)

        def _inner(self, x):
            return x * x.mean().item()

        def reset_parameters(self):
            self.s = self.w.sum().item()

    def dice_loss(pred, target):
        return 1 - (pred * target).sum().item()

    def train(model, loader):
        for x in loader:
            loss = model(x)
            print(loss.item())

    if __name__ == "__main__":
        print(Net(torch.ones(1))(torch.ones(1)).item())
    """
    assert found(src) == [("DYN201", 4, 12), ("DYN201", 15, 20), ("DYN201", 21, 16)]


def test_nested_function_and_lambda_in_forward():
    src = """\
    import torch

    class Net(torch.nn.Module):
        def forward(self, x):
            def inner(t):
                return t.sum().item()
            f = lambda t: t.tolist()
            return inner(x), f(x)
    """
    assert codes(src) == ["DYN201", "DYN202"]


def test_host_value_conversions_in_model_code():
    body = """\
    n = int(x.sum())
    f = float(torch.max(y))
    if x.any():
        pass
    while (y > 0).all():
        y = y - 1
    z = x if not torch.isnan(x).any() else y
    ok = ids.numel() > 0 and (ids == 0).any()
    flag = 3 in ids.long()
    pos = torch.arange(ids.max(), device=x.device)
    v = x.view(y.sum(), -1)
    k = ids.max().item()
    s = x[:, :k]                 # the read is reported on the line above (DYN201), not again here
    t = x[:, : ids.max()]        # a tensor bound, read right at the slice
    return n, f, z, ok, flag, pos, v, s, t
    """
    assert codes(in_forward(body)) == ["DYN201", "DYN203", "DYN204", "DYN205", "DYN206", "DYN207"]


def test_no_host_value_findings_for_static_python_values():
    body = """\
    b, n = x.shape[:2]
    if x.dim() == 3 and x.size(0) > 1 and self.training and ids is not None:
        x = x.view(b, n, -1)
    if torch.jit.is_scripting() or torch.is_tensor(y) or isinstance(y, tuple):
        pass
    k = int(x.shape[-1] // 2)
    return x[:, :k], torch.arange(x.size(1), device=x.device), len(x)
    """
    assert codes(in_forward(body)) == []


def test_tensor_flows_through_loops_and_unpacking():
    body = """\
    for t in x:
        if t.sum() > 0:
            pass
    for i, t in enumerate(y):
        if i > 2:
            pass
    a, b = x.chunk(2)
    if a.max() > b.max():
        pass
    return x
    """
    assert [c for c, _, _ in found(in_forward(body))] == ["DYN204", "DYN204"]


def test_annotated_parameters_outside_forward():
    src = """\
    import torch
    from typing import Optional

    def pick(x: torch.Tensor, mask: Optional[torch.BoolTensor] = None, k: int = 3):
        a = x[mask]
        b = x[k > 2]
        return a, b
    """
    assert found(src) == [("DYN101", 5, 9)]


def test_op_spellings():
    src = """\
    import torch
    import torch as th
    from torch import unique, nonzero as nz
    import torch.nn.functional as F
    import torchvision
    from torchvision.ops import boxes as box_ops

    def f(x: torch.Tensor, r: torch.Tensor, b, s, l):
        return (torch.nonzero(x), x.nonzero(), nz(x), th.argwhere(x), unique(x), x.unique(),
                torch.unique_consecutive(x), x.unique_consecutive(), torch.where(x),
                torch.masked_select(x, x > 0), x.masked_select(x > 0),
                torch.repeat_interleave(r), x.repeat_interleave(r), torch.bincount(x),
                F.one_hot(x), torchvision.ops.nms(b, s, 0.5), box_ops.batched_nms(b, s, l, 0.5))
    """
    got = [c for c, _, _ in found(src)]
    assert got.count("DYN102") == 4 and got.count("DYN103") == 4 and got.count("DYN104") == 1
    assert got.count("DYN105") == 2 and got.count("DYN106") == 2 and got.count("DYN107") == 1
    assert got.count("DYN108") == 1 and got.count("DYN109") == 2


def test_three_argument_where_and_numpy_are_quiet():
    src = """\
    import numpy as np
    import torch

    def f(x: torch.Tensor, a):
        return torch.where(x > 0, x, 0), np.where(a > 0), np.unique(a), np.nonzero(a)
    """
    assert found(src) == []


def test_position_of_multiline_method_call_is_the_method_line():
    src = """\
    import torch

    def f(x: torch.Tensor):
        return (x
                .gt(0)
                .nonzero())
    """
    assert found(src) == [("DYN102", 6, 14)]


def test_columns_are_characters_not_bytes():
    src = """\
    import torch

    def f(x: torch.Tensor):
        é = "ü"; return x[x > 0]
    """
    assert found(src) == [("DYN101", 4, 21)]


def test_and_or_chain_is_reported_per_operand():
    body = """\
    if y.any() and x.sum() > 0 or ids is None:
        pass
    return x
    """
    assert found(in_forward(body)) == [("DYN204", 7, 12), ("DYN204", 7, 24)]
