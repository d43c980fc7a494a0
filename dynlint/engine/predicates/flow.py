"""Where a value goes after the statement that makes it: facts read from the later
statements of the function.

A data-dependent op on a tensor in host memory (`torch.nonzero(torch.rand(n) < p)`) is CPU
work outside the device graph, which shape rules leave alone; but when what it returns is
then moved to a device (`randint_like(idx, ..., device=x.device)`, `idx.to(device)`, an index
of a device tensor), the data-dependent size reaches the device graph all the same.
"""
from __future__ import annotations

import ast

from ...analysis import kinds as K
from .context import function_of
from .registry import predicate

# Calls that return their receiver's values in another form: `torch.nonzero(m).squeeze(-1)`
# binds what `nonzero` returns.
_SAME_VALUES = frozenset({"squeeze", "unsqueeze", "view", "reshape", "flatten", "long", "int",
                          "t", "contiguous", "ravel"})


@predicate()
def result_to_device(ctx, node):
    """What the matched call returns is bound to a name (through reshapes: `idx =
    torch.nonzero(m).squeeze(-1)`) that a later statement of the function moves to a device:
    `name.to(...)` (not to the CPU), `name.cuda()`, a call naming it first with a `device=`
    (`torch.randint_like(name, 0, n, device=x.device)`), or it indexes a tensor not in host
    memory (`x[name]`, `x[name] = v`); or the matched code is itself moved, in the same
    expression (`rnd[~mask].to(edge_index.device)`)."""
    if _moved_inline(ctx, node):
        return True
    name, after = _bound_name(ctx, node)
    if name is None:
        return False
    frame = function_of(ctx)
    if frame is None:
        return False
    for n in ast.walk(frame.node):
        if getattr(n, "lineno", 0) > after and _moves(ctx, n, name):
            return True
    return False


def _moved_inline(ctx, node) -> bool:
    """`node` (through reshapes) is the receiver of `.to(...)` to something other than the CPU,
    or of `.cuda()`."""
    child = node
    for anc in reversed(ctx.analyzer.stack):
        if anc is node or type(anc) is ast.Attribute:
            continue            # (attributes are not on the stack, but be safe)
        if type(anc) is ast.Call and type(anc.func) is ast.Attribute and anc.func.value is child:
            if anc.func.attr in _SAME_VALUES:
                child = anc
                continue
            return anc.func.attr == "cuda" or anc.func.attr == "to" and _to_device(ctx, anc)
        return False
    return False


def _to_device(ctx, call: ast.Call) -> bool:
    """`.to(d)` whose target may be a device other than the CPU (not a dtype `torch.float`)."""
    args = [*call.args[:1], *(k.value for k in call.keywords if k.arg == "device")]
    for arg in args:
        if type(arg) is ast.Constant:
            if arg.value != "cpu":
                return True
            continue
        q = ctx.analyzer.qualname(arg) if type(arg) in (ast.Name, ast.Attribute) else None
        if q is None or not q.startswith("torch.") or q.startswith("torch.device"):
            return True
    return False


def _bound_name(ctx, node):
    """(name, last line of the assignment) when `node` is the value bound to a plain name,
    or the receiver of a reshape chain that is; (None, 0) otherwise."""
    child = node
    for anc in reversed(ctx.analyzer.stack):     # (attributes are not on the stack)
        if anc is node:
            continue
        t = type(anc)
        if t is ast.Call and type(anc.func) is ast.Attribute and anc.func.value is child and \
                anc.func.attr in _SAME_VALUES:
            child = anc
            continue
        if t is ast.Assign and anc.value is child and len(anc.targets) == 1 and \
                type(anc.targets[0]) is ast.Name:
            return anc.targets[0].id, anc.end_lineno
        return None, 0
    return None, 0


def _is(node, name: str) -> bool:
    return type(node) is ast.Name and node.id == name


def _moves(ctx, n, name: str) -> bool:
    t = type(n)
    if t is ast.Call:
        f = n.func
        if type(f) is ast.Attribute and _is(f.value, name):
            if f.attr == "cuda":
                return True
            if f.attr == "to" and (n.args or n.keywords):
                first = n.args[0] if n.args else n.keywords[0].value
                return not (type(first) is ast.Constant and first.value == "cpu")
        if n.args and _is(n.args[0], name) or type(f) is ast.Attribute and _is(f.value, name):
            return any(k.arg == "device" and not (type(k.value) is ast.Constant and
                                                  k.value.value in (None, "cpu"))
                       for k in n.keywords)
        return False
    if t is ast.Subscript:
        index = n.slice.elts if type(n.slice) is ast.Tuple else (n.slice,)
        if not any(_is(i, name) for i in index):
            return False
        k = ctx.kind(n.value)
        return K.level(k) >= K.PROBABLE and not k & (K.CPU | K.ARRAY)
    return False
