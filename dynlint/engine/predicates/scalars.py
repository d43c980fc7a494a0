"""Predicates about the *value* an expression has, for fix templates that are only equal
when a value is a plain number or a 0-d tensor (a masked write `x[m] = v`, an `arange`
started at a tensor). Kept apart from `values.py` because they reason about the value itself,
not about whether it is a tensor."""
from __future__ import annotations

import ast

from ...analysis.kinds import BOOL, PROBABLE, level
from .registry import predicate

# Calls and attributes that give a Python number whatever their (number) arguments.
_NUMBER_CALLS = frozenset({"float", "int", "abs", "round"})
_NUMBER_CONSTANTS = frozenset({"math.inf", "math.pi", "math.e", "math.nan", "math.tau",
                               "numpy.inf", "numpy.nan", "numpy.pi"})
_INFO_FIELDS = frozenset({"min", "max", "eps", "tiny", "smallest_normal"})
# Tensor methods that reduce every dimension when called with no argument: a 0-d tensor.
_FULL_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "amax", "amin", "prod", "norm",
                              "nansum", "nanmean", "std", "var",
                              "count_nonzero", "any", "all", "median", "nanmedian", "argmax",
                              "argmin"})


def _qualname(ctx, node) -> str | None:
    if type(node) not in (ast.Name, ast.Attribute):
        return None
    return ctx.analyzer.qualname(node)


@predicate()
def number(ctx, node):
    """A Python number, not a tensor: a numeric literal (possibly negated), `float("-inf")`, `math.inf`, `torch.finfo(x.dtype).min`, `torch.iinfo(...).max`, `t.item()`, or arithmetic of those. A masked write of a number is a `masked_fill_`."""
    t = type(node)
    if t is ast.Constant:
        return isinstance(node.value, (int, float)) and not isinstance(node.value, complex)
    if t is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        return number(ctx, node.operand)
    if t is ast.BinOp and type(node.op) is not ast.MatMult:
        return number(ctx, node.left) and number(ctx, node.right)
    if t is ast.Attribute:
        if node.attr in _INFO_FIELDS and type(node.value) is ast.Call and \
                _qualname(ctx, node.value.func) in ("torch.finfo", "torch.iinfo"):
            return True
        return _qualname(ctx, node) in _NUMBER_CONSTANTS
    if t is ast.Call and not node.keywords:
        f = node.func
        if type(f) is ast.Name and f.id in _NUMBER_CALLS and len(node.args) == 1 and \
                ctx.analyzer.qualname(f) in (None, f.id):
            arg = node.args[0]
            return (type(arg) is ast.Constant and isinstance(arg.value, str)) or number(ctx, arg)
        return type(f) is ast.Attribute and f.attr == "item" and not node.args
    if t is ast.Name:
        return _qualname(ctx, node) in _NUMBER_CONSTANTS
    return False


@predicate()
def zero_dim(ctx, node):
    """A 0-d tensor: a full reduction with no `dim` (`t.sum()`, `t.max()`, `torch.amax(t)`) or `torch.tensor(<number>)`. It broadcasts against any shape the same way a number does."""
    if type(node) is not ast.Call or node.keywords or any(
            type(a) is ast.Starred for a in node.args):
        return False
    f = node.func
    q = _qualname(ctx, f)
    if q == "torch.tensor":
        return len(node.args) == 1 and number(ctx, node.args[0])
    if q and q.startswith("torch.") and q[6:] in _FULL_REDUCTIONS:
        return len(node.args) == 1 and level(ctx.kind(node.args[0])) >= PROBABLE
    return type(f) is ast.Attribute and f.attr in _FULL_REDUCTIONS and not node.args and \
        level(ctx.kind(f.value)) >= PROBABLE



# Reductions whose result has an integer dtype whatever the input's, or an integer dtype
# when the input is a bool mask (`mask.sum()` is int64).
_INTEGER_RESULTS = frozenset({"argmax", "argmin", "count_nonzero"})
_INTEGER_CASTS = frozenset({"long", "int", "short"})


@predicate()
def integer_scalar(ctx, node):
    """A tensor of one element with an integer dtype, by construction: `mask.sum()` of a bool mask, `t.count_nonzero()`, `t.argmax()`, `torch.tensor(3)`, `.long()` of such a value, or a local name assigned once from one of those. `torch.arange(s, s + n)` and `torch.arange(n) + s` then agree in dtype (int64) and values."""
    node = _single_assignment(ctx, node) if type(node) is ast.Name else node
    if node is None or not zero_dim(ctx, node) and not _integer_cast(ctx, node):
        return False
    if _integer_cast(ctx, node):
        return integer_scalar(ctx, node.func.value)
    f = node.func
    q = _qualname(ctx, f)
    if q == "torch.tensor":
        arg = node.args[0]
        return type(arg) is ast.Constant and type(arg.value) is int
    name = q[6:] if q and q.startswith("torch.") else f.attr if type(f) is ast.Attribute else None
    base = node.args[0] if q and q.startswith("torch.") else getattr(f, "value", None)
    if name in _INTEGER_RESULTS:
        return True
    return name == "sum" and base is not None and bool(ctx.kind(base) & BOOL)


def _integer_cast(ctx, node) -> bool:
    return type(node) is ast.Call and not node.args and not node.keywords and \
        type(node.func) is ast.Attribute and node.func.attr in _INTEGER_CASTS


def _single_assignment(ctx, name: ast.Name):
    """The value of the only binding of a local `name` in the function, or None."""
    scope = ctx.frame.node
    if scope is None:
        return None
    found = []
    for n in ast.walk(scope):
        if type(n) is ast.arg and n.arg == name.id or \
                type(n) in (ast.Global, ast.Nonlocal) and name.id in n.names:
            return None
        if type(n) is ast.Name and n.id == name.id and type(n.ctx) is not ast.Load:
            found.append(n)
    if len(found) != 1:
        return None
    for n in ast.walk(scope):               # the one binding must be a plain `name = value`
        if type(n) is ast.Assign and len(n.targets) == 1 and n.targets[0] is found[0]:
            return n.value
    return None


@predicate()
def int64_dtype(ctx, node):
    """The dtype `torch.long` / `torch.int64` (through imports)."""
    return _qualname(ctx, node) in ("torch.long", "torch.int64")


@predicate()
def on_host(ctx, node):
    """A tensor moved to the CPU right there: `t.cpu()`, `t.to("cpu")`, `t.to(device="cpu")`, `t.to(torch.device("cpu"))`. An op on it runs on the host, outside any device graph: the explicit CPU fallback."""
    if type(node) is not ast.Call or type(node.func) is not ast.Attribute:
        return False
    f = node.func
    if f.attr == "cpu":
        return not node.args
    if f.attr != "to":
        return False
    dev = node.args[0] if node.args else next(
        (k.value for k in node.keywords if k.arg == "device"), None)
    if type(dev) is ast.Call and _qualname(ctx, dev.func) == "torch.device" and dev.args:
        dev = dev.args[0]
    return type(dev) is ast.Constant and dev.value == "cpu"


@predicate()
def holds_flagged(ctx, node):
    """(Fix conditions only.) The matched code holds the node whose finding the fix is built for. A statement metavariable that must not carry the fix (`$S` kept as it is) says `not holds_flagged`."""
    flagged = getattr(ctx.analyzer, "fix_flagged", None)
    return flagged is not None and any(n is flagged for n in ast.walk(node))
