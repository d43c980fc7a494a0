"""Objects built through a registry: `solver = SOLVERS[method](func=func, y0=y0)`.

A module-level dict, list or tuple literal whose values are all plain names (`SOLVERS =
{"dopri5": Dopri5Solver, "euler": Euler}`) is a registry; subscripting it and calling the
result builds an instance of any of them, so a method call on the local name it is bound to
(`solver.integrate(t)`) may run that method of each: every one gets the call's site. The
name must be bound once in the function, by that call; anything else makes no claim.
"""
from __future__ import annotations

import ast

from .bindings import binding_values


def registries(analyzer) -> dict:
    """Module-level name -> the plain names its dict/list/tuple literal holds (all of them)."""
    calls = analyzer.calls
    if calls.registries is None:
        out = {}
        for stmt in analyzer.tree.body if analyzer.tree is not None else ():
            if type(stmt) is not ast.Assign or len(stmt.targets) != 1 or \
                    type(stmt.targets[0]) is not ast.Name:
                continue
            v = stmt.value
            items = v.values if type(v) is ast.Dict else v.elts if type(v) in (ast.List, ast.Tuple) \
                else None
            if items and all(type(i) is ast.Name for i in items):
                out[stmt.targets[0].id] = tuple(dict.fromkeys(i.id for i in items))
        calls.registries = out
    return calls.registries


def built_from_registry(analyzer, fn, name: str) -> tuple:
    """The names of the classes `name` may hold in function `fn`: those of the registry it is
    built from (`name = REG[key](...)`, its only binding in `fn`), else ()."""
    regs = registries(analyzer)
    if not regs or type(fn) not in (ast.FunctionDef, ast.AsyncFunctionDef):
        return ()                   # (a lambda binds no name)
    cache = analyzer.calls.instances.setdefault(id(fn), {})
    if name in cache:
        return cache[name]
    values = binding_values(fn, name)        # None: a parameter, loop target, unpacking...
    found = ()
    if values is not None and len(values) == 1:
        v = values[0]
        if type(v) is ast.Call and type(v.func) is ast.Subscript and \
                type(v.func.value) is ast.Name:
            found = regs.get(v.func.value.id, ())
    cache[name] = found
    return cache[name]
