"""What a call of a function of the file proves about its arguments once it has returned.

A checker such as `_check_timelike(name, t)` that starts with `assert isinstance(t,
torch.Tensor)` (or `if not torch.is_tensor(t): raise TypeError(...)`) returns only when its
argument is a tensor: after the statement `_check_timelike('t', t, True)` the caller's `t` is
one, as certain as the assert. Only the checks the callee runs unconditionally count: those
among its first statements, before any statement that could return or branch around them.
"""
from __future__ import annotations

import ast

from . import narrowing
from .kinds import TENSOR

_STOPS = (ast.Return, ast.Yield, ast.YieldFrom)


def proved_params(analyzer, info) -> dict:
    """{parameter name: kind} the function proves before it can return; cached for the walk
    of the module (with its call summaries)."""
    cache = analyzer.calls.proved
    key = id(info.node)
    if key not in cache:
        cache[key] = _scan(analyzer, info.node)
    return cache[key]


def _scan(analyzer, fn) -> dict:
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    out: dict = {}
    for stmt in fn.body:
        t = type(stmt)
        if t is ast.Assert:
            facts = narrowing.facts(analyzer, stmt.test, True)
        elif t is ast.If and not stmt.orelse and len(stmt.body) == 1 and \
                type(stmt.body[0]) is ast.Raise:
            facts = narrowing.facts(analyzer, stmt.test, False)
        elif t is ast.Expr and type(stmt.value) is ast.Constant:
            continue                                    # the docstring
        else:
            break
        for name, kind in facts.items():
            if kind == TENSOR and name in params:
                out[name] = kind
    return out


def arguments_proved(analyzer, call: ast.Call, info) -> dict:
    """{caller's name: kind} for the plain-name arguments `call` passes to proved parameters."""
    proved = proved_params(analyzer, info)
    if not proved:
        return {}
    fn = info.node
    positional = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if info.cls is not None and positional and type(call.func) is ast.Attribute:
        positional = positional[1:]                     # `self.check(t)`: `self` is bound
    out = {}
    for name, arg in zip(positional, call.args):
        if type(arg) is ast.Starred:
            break
        if name in proved and type(arg) is ast.Name:
            out[arg.id] = proved[name]
    for kw in call.keywords:
        if kw.arg in proved and type(kw.value) is ast.Name:
            out[kw.value.id] = proved[kw.arg]
    return out
