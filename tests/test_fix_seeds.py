"""The Gaudi guide's examples after `dynlint check --fix`: the same outputs (and gradients),
and no data-dependent op runs any more.

"Data-dependent" is torch's own word for it: an op tagged `dynamic_output_shape` or
`data_dependent_output`, recorded under a TorchDispatchMode (`aten.index` counts only with a
boolean index: integer indexing has a static shape).
"""
import importlib.util
import shutil

import pytest

torch = pytest.importorskip("torch")
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

INNER_NET = """\
import torch


class InnerNet(torch.nn.Module):
    def __init__(self):
        super(InnerNet, self).__init__()
        self.conv = torch.nn.Conv2d(1, 8, 3, 3)

    def forward(self, x):
        x = torch.flatten(self.conv(x), 1)
        x = x[x>0] # This is dynamic
        return x.sum()
"""
PADDED_LOSS = """\
import torch


class SmoothedLoss(torch.nn.Module):
    def __init__(self, padding_idx):
        super().__init__()
        self.padding_idx = padding_idx

    def forward(self, smooth_loss, targets):
        non_pad_mask = targets.ne(self.padding_idx).view(-1)
        smooth_loss = smooth_loss[non_pad_mask]
        smooth_loss = smooth_loss.sum()
        return smooth_loss
"""
FILTERED_PRODUCT = """\
import torch


class FilteredProduct(torch.nn.Module):
    def forward(self, A, B, C):
        indices = torch.where(C != -1)
        A_filtered = torch.gather(A, 0, indices[0])
        B_filtered = torch.gather(B, 0, indices[0])
        res_dyn = torch.sum(A_filtered * B_filtered)
        return res_dyn
"""


class DataDependentOps(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if _data_dependent(func, args):
            self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


def _data_dependent(func, args) -> bool:
    if func.overloadpacket is torch.ops.aten.index:
        indices = args[1] if len(args) > 1 else ()
        return any(isinstance(i, torch.Tensor) and i.dtype in (torch.bool, torch.uint8)
                   for i in indices)
    return torch.Tag.dynamic_output_shape in func.tags or \
        torch.Tag.data_dependent_output in func.tags


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fixed_copy(tmp_path, dynlint, source, *flags, remaining=0):
    """(original module, fixed module, fixed text) after `dynlint check --fix` on a copy."""
    original = tmp_path / "original.py"
    original.write_text(source)
    target = tmp_path / "fixed.py"
    shutil.copy(original, target)
    r = dynlint("check", "--fix", "--no-cache", *flags, target, cwd=tmp_path)
    assert r.returncode == (1 if remaining else 0), r.stdout + r.stderr
    assert f"fixed, {remaining} remaining" in r.stdout, r.stdout
    return load(original, f"orig_{tmp_path.name}"), load(target, f"fixed_{tmp_path.name}"), \
        target.read_text()


def run(fn, *args):
    """(result, gradients of the floating inputs, data-dependent ops seen)."""
    args = [a.clone().requires_grad_(a.is_floating_point()) for a in args]
    with DataDependentOps() as mode:
        out = fn(*args)
        if out.requires_grad:
            out.backward()
    return out.detach(), [a.grad for a in args if a.is_floating_point()], mode.seen


def test_inner_net(tmp_path, dynlint):
    before, after, text = fixed_copy(tmp_path, dynlint, INNER_NET)
    assert "x = torch.where(x>0, x, torch.zeros_like(x)) # This is dynamic" in text
    for bs in (20, 30):
        torch.manual_seed(bs)
        net_a = before.InnerNet()
        net_b = after.InnerNet()
        net_b.load_state_dict(net_a.state_dict())
        inp = torch.rand(bs, 1, 50, 50)
        out_a, _, ops_a = run(net_a, inp)
        grad_a = net_a.conv.weight.grad.clone()
        out_b, _, ops_b = run(net_b, inp)
        assert ops_a and not ops_b, (ops_a, ops_b)
        torch.testing.assert_close(out_b, out_a)
        torch.testing.assert_close(net_b.conv.weight.grad, grad_a)


def test_padded_loss(tmp_path, dynlint):
    before, after, text = fixed_copy(tmp_path, dynlint, PADDED_LOSS)
    assert "smooth_loss = smooth_loss[non_pad_mask]" not in text
    torch.manual_seed(0)
    # fairseq's label-smoothed loss keeps a trailing dimension: (N, 1) against an (N,) mask.
    for n in (1, 7, 12):
        smooth = torch.rand(n, 1)
        targets = torch.randint(0, 4, (n,))
        targets[0] = 1                                     # at least one padding token
        res = []
        for module in (before, after):
            out, grads, ops = run(module.SmoothedLoss(padding_idx=1), smooth, targets)
            res.append((out, grads, ops))
        (out_a, grads_a, ops_a), (out_b, grads_b, ops_b) = res
        assert ops_a and not ops_b, (ops_a, ops_b)
        torch.testing.assert_close(out_b, out_a)
        torch.testing.assert_close(grads_b, grads_a)


def test_filtered_product(tmp_path, dynlint):
    # Unsafe: it assumes A, B and C are 1-D of one length, which the guide's example is.
    before, after, text = fixed_copy(tmp_path, dynlint, FILTERED_PRODUCT, "--unsafe-fixes")
    assert "res_dyn = torch.where(C != -1, A * B, torch.zeros_like(A * B)).sum()" in text
    assert "indices" not in text and "gather" not in text
    A = torch.tensor([1, 2, 3, 4, 5])
    B = torch.tensor([6, 7, 8, 9, 10])
    for C in (torch.tensor([1, -1, 1, 1, -1]), torch.full((5,), -1), torch.ones(5, dtype=torch.long)):
        out_a, _, ops_a = run(before.FilteredProduct(), A, B, C)
        out_b, _, ops_b = run(after.FilteredProduct(), A, B, C)
        assert ops_a and not ops_b, (ops_a, ops_b)
        assert out_b.dtype == out_a.dtype and torch.equal(out_b, out_a)


def test_filtered_product_is_not_a_safe_fix(tmp_path, dynlint):
    path = tmp_path / "m.py"
    path.write_text(FILTERED_PRODUCT)
    r = dynlint("check", "--fix", "--no-cache", path, cwd=tmp_path)
    assert path.read_text() == FILTERED_PRODUCT
    assert "1 unsafe fix available with `--fix --unsafe-fixes`" in r.stdout


def test_mark_step_split_keeps_the_module_working_without_gaudi(tmp_path, dynlint):
    """The display-only split, applied on request, imports and runs where there is no Gaudi
    software, and changes nothing there."""
    if importlib.util.find_spec("habana_frameworks") is not None:
        pytest.skip("Gaudi software is installed here")
    source = INNER_NET.replace("        return x.sum()", "        x = x * 2\n        return x.sum()")
    before, after, text = fixed_copy(tmp_path, dynlint, source, "--select", "DYN301",
                                     "--apply-display-only")
    assert text.count("mark_step()") == 2 + 1               # two calls and the fallback's name
    assert "from habana_frameworks.torch.core import mark_step" in text
    torch.manual_seed(0)
    net_a, net_b = before.InnerNet(), after.InnerNet()
    net_b.load_state_dict(net_a.state_dict())
    inp = torch.rand(4, 1, 50, 50)
    torch.testing.assert_close(net_b(inp), net_a(inp))


def test_cpu_fallback_for_unique(tmp_path, dynlint):
    source = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n" \
             "        return torch.unique(x)\n"
    path = tmp_path / "m.py"
    path.write_text(source)
    r = dynlint("check", "--fix", "--no-cache", path, cwd=tmp_path)
    assert path.read_text() == source and r.returncode == 1    # unsafe: not by default
    # Not reported afterwards: an op on `x.cpu()` runs on the host, outside the device graph.
    before, after, text = fixed_copy(tmp_path, dynlint, source, "--unsafe-fixes")
    assert "torch.unique(x.cpu()).to(x.device)" in text
    x = torch.tensor([3, 1, 3, 2])
    assert torch.equal(after.M()(x), before.M()(x))
