"""What a name was built as: every binding of it in its function (or of `self.attr` in its
class), and whether it is a Python sequence. Which names a statement binds is a plain fact of
the tree: `dynlint/analysis/bindings.py`."""
from __future__ import annotations

import ast

from ...analysis.bindings import _bindings, _binds_here, _statements
from ...analysis.tensor_api import SEQUENCE_TYPES
from .context import _checked_not_tensor, _function_of
from .registry import predicate


def _class_of(frame):
    while frame is not None and frame.cls is None:
        frame = frame.parent
    return frame.cls if frame is not None else None


def _attr_bindings(cls, attr: str) -> list:
    """Values assigned to `self.attr` in any method of the class (this file's class only)."""
    values = []
    for infos in cls.methods.values():
        for info in infos:
            for st in _statements(info.node.body):
                if type(st) is ast.Assign:
                    values.extend(st.value for t in st.targets if type(t) is ast.Attribute
                                  and t.attr == attr and type(t.value) is ast.Name and t.value.id == "self")
    return values


def _every_binding(ctx, node, test, cache_key: str) -> bool:
    """`node` is a name or `self.attr` whose every binding in its scope passes `test`
    (at least one binding); cached per scope and name."""
    cache = ctx.analyzer.__dict__.setdefault("_binding_cache", {})
    if type(node) is ast.Name:
        frame = _function_of(ctx)
        if frame is None:
            return False
        key = (cache_key, id(frame.node), node.id)
        if key not in cache:
            values = _bindings(frame.node, node.id)
            cache[key] = bool(values) and all(test(ctx, v) for v in values)
        return cache[key]
    if type(node) is ast.Attribute and type(node.value) is ast.Name and node.value.id == "self":
        cls = _class_of(ctx.frame)
        if cls is None:
            return False
        key = (cache_key, id(cls), node.attr)
        if key not in cache:
            values = _attr_bindings(cls, node.attr)
            cache[key] = bool(values) and all(test(ctx, v) for v in values)
        return cache[key]
    return False


def _builds_sequence(ctx, value) -> bool:
    t = type(value)
    if t in (ast.List, ast.Tuple, ast.ListComp):
        return True
    if t is ast.BinOp and type(value.op) is ast.Add:
        return _builds_sequence(ctx, value.left) and _builds_sequence(ctx, value.right)
    return t is ast.Call and ctx.analyzer.qualname(value.func) in SEQUENCE_TYPES


_SEQUENCE_ANNOTATIONS = frozenset({"list", "List", "tuple", "Tuple", "Sequence", "ModuleList",
                                   "Sequential", "ParameterList"})


def _sequence_parameter(ctx, node) -> bool:
    """A parameter annotated as a list, tuple or `ModuleList` (`feats: List[Tensor]`) and never
    re-bound in its function."""
    frame = _function_of(ctx)
    if type(node) is not ast.Name or frame is None:
        return False
    args = frame.node.args
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        if a.arg == node.id and a.annotation is not None:
            ann = a.annotation
            while type(ann) is ast.Subscript:      # Optional[List[...]] is not certain; List[...] is
                ann = ann.value
            head = ann.attr if type(ann) is ast.Attribute else getattr(ann, "id", None)
            if head not in _SEQUENCE_ANNOTATIONS:
                return False
            return not any(_binds_here(st, node.id) for st in _statements(frame.node.body))
    return False


@predicate()
def python_sequence(ctx, node):
    """A Python list or tuple, or a `ModuleList`/`Sequential`/`ParameterList`, never a tensor: a literal or list comprehension, a local name that every assignment in its function builds as one, a parameter annotated as one (`feats: List[Tensor]`) and never re-bound, `self.attr` that every assignment in the class builds as one (`self.experts = nn.ModuleList(...)`), or a name in the branch an `isinstance(v, list)` test guards. Indexing one with a tensor turns the tensor into a Python int (`operator.index`)."""
    return _builds_sequence(ctx, node) or _every_binding(ctx, node, _builds_sequence, "sequence") \
        or _sequence_parameter(ctx, node) or \
        type(node) in (ast.Name, ast.Attribute) and _checked_not_tensor(ctx, node, _SEQUENCE_CHECKS)


# `isinstance(v, list)` guards a branch where `v` is a Python sequence.
_SEQUENCE_CHECKS = frozenset({"list", "tuple", "List", "Tuple", "Sequence", "abc.Sequence"})
