"""Loops that drive a model: a decoding or denoising loop runs once per generated token or
per step, so what it calls runs inside the step as surely as what `forward` calls.

The evidence is read from the code, not from names: a `for`/`while` loop whose body calls
something the function *holds* (`self(...)`, `self.model(...)`, `self.scheduler.step(...)`,
a parameter called directly or through a submodule, `model.decoder.layer(...)`, whose first
attribute no tensor, container or string has, a local bound to one of those) and feeds what
that call returns, directly or through other assignments in the loop, into its next step:
into the next iteration or into another held call. A loop that calls `.backward()` or
`.zero_grad()` is a training loop, not a driver. A method of
the same class counts as held when its own body calls something held (SAM's mask generator
calls `self._process_batch`, which calls `self.predictor`). A loop that only collects
results (`for b in batches: outs.append(self.model(b))`) is no driver.
"""
from __future__ import annotations

import ast

from .statements import statements
from .tensor_api import TENSOR_NAMES

# Methods of tensors and of Python containers and strings: `x.view(...)`, `d.get(k)` on a
# parameter are no model call, `model.decoder(...)` is.
_VALUE_METHODS = TENSOR_NAMES | frozenset(
    n for t in (list, dict, str, set, tuple, bytes) for n in dir(t) if not n.startswith("_"))
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _own_nodes(nodes):
    """All nodes under `nodes`, not entering nested functions, classes or lambdas."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, _NESTED):
                stack.append(child)


def _own_statements(body):
    """The statements `_own_nodes(body)` gives (it enters a function or class that is itself
    an item of `body`, not deeper ones), without walking their expressions."""
    for node in body:
        if isinstance(node, _NESTED):
            yield node
            yield from statements(node.body, enter_defs=False)
        else:
            yield from statements((node,), enter_defs=False)


def _loops(body):
    """Loop statements of a function body (nested loops included, nested defs not)."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, _LOOPS):
            yield node
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(node, field, ()) or ())
        if type(node).__name__ == "Match":
            for case in node.cases:
                stack.extend(case.body)


def _chain(func):
    """(root node, attribute names from the root outward) of a callee expression."""
    attrs = []
    node = func
    while True:
        t = type(node)
        if t is ast.Attribute:
            attrs.append(node.attr)
            node = node.value
        elif t is ast.Subscript:
            node = node.value
        elif t is ast.Call:
            node = node.func
        else:
            attrs.reverse()
            return node, attrs


def _params(fnode) -> set[str]:
    a = fnode.args
    names = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    names.discard("self")
    names.discard("cls")
    return names


def _held_locals(fnode) -> set[str]:
    """Locals bound to something held by `self`, without calling it (`fwd = self.__call__`,
    `model = self.model`)."""
    out = set()
    for node in _own_statements(fnode.body):
        if type(node) is ast.Assign and type(node.value) is ast.Attribute:
            root, _ = _chain(node.value)
            if type(root) is ast.Name and root.id == "self":
                out.update(t.id for t in node.targets if type(t) is ast.Name)
    return out


class _Calls:
    """Decides whether a call is a call of something a function holds."""

    def __init__(self, fnode, own_methods, method_holds):
        self.params = _params(fnode)
        self.locals = _held_locals(fnode)
        self.own_methods, self.method_holds = own_methods, method_holds

    def held(self, call: ast.Call, follow_methods: bool = True) -> bool:
        func = call.func
        if type(func) is ast.Name:
            return func.id == "self" or func.id in self.params or func.id in self.locals
        root, attrs = _chain(func)
        if type(root) is not ast.Name or not attrs:
            return False
        if root.id == "self":
            if attrs[0] in self.own_methods:
                return follow_methods and len(attrs) == 1 and self.method_holds(attrs[0])
            return True
        if root.id in self.params:        # `model.decoder(...)`; not `x.view(...)`, `op.Cast(...)`
            return len(attrs) > 1 and attrs[0] not in _VALUE_METHODS
        return root.id in self.locals


def calls_held(fnode, own_methods) -> bool:
    """Whether the function's own body calls something it holds (methods not followed)."""
    calls = _Calls(fnode, own_methods, None)
    return any(type(n) is ast.Call and calls.held(n, follow_methods=False)
               for n in _own_nodes(fnode.body))


def _targets(node):
    """Names an assignment rebinds (a subscript or attribute target rebinds nothing)."""
    t = type(node)
    if t is ast.Assign:
        todo = list(node.targets)
    elif t in (ast.AugAssign, ast.AnnAssign):
        todo = [node.target]
    else:
        return []
    out = []
    while todo:
        tgt = todo.pop()
        if type(tgt) is ast.Name:
            out.append(tgt.id)
        elif type(tgt) in (ast.Tuple, ast.List):
            todo.extend(tgt.elts)
        elif type(tgt) is ast.Starred:
            todo.append(tgt.value)
    return out


def _trains(nodes) -> bool:
    """A training loop (`loss.backward()`, `optimizer.zero_grad()`): cold code, no driver."""
    return any(type(n) is ast.Call and type(n.func) is ast.Attribute
               and n.func.attr in ("backward", "zero_grad") for n in nodes)


def drives_model(fnode, own_methods, method_holds) -> bool:
    """Whether one of the function's loops feeds what a held callee returns into its next
    step: into the next iteration (the name is read in the loop before it is rebound, or by
    a `while` test) or into another held call (`self.scheduler.step(self.unet(...))`)."""
    calls = None
    for loop in _loops(fnode.body):
        nodes = list(_own_nodes(loop.body))
        if not any(type(n) is ast.Call for n in nodes) or _trains(nodes):
            continue
        if calls is None:
            calls = _Calls(fnode, own_methods, method_holds)
        assigns = [n for n in nodes if type(n) in (ast.Assign, ast.AugAssign, ast.AnnAssign)
                   and n.value is not None]
        derived: dict[str, list] = {}     # name -> the assignments binding it from a held call
        for _ in range(2):          # a second pass follows assignments written above their source
            for a in assigns:
                if any((type(n) is ast.Call and calls.held(n))
                       or (type(n) is ast.Name and n.id in derived) for n in ast.walk(a.value)):
                    for name in _targets(a):
                        derived.setdefault(name, []).append(a)
        if not derived:
            continue
        if type(loop) is ast.While and any(type(n) is ast.Name and n.id in derived
                                           for n in ast.walk(loop.test)):
            return True
        for n in nodes:
            if type(n) is ast.Name and type(n.ctx) is ast.Load and n.id in derived:
                here = (n.lineno, n.col_offset)
                if any(type(a) is ast.AugAssign or here <= (a.value.end_lineno, a.value.end_col_offset)
                       for a in derived[n.id]):
                    return True             # read before it is rebound: carried to the next step
            elif type(n) is ast.Call and calls.held(n):
                args = [*n.args, *(k.value for k in n.keywords)]
                if any(type(x) is ast.Name and x.id in derived for arg in args for x in ast.walk(arg)):
                    return True
    return False
