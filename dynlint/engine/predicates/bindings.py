"""What a name was built as: every binding of it in its function (or of `self.attr` in its
class), whether it is a Python sequence; and which names a statement binds (also used by the
fixes in `dynlint/fix/`)."""
from __future__ import annotations

import ast

from ...analysis.tensor_api import SEQUENCE_TYPES
from .context import _BLOCK_FIELDS, _checked_not_tensor, _function_of
from .registry import predicate
from ...analysis.statements import child_nodes, walk


def _class_of(frame):
    while frame is not None and frame.cls is None:
        frame = frame.parent
    return frame.cls if frame is not None else None


def _bindings(func, name: str):
    """Values bound to local `name` in `func` (not in nested functions), or None when some
    binding has no single value (a parameter, a loop or `with` target, tuple unpacking...)."""
    args = func.args
    if any(a.arg == name for a in args.posonlyargs + args.args + args.kwonlyargs) or \
            any(a is not None and a.arg == name for a in (args.vararg, args.kwarg)):
        return None
    values = []
    for st in _statements(func.body):
        t = type(st)
        if t is ast.Assign:
            for target in st.targets:
                if type(target) is ast.Name and target.id == name:
                    values.append(st.value)
                elif _binds(target, name):
                    return None
        elif t in (ast.AnnAssign, ast.AugAssign) and type(st.target) is ast.Name and st.target.id == name:
            if st.value is not None:
                values.append(st.value)
        elif _binds_here(st, name):
            return None
    return values


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


def _statements(block):
    """Every statement of a block and of the blocks nested in it (not nested functions)."""
    todo = list(block)
    while todo:
        st = todo.pop()
        yield st
        if type(st) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            continue
        for field in (*_BLOCK_FIELDS, "handlers"):
            inner = getattr(st, field, None)
            if type(inner) is list:
                todo.extend(x for x in inner if isinstance(x, ast.stmt))
                todo.extend(s for h in inner if type(h) is ast.ExceptHandler for s in h.body)


def _binds_here(st, name: str) -> bool:
    """The statement itself (not the blocks nested in it) binds `name`."""
    found = st.__dict__.get("_dl_binds_here")
    if found is None:      # every name at once, kept on the node: asked again for other names
        found = st._dl_binds_here = frozenset(_bound_here(st))
    return name in found


def _bound_here(st) -> set:
    t = type(st)
    if t in (ast.Assign, ast.AugAssign, ast.AnnAssign):
        targets = st.targets if t is ast.Assign else [st.target]
        return set().union(*map(_bound, targets)) | _walrus_targets(st.value)
    if t in (ast.For, ast.AsyncFor):
        return _bound(st.target) | _walrus_targets(st.iter)
    if t in (ast.With, ast.AsyncWith):
        return set().union(*(_bound(i.optional_vars) for i in st.items if i.optional_vars is not None))
    if t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        return {st.name}
    if t in (ast.Import, ast.ImportFrom):
        return _bound(st)
    if t is ast.ExceptHandler:
        return {st.name} if st.name is not None else set()
    return set().union(*(_walrus_targets(v) for v in ast.iter_child_nodes(st) if isinstance(v, ast.expr)))


def _walrus_targets(expr) -> set:
    if expr is None:
        return set()
    return {n.target.id for n in walk(expr) if type(n) is ast.NamedExpr}


def _binds(tree, name: str) -> bool:
    """`tree` assigns `name` (assignment, loop or `with` target, walrus, import, def), not
    counting nested functions' own locals."""
    found = tree.__dict__.get("_dl_binds")
    if found is None:      # every name at once, kept on the node: asked again for other names
        found = tree._dl_binds = frozenset(_bound(tree))
    return name in found


def _bound(tree) -> set:
    """The names `_binds(tree, name)` is true for."""
    out = set()
    todo = [tree]
    while todo:
        n = todo.pop()
        t = type(n)
        if t is ast.Name and type(n.ctx) is ast.Store:
            out.add(n.id)
        if t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            out.add(n.name)
            continue
        if t is ast.Lambda:
            continue
        if t in (ast.Import, ast.ImportFrom):
            out.update(a.asname or a.name.split(".")[0] for a in n.names)
        todo.extend(child_nodes(n))
    return out
