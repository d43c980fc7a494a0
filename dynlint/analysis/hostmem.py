"""Device provenance: which tensors live in host memory (the `CPU` kind flag).

A torch factory called without a `device` (`torch.arange(V)`, `torch.full((1, L), idx)`,
`torch.tensor([1, 2])`) builds its tensor on the CPU, and so does every op whose tensor inputs
are all such tensors (`v1 < v2`, `torch.stack((v1[m], v2[m]))`, `grid[0, k]`); so do the legacy
typed constructors (`torch.LongTensor(n, m)`), and `t.cpu()` / `t.to("cpu")` of any tensor is host
memory from then on (the copy is the device read, reported where it is made). Reading one
(`.item()`, `if t:`) waits for no device, and masking or `nonzero` on one is CPU work outside
any device graph. The flag is lost as soon as a value might be on a device: an operand of
unknown origin, `.to(x.device)` / `.cuda()`, `*_like`/`type_as` of a device tensor, a factory
given a `device=` other than the literal CPU, or code that changes the default device
(`with torch.device(d):`, `torch.set_default_device`). Module attributes never carry it:
a buffer moves with its module (see `attributes.py`).

Under `torch.compile` such reads are still graph breaks (Dynamo traces host tensors too);
the rules that drop them say so in their documentation.
"""
from __future__ import annotations

import ast

from . import kinds as K
from .kinds import CPU, NOT
from .tensor_api import HOST_FACTORIES, LEGACY_CONSTRUCTORS

# Factories whose data argument may itself be a tensor (then the result shares its device).
_FROM_DATA = frozenset({"tensor", "as_tensor", "asarray"}) | LEGACY_CONSTRUCTORS
# `*_like` factories and methods whose result is on the device of another tensor argument.
_LIKE = frozenset({"zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
                   "randn_like", "randint_like"})
# Methods that may move a tensor off the host.
_MOVES = frozenset({"cuda", "to", "type_as", "hpu", "xpu", "mps", "copy_"})


def joint(*ks: int) -> int:
    """CPU when some operand is a host tensor and every other one is a host tensor or no
    tensor at all (a Python number, a shape; not a list holding tensors): `v1 < v2`,
    `grid + 1`."""
    if not any(k & CPU for k in ks):
        return 0
    return CPU if all(k & CPU or (K.level(k) == NOT and not k & K.HOLDS) for k in ks) else 0


def _args_kinds(a, node: ast.Call):
    """Kinds of a call's arguments, the items of list/tuple arguments one by one."""
    out = []
    for arg in [*node.args, *(kw.value for kw in node.keywords if kw.arg not in ("out", "dtype"))]:
        if type(arg) in (ast.List, ast.Tuple):
            # `*rest` may unpack device tensors whatever the list itself is: no host join.
            out.extend(K.UNKNOWN if type(e) is ast.Starred else a.kind(e) for e in arg.elts)
        else:
            out.append(K.UNKNOWN if type(arg) is ast.Starred else a.kind(arg))
    return out


_PLAIN = (ast.Name, ast.Attribute, ast.Constant)


def _builds_inline(node: ast.Call) -> bool:
    """Whether an argument is an expression that may build a host tensor as it is evaluated
    (`torch.mean(torch.tensor([...]))`): the operands' kinds are read after the call's own."""
    for arg in (*node.args, *(kw.value for kw in node.keywords)):
        for e in (arg.elts if type(arg) in (ast.List, ast.Tuple) else (arg,)):
            if not isinstance(e, _PLAIN):
                return True
    return False


def _device_arg(a, node: ast.Call):
    """The `device=` argument: None if absent; True when it names the CPU; False otherwise."""
    for kw in node.keywords:
        if kw.arg == "device":
            return names_cpu(a, kw.value)
    return None


def names_cpu(a, dev) -> bool:
    """The literal device `"cpu"` (or `"cpu:0"`), or `torch.device("cpu")`."""
    if type(dev) is ast.Call and a.qualname(dev.func) == "torch.device" and dev.args:
        dev = dev.args[0]
    return type(dev) is ast.Constant and type(dev.value) is str and dev.value.split(":")[0] == "cpu"


def default_device_changed(a) -> bool:
    """The module sets a default device (`torch.set_default_device`), or the code being walked
    sits in `with torch.device(...):`: factories without `device=` may build on a device."""
    found = a.__dict__.get("_default_device_text")
    if found is None or found[0] is not a.lines:
        found = a._default_device_text = (a.lines, any("set_default_device" in ln for ln in a.lines))
    if found[1]:
        return True
    for anc in a.stack:
        if type(anc) in (ast.With, ast.AsyncWith):
            for item in anc.items:
                ce = item.context_expr
                if type(ce) is ast.Call and a.qualname(ce.func) == "torch.device":
                    return True
    return False


def torch_call(a, name: str, node: ast.Call) -> int:
    """CPU for a call of `torch.<name>` (already known to give a tensor) that builds its result
    in host memory."""
    device = _device_arg(a, node)
    if device is False:
        return 0
    if name not in HOST_FACTORIES and not (name in _LIKE and device) and \
            a.__dict__.get("_host_built") is not a.lines and not _builds_inline(node):
        return 0        # no host tensor built in this module yet: no operand can be one
    if name in HOST_FACTORIES:
        if device is None and default_device_changed(a):
            return 0
        if name in _FROM_DATA:
            data = node.args[0] if node.args else None
            if data is not None:
                k = a.kind(data)
                if not (k & CPU or K.level(k) == NOT) or k & K.HOLDS:
                    return 0
        a._host_built = a.lines
        return CPU
    if name in _LIKE:
        if device:
            a._host_built = a.lines
            return CPU
        return CPU if node.args and a.kind(node.args[0]) & CPU else 0
    return joint(*_args_kinds(a, node))


def asked_for_cpu(a, k: int, node: ast.Call) -> int:
    """CPU for a tensor a followed function of the project returns when the call names the CPU
    as its `device=` (`sample(population, k, device="cpu")`): a function that takes a device
    builds its result there, as torch's factories do."""
    if K.level(k) < K.PROBABLE or k & CPU or not node.keywords:
        return 0
    if _device_arg(a, node) is not True or default_device_changed(a):
        return 0
    a._host_built = a.lines
    return CPU


def copied_to_host(a, name: str, node: ast.Call) -> int:
    """CPU for `t.cpu()` and `t.to("cpu")` of any tensor: the copy is the one read of the device
    (its own rule reports it); what it returns is host memory, read later without a sync."""
    if name == "cpu" or name == "to" and any(names_cpu(a, arg) for arg in
                                             (*node.args, *(kw.value for kw in node.keywords if kw.arg == "device"))):
        a._host_built = a.lines
        return CPU
    return 0


_COPY_CHAIN = frozenset({"cpu", "to", "detach", "clone", "contiguous", "float", "double", "half", "long",
                         "int", "bool"})


def copy_source(node: ast.AST) -> ast.AST:
    """The tensor a chain of `.detach().cpu()`-like calls starts from: `d.detach().cpu().item()`
    reads `d`, so whether it reads a device is a question about `d`."""
    while type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr in _COPY_CHAIN:
        node = node.func.value
    return node


def method(a, name: str, base: int, node: ast.Call) -> int:
    """CPU for `t.<name>(...)` (a tensor result) on a host tensor `t` that stays on the host."""
    if not base & CPU:
        return 0
    if name in _MOVES:
        if name != "to":
            return 0
        # `.to(torch.float)` keeps the device; `.to("cpu")` is the host; anything else may move.
        args = [*node.args, *(kw.value for kw in node.keywords if kw.arg in ("device", "other"))]
        for arg in args:
            if names_cpu(a, arg):
                continue
            q = a.qualname(arg) if type(arg) in (ast.Name, ast.Attribute) else None
            if q is None or not q.startswith("torch.") or q.startswith("torch.device"):
                return 0
        return CPU
    return joint(base, *_args_kinds(a, node))
