"""Functions that hand back their argument: `def to_device(x, device): ...; return x`.

Such a helper's own returns say nothing (its parameter is of unknown kind in its file), but at a
call site the value returned is the one passed, moved or converted: `labels = to_device(labels,
device=d)` keeps what `labels` was, so a mask indexed by it still selects. The summary is the
parameter's name and position (`=x@0`), with `~` instead of `=` when a rebinding may change the
dtype (`x = x.type(dt)`, `x = to_dtype(x, ...)`): the level of the argument is kept, not its
bool flag. It is exported only where the code's own summary says nothing (see `summaries`).
"""
from __future__ import annotations

import ast

from . import kinds as K
from .statements import own_nodes

# Tensor methods that keep the dtype when called without a dtype argument (`x.to(device)`).
_KEEPS_DTYPE = K.DTYPE_PRESERVING


def summary(node: ast.FunctionDef | ast.AsyncFunctionDef, bound: bool) -> str | None:
    """`=name@i` / `~name@i` (i: position at a call, after `self` for a method called bound;
    -1 keyword only) when every `return` gives back parameter `name`, rebound only from itself
    (`x = x.to(d)`, `x = f(x, ...)`); else None."""
    args = node.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    names = set(positional) | {a.arg for a in args.kwonlyargs}
    returned = None
    keeps = True
    moved = False           # a rebinding by a method of the value itself (`x = x.to(d)`)
    for sub in own_nodes(node):
        t = type(sub)
        if t is ast.Return:
            v = sub.value
            if v is None or type(v) is ast.Constant and v.value is None:
                continue
            if type(v) is not ast.Name or v.id not in names or returned not in (None, v.id):
                return None
            returned = v.id
        elif t in (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr):
            targets = sub.targets if t is ast.Assign else [sub.target]
            for target in targets:
                for n in ast.walk(target):
                    if type(n) is ast.Name and type(n.ctx) is ast.Store:
                        how = _rebinds_itself(n.id, sub)
                        if how is None:
                            names.discard(n.id)
                        else:
                            keeps = keeps and how[0]
                            moved = moved or how[1]
        elif t in (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Delete, ast.Global,
                   ast.Nonlocal, ast.Import, ast.ImportFrom, ast.ExceptHandler):
            for n in ast.walk(sub.target) if t in (ast.For, ast.AsyncFor) else ():
                if type(n) is ast.Name:
                    names.discard(n.id)
            if t in (ast.With, ast.AsyncWith):
                for item in sub.items:
                    if item.optional_vars is not None:
                        for n in ast.walk(item.optional_vars):
                            if type(n) is ast.Name:
                                names.discard(n.id)
            elif t in (ast.Global, ast.Nonlocal):
                for name in sub.names:
                    names.discard(name)
            elif t is ast.ExceptHandler and sub.name:
                names.discard(sub.name)
            elif t is ast.Delete:
                return None
    if returned is None or returned not in names or not moved:
        # (only a value the code moves or converts itself is taken for a tensor handed back:
        # a dict or a model passed through teaches callers nothing, and each summary told
        # walks its callers again)
        return None
    skip = 1 if bound and positional else 0
    pos = positional.index(returned) - skip if returned in positional else -1
    if pos < -1:
        return None                 # `self` itself
    return f"{'=' if keeps else '~'}{returned}@{pos}"


def argument(text: str, node: ast.Call):
    """The argument expression a call passes for the parameter summary `text` names, or None."""
    name, _, pos = text[1:].rpartition("@")
    try:
        i = int(pos)
    except ValueError:
        return None
    for k in node.keywords:
        if k.arg == name:
            return k.value
    if 0 <= i < len(node.args) and not any(type(a) is ast.Starred for a in node.args[:i + 1]):
        return node.args[i]
    return None


def argument_kind(text: str, node: ast.Call, kind) -> int | None:
    """The kind a call returns under summary `text`: its argument's (`kind(expr)`), without
    the bool flag where a rebinding may change the dtype; None when the call does not pass it."""
    arg = argument(text, node)
    if arg is None:
        return None
    k = kind(arg)
    if text[:1] != "=" or type(k) is not int:
        k = k & ~K.BOOL if type(k) is int else None
    return k


def _rebinds_itself(name: str, stmt) -> tuple | None:
    """For `name = value`: (keeps the dtype, by a method of the value) when `value` is
    `name.m(...)` (a chain of methods; the dtype kept when each keeps it) or another call
    passing `name` on first (`f(name, ...)`: the dtype may change); None otherwise (the name
    no longer holds the argument)."""
    value = getattr(stmt, "value", None)
    if type(stmt) is ast.AugAssign or value is None:
        return None
    if type(value) is not ast.Call:
        return None
    f = value.func
    keeps = True
    node = value
    while type(node) is ast.Call and type(node.func) is ast.Attribute:
        m = node.func.attr
        if m not in _KEEPS_DTYPE or any(k.arg == "dtype" for k in node.keywords) or \
                m == "to" and any(_torch_dtype(a) for a in node.args):
            keeps = False
        node = node.func.value
        if type(node) is ast.Name:
            if node.id == name:
                return keeps, True
            break
    if value.args and type(value.args[0]) is ast.Name and value.args[0].id == name and \
            type(f) in (ast.Name, ast.Attribute):
        return False, False
    return None


def _torch_dtype(node) -> bool:
    """`torch.float16`, `torch.bool` (any `torch.X` but `torch.device(...)`): `x.to(...)` of
    one changes the dtype; a name (`x.to(dv)`) is taken for a device."""
    return type(node) is ast.Attribute and type(node.value) is ast.Name and \
        node.value.id == "torch" and node.attr != "device"
