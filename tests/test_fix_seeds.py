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
    assert "x = x.where(x>0, 0) # This is dynamic" in text
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
    # Display-only: it is equal when A, B and C are 1-D of one length, which the guide's
    # example is, and nothing in the code proves it.
    before, after, text = fixed_copy(tmp_path, dynlint, FILTERED_PRODUCT, "--unsafe-fixes",
                                     "--apply-display-only")
    assert "res_dyn = torch.where(C != -1, A * B, 0).sum()" in text
    assert "indices" not in text and "gather" not in text
    A = torch.tensor([1, 2, 3, 4, 5])
    B = torch.tensor([6, 7, 8, 9, 10])
    for C in (torch.tensor([1, -1, 1, 1, -1]), torch.full((5,), -1), torch.ones(5, dtype=torch.long)):
        out_a, _, ops_a = run(before.FilteredProduct(), A, B, C)
        out_b, _, ops_b = run(after.FilteredProduct(), A, B, C)
        assert ops_a and not ops_b, (ops_a, ops_b)
        assert out_b.dtype == out_a.dtype and torch.equal(out_b, out_a)


def test_filtered_product_is_neither_safe_nor_unsafe(tmp_path, dynlint):
    """A caller could get another value (a shorter or 2-D condition), not just another
    shape: the rewrite is shown, never applied by --fix or --unsafe-fixes."""
    path = tmp_path / "m.py"
    path.write_text(FILTERED_PRODUCT)
    dynlint("check", "--fix", "--unsafe-fixes", "--no-cache", path, cwd=tmp_path)
    assert path.read_text() == FILTERED_PRODUCT
    r = dynlint("check", "--show-fix-suggestions", "--no-cache", path, cwd=tmp_path)
    assert "not applied because it is equal only when" in r.stdout, r.stdout


# The guides' examples as plain, unannotated functions, the form they have in the code bases
# they come from: the code itself proves the operands are tensors.
PLAIN_FUNCTIONS = """import torch


def label_smoothed_nll_loss(lprobs, target, epsilon, ignore_index=None):
    if target.dim() == lprobs.dim() - 1:
        target = target.unsqueeze(-1)
    nll_loss = -lprobs.gather(dim=-1, index=target)
    smooth_loss = -lprobs.sum(dim=-1, keepdim=True)
    if ignore_index is not None:
        non_pad_mask = target.ne(ignore_index)
        nll_loss = nll_loss[non_pad_mask]
        smooth_loss = smooth_loss[non_pad_mask]
    else:
        nll_loss = nll_loss.squeeze(-1)
        smooth_loss = smooth_loss.squeeze(-1)
    nll_loss = nll_loss.sum()
    smooth_loss = smooth_loss.sum()
    eps_i = epsilon / lprobs.size(-1)
    loss = (1.0 - epsilon) * nll_loss + eps_i * smooth_loss
    return loss, nll_loss


def masked_mean(values, mask):
    return values[mask.bool()].mean()


def masked_total(x, m):
    return torch.masked_select(x, m).sum()
"""
PLAIN_FILTERED_PRODUCT = """import torch


def filtered_product(a, b, c):
    i = torch.where(c != -1)
    a_f = torch.gather(a, 0, i[0])
    b_f = torch.gather(b, 0, i[0])
    r = torch.sum(a_f * b_f)
    return r
"""


def _masks(shape, seed):
    """Random, all-false, all-true masks, and an empty one."""
    g = torch.Generator().manual_seed(seed)
    yield torch.rand(shape, generator=g) > 0.5
    yield torch.zeros(shape, dtype=torch.bool)
    yield torch.ones(shape, dtype=torch.bool)


def _same(fn_a, fn_b, *args, grads=True):
    out_a, grads_a, ops_a = run(fn_a, *args)
    out_b, grads_b, ops_b = run(fn_b, *args)
    assert ops_a and not ops_b, (ops_a, ops_b)
    torch.testing.assert_close(out_b, out_a, equal_nan=True)
    for ga, gb in zip(grads_a, grads_b) if grads else ():
        torch.testing.assert_close(gb, ga, equal_nan=True)


def test_plain_functions(tmp_path, dynlint):
    before, after, text = fixed_copy(tmp_path, dynlint, PLAIN_FUNCTIONS)
    assert "nll_loss = nll_loss.where(non_pad_mask, 0)" in text
    assert "smooth_loss = smooth_loss.where(non_pad_mask, 0)" in text
    assert "return x.where(m, 0).sum()" in text
    for n, seed in ((0, 0), (1, 1), (9, 2)):
        lprobs = torch.log_softmax(torch.randn(n, 5, generator=torch.Generator().manual_seed(seed)), -1)
        for keep in _masks((n,), seed):
            target = torch.where(keep, torch.arange(n) % 4 + 1, 0)      # 0 pads
            poisoned = lprobs.clone()
            poisoned[~keep] = float("nan")                            # nan in masked slots
            for t in (target, target[:, None]):
                for lp in (lprobs, poisoned):
                    for out in (0, 1):          # the loss, then the nll term
                        def pick(mod, t=t, out=out):
                            return lambda x: mod.label_smoothed_nll_loss(x, t, 0.1, 0)[out]
                        _same(pick(before), pick(after), lp)
    for shape, mshape in (((6, 3), (6,)), ((2, 3, 4), (2, 3)), ((0, 4), (0,)), ((4,), (4,))):
        x = torch.randn(shape, generator=torch.Generator().manual_seed(len(shape)))
        for m in _masks(mshape, len(shape)):
            xs = x.clone()
            xs[~m] = float("inf")                                     # inf in masked slots
            _same(before.masked_mean, after.masked_mean, xs, m.float())
            full = m.reshape(m.shape + (1,) * (x.dim() - m.dim())).expand_as(x)
            _same(before.masked_total, after.masked_total, xs, full)


def test_plain_filtered_product(tmp_path, dynlint):
    """Display-only (see above); applied on request it is static and equal on the guide's
    1-D inputs of one length."""
    before, after, text = fixed_copy(tmp_path, dynlint, PLAIN_FILTERED_PRODUCT, "--unsafe-fixes",
                                     "--apply-display-only")
    assert "r = torch.where(c != -1, a * b, 0).sum()" in text, text
    a, b = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0]), torch.tensor([6.0, 7.0, float("nan"), 9.0, 10.0])
    for c in (torch.tensor([1, -1, -1, 1, -1]), torch.full((5,), -1), torch.ones(5, dtype=torch.long)):
        # With nan in a masked slot the values agree; the gradient of `a * b` there is
        # 0 * nan in the rewrite (torch.where's known gradient caveat), so only values count.
        _same(before.filtered_product, after.filtered_product, a, torch.nan_to_num(b), c)
        if c[2] == -1:
            _same(before.filtered_product, after.filtered_product, a, b, c, grads=False)


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
