"""Calls between a file's own functions: what they return and what their callers pass.

A helper such as `_get_global_attn_indices()` may return a tensor count that its caller
passes on to `attn.narrow(-1, 0, n)` in another helper. Seen alone, the helper's parameter is
merely "probably a tensor" and the call's result unknown. This module keeps, per function of
the file, the kinds its `return`s produce (element-wise for tuples, or its `-> Tensor`
annotation) and the kinds each call site passes; after the walk, functions that would learn
something (a parameter every caller passes a tensor for, or a call whose result was unknown
when first seen) are walked again, at most twice. Only such functions pay for it.
"""
from __future__ import annotations

import ast

from . import kinds as K
from .annotations import annotation_kind
from .kinds import BOOL, HOST, NOT, TENSOR


class LocalCalls:
    def __init__(self, analyzer):
        self.a = analyzer
        self.returns: dict[int, list] = {}        # id(FunctionInfo) -> kinds of its returns
        self.done: set[int] = set()               # functions walked to their end
        self.sites: dict[int, list] = {}          # id(FunctionInfo) -> [(positional, keywords)]
        self.waiting: dict[int, set] = {}         # callee -> callers that met it unknown
        self.params: dict[int, dict] = {}         # id(FunctionInfo) -> {param: kind} as bound
        self.parents: dict[int, object] = {}      # id(FunctionInfo) -> enclosing Frame
        self.infos: dict[int, object] = {}
        self.overrides: dict[int, dict] = {}      # parameters upgraded from call sites

    # -- during the walk ----------------------------------------------------------------------
    def callee(self, node: ast.Call):
        f, scopes, frame = node.func, self.a.scopes, self.a.frame
        if type(f) is ast.Name:
            found = scopes.module_functions.get(f.id)
            return found[0] if found and len(found) == 1 else None
        if type(f) is ast.Attribute and type(f.value) is ast.Name and f.value.id == "self":
            cls = frame.cls
            while cls is None and frame is not None:
                frame = frame.parent
                cls = frame.cls if frame is not None and frame.kind == "function" else None
            methods = cls.methods.get(f.attr) if cls is not None else None
            return methods[0] if methods and len(methods) == 1 else None
        if type(f) is ast.Attribute and type(f.value) is ast.Name and f.value.id in scopes.classes:
            # `Class.static_method(...)` / `Class.class_method(...)` of a class of this file.
            methods = scopes.classes[f.value.id].methods.get(f.attr)
            if methods and len(methods) == 1 and any(
                    type(d) is ast.Name and d.id in ("staticmethod", "classmethod")
                    for d in methods[0].node.decorator_list):
                return methods[0]
        return None

    # -- the walker tells when a function's walk starts and ends --------------------------------
    def met(self, info, parent) -> None:
        """The walk reached `info`'s definition inside `parent` (the frame a revisit reuses)."""
        self.parents[id(info)] = parent

    def enter(self, info, params: dict) -> dict:
        """A walk of `info` starts with `params` bound: returns the parameter kinds its call
        sites taught (an int, or a tuple of item kinds for a tuple every caller passes)."""
        self.params[id(info)] = dict(params)
        self.infos[id(info)] = info
        self.returns[id(info)] = []
        return self.overrides.get(id(info), {})

    def leave(self, info) -> None:
        self.done.add(id(info))

    def note_call(self, node: ast.Call) -> None:
        info = self.callee(node)
        if info is None or any(type(a) is ast.Starred for a in node.args) or \
                any(k.arg is None for k in node.keywords):
            return
        kind = self._passed
        self.sites.setdefault(id(info), []).append(
            ([kind(a) for a in node.args], {k.arg: kind(k.value) for k in node.keywords}))
        self.infos[id(info)] = info

    def _passed(self, arg):
        """Kind of an argument; a tuple literal (`(left, n_extra)`) item by item."""
        if type(arg) is ast.Tuple and not any(type(e) is ast.Starred for e in arg.elts):
            return tuple(self.a.kind(e) for e in arg.elts)
        return self.a.kind(arg)

    def note_return(self, value: ast.AST | None) -> None:
        info = self.a.frame_info()
        if info is None:
            return
        if value is None or (type(value) is ast.Constant and value.value is None):
            return                  # `return None` says nothing about the other returns
        if type(value) is ast.Tuple:
            k = tuple(self.a.kind(e) for e in value.elts)
        else:
            k = self.a.kind(value)
        self.returns.setdefault(id(info), []).append(k)

    def result(self, node: ast.Call):
        """Kind (an int, or a tuple of ints for a tuple) returned by a call to a function of
        this file, or None when not known (yet)."""
        info = self.callee(node)
        if info is None:
            return None
        ann = info.node.returns
        if ann is not None:
            k = annotation_kind(ann)
            if K.level(k) == TENSOR:
                return k
        if id(info) not in self.done:
            caller = self.a.frame_info()
            if caller is not None and caller is not info:
                self.waiting.setdefault(id(info), set()).add(id(caller))
                self.infos[id(caller)] = caller
            return None
        return fold(self.returns.get(id(info), []))

    # -- after the walk ------------------------------------------------------------------------
    def to_revisit(self) -> list:
        """(function, enclosing frame) pairs worth a second walk."""
        todo: dict[int, object] = {}
        for callee_id, callers in self.waiting.items():
            summary = fold(self.returns.get(callee_id, []))
            if summary is not None and _has_tensor(summary):
                for c in callers:
                    todo[c] = self.infos[c]
        self.waiting = {}
        for fid, sites in self.sites.items():
            upgrades = self._upgrades(self.infos[fid], sites)
            if upgrades:
                self.overrides.setdefault(fid, {}).update(upgrades)
                todo[fid] = self.infos[fid]
        self.sites = {}
        return [(i, self.parents[id(i)]) for i in todo.values() if id(i) in self.params]

    def _upgrades(self, info, sites) -> dict:
        args = info.node.args
        positional = [a.arg for a in args.posonlyargs + args.args]
        if info.cls is not None and positional and positional[0] in ("self", "cls"):
            positional = positional[1:]
        bound = self.params.get(id(info))
        if not bound:
            return {}
        out = {}
        for name in positional + [a.arg for a in args.kwonlyargs]:
            passed = []
            for pos, kw in sites:
                if name in positional and positional.index(name) < len(pos):
                    passed.append(pos[positional.index(name)])
                elif name in kw:
                    passed.append(kw[name])
                else:
                    passed = None          # a caller relies on the default
                    break
            if not passed:
                continue
            now = bound.get(name, NOT)
            if any(type(k) is tuple for k in passed):
                # Tuples passed by every caller, of one length: what each item holds.
                if all(type(k) is tuple for k in passed) and len({len(k) for k in passed}) == 1:
                    items = tuple(_join(col) for col in zip(*passed))
                    if any(_has_tensor(k) for k in items):
                        out[name] = items
                continue
            if all(K.level(k) == TENSOR and not k & HOST for k in passed) and K.level(now) < TENSOR:
                out[name] = TENSOR | (BOOL if all(k & BOOL for k in passed) else 0) | \
                    (K.CPU if all(k & K.CPU for k in passed) else 0)
            elif all(k & HOST for k in passed) and not now & HOST:
                out[name] = NOT | HOST
        return out


def fold(kinds: list):
    """One summary for all of a function's returns: element-wise for same-length tuples."""
    values = kinds
    if not values:
        return None
    if all(type(k) is tuple for k in values) and len({len(k) for k in values}) == 1:
        return tuple(_join(col) for col in zip(*values))
    if any(type(k) is tuple for k in values):
        return NOT
    return _join(values)


def _join(values) -> int:
    lv = min(K.level(k) for k in values)       # certain only if every return is
    flags = 0
    for f in (BOOL, HOST, K.CPU):
        if all(k & f for k in values):
            flags |= f
    return lv | flags


def _has_tensor(summary) -> bool:
    if type(summary) is tuple:
        return any(K.level(k) == TENSOR or k & HOST for k in summary)
    return K.level(summary) == TENSOR or bool(summary & HOST)
