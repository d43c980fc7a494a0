"""Host copies: a tensor already copied to the host (`t.cpu()`, `t.numpy()`), a value read
on the host right after, an argument of a data-dependent op, a validating distribution."""
from __future__ import annotations

import ast

from ...analysis.bindings import binding_values
from ...analysis.hostmem import names_cpu
from ...analysis.tensor_api import HOST_FACTORIES, VALIDATED_DISTRIBUTIONS
from .bindings import every_binding
from .calls import kw_absent
from .context import DYNAMIC_CALLS, torch_name
from .registry import predicate


_HOST_COPY_CHAIN = frozenset({"detach", "float", "double", "half", "long", "int", "bool", "clone",
                              "contiguous", "flatten", "view", "reshape", "squeeze", "unsqueeze"})


@predicate()
def cpu_device(ctx, node):
    """The literal device `"cpu"` (or `"cpu:0"`), or `torch.device("cpu")`."""
    return names_cpu(ctx.analyzer, node)


def _is_host_copy(ctx, node) -> bool:
    while type(node) is ast.Call and type(node.func) is ast.Attribute:
        if torch_name(ctx, node.func) in HOST_FACTORIES:
            return not any(k.arg == "device" for k in node.keywords)
        attr = node.func.attr
        if attr in ("cpu", "numpy") or (attr == "to" and any(
                cpu_device(ctx, a) for a in [*node.args[:1], *(k.value for k in node.keywords if k.arg == "device")])):
            return True
        if attr not in _HOST_COPY_CHAIN:
            return False
        node = node.func.value
    return False


@predicate()
def host_copy(ctx, node):
    """A tensor already copied to the host: `t.cpu()`, `t.to("cpu")`, `t.numpy()`, followed by casts or views (`t.cpu().float()`), or a local name every assignment of which is one. (Flagging the first copy is enough.)"""
    return _is_host_copy(ctx, node) or every_binding(ctx, node, _is_host_copy, "host_copy")


@predicate()
def read_on_host_next(ctx, node):
    """The matched value goes, through casts and copies only, straight into `.item()` or `.tolist()` (`t.cpu().item()`, `t.detach().cpu().bool().tolist()`): that read is reported by its own rule. Not through `.numpy()` (`t.cpu().detach().numpy().item()`): that read is a numpy array's, which no tensor rule reports, so the copy is the finding."""
    cur = node
    numpy = _numpy_call(node)
    for anc in reversed(ctx.analyzer.stack):
        if anc is node:
            continue
        f = getattr(anc, "func", None)
        if type(anc) is not ast.Call or type(f) is not ast.Attribute or f.value is not cur:
            return False
        if f.attr in ("item", "tolist"):
            return not numpy
        if f.attr not in _HOST_COPY_CHAIN and f.attr not in ("cpu", "numpy", "to"):
            return False
        numpy = numpy or _numpy_call(anc)
        cur = anc
    return False


def _numpy_call(node) -> bool:
    return type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "numpy"


@predicate()
def argument_of_dynamic_op(ctx, node):
    """The matched value is passed straight to a data-dependent op (`torch.unique(x.cpu())`, `nonzero`, `bincount`, NMS...): the op's own rule reports that line, and moving such an op to the CPU is the usual deliberate fallback."""
    for anc in reversed(ctx.analyzer.stack):
        if anc is node:
            continue
        if type(anc) is not ast.Call or not any(a is node for a in anc.args):
            return False
        f = anc.func
        last = f.attr if type(f) is ast.Attribute else f.id if type(f) is ast.Name else None
        return last in DYNAMIC_CALLS
    return False


@predicate(text=("distributions",))       # the qualified name has it: `torch.distributions.`
def validated_distribution(ctx, node):
    """A `torch.distributions` class (or a call of one) whose constructor validates its arguments by default (`Normal`, `Categorical`, ...; not `Independent` or `TransformedDistribution`, which have none), in a module that does not turn validation off with `Distribution.set_default_validate_args(False)`."""
    if type(node) is ast.Call:
        node = node.func
    q = ctx.analyzer.qualname(node) if type(node) in (ast.Name, ast.Attribute) else None
    if not q or not q.startswith("torch.distributions.") or q.rsplit(".", 1)[-1] not in VALIDATED_DISTRIBUTIONS:
        return False
    cache = ctx.analyzer.__dict__.setdefault("_binding_cache", {})
    if "validation_off" not in cache:
        cache["validation_off"] = any("set_default_validate_args(False)" in line for line in ctx.analyzer.lines)
    return not cache["validation_off"]


def _builds_validating_distribution(ctx, value) -> bool:
    """A call of a validating `torch.distributions` class that leaves validation on (no
    `validate_args`, nor `**kwargs` that could hold it); for `self.attr = name`, every binding
    of `name` in the method that stores it (`std_norm = Normal(...); self.std_norm = std_norm`)."""
    if type(value) is ast.Name:
        method = _storing_method(ctx, value)
        values = binding_values(method.node, value.id) if method is not None else None
        return bool(values) and all(_validating_call(ctx, v) for v in values)
    return _validating_call(ctx, value)


def _validating_call(ctx, value) -> bool:
    return type(value) is ast.Call and kw_absent(ctx, value, "validate_args") and \
        validated_distribution(ctx, value)


def _storing_method(ctx, name):
    """The method of the current class whose body holds `name` (a `self.attr = name` value)."""
    frame = ctx.frame
    while frame is not None and frame.cls is None:
        frame = frame.parent
    for infos in (frame.cls.methods.values() if frame is not None else ()):
        for info in infos:
            n = info.node
            if n.lineno <= name.lineno <= n.end_lineno:
                return info
    return None


@predicate(text=("distributions",))
def validating_distribution(ctx, node):
    """A validating `torch.distributions` object: built right there (`Normal(0, 1).cdf(z)`), or a local name or `self.attr` every binding of which builds one (`normal = Normal(mu, sigma)`, `self.std_norm = Normal(0, 1)` in `__init__`): its `log_prob`/`cdf` check the value (not `icdf`) against the support (`_validate_sample`) and read the answer on the host on every call, even when the constructor's own check ran on Python numbers."""
    return _validating_call(ctx, node) or \
        every_binding(ctx, node, _builds_validating_distribution, "validating_distribution")
