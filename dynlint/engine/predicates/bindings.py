"""What a name was built as: every binding of it in its function (or of `self.attr` in its
class), and whether it is a Python sequence. Which names a statement binds is a plain fact of
the tree: `dynlint/analysis/bindings.py`."""
from __future__ import annotations

import ast

from ...analysis import kinds as K
from ...analysis.bindings import binding_values, binds_name, binds_name_here, block_statements
from ...analysis.tensor_api import SEQUENCE_TYPES
from .context import checked_not_tensor, function_of
from .places import in_model_code
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
            for st in block_statements(info.node.body):
                if type(st) is ast.Assign:
                    values.extend(st.value for t in st.targets if type(t) is ast.Attribute
                                  and t.attr == attr and type(t.value) is ast.Name and t.value.id == "self")
    return values


def every_binding(ctx, node, test, cache_key: str) -> bool:
    """`node` is a name or `self.attr` whose every binding in its scope passes `test`
    (at least one binding); cached per scope and name."""
    cache = ctx.analyzer.__dict__.setdefault("_binding_cache", {})
    if type(node) is ast.Name:
        frame = function_of(ctx)
        if frame is None:
            return False
        key = (cache_key, id(frame.node), node.id)
        if key not in cache:
            values = binding_values(frame.node, node.id)
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
    frame = function_of(ctx)
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
            return not any(binds_name_here(st, node.id) for st in block_statements(frame.node.body))
    return False


@predicate()
def python_sequence(ctx, node):
    """A Python list or tuple, or a `ModuleList`/`Sequential`/`ParameterList`, never a tensor: a literal or list comprehension, a local name that every assignment in its function builds as one, a parameter annotated as one (`feats: List[Tensor]`) and never re-bound, `self.attr` that every assignment in the class builds as one (`self.experts = nn.ModuleList(...)`), or a name in the branch an `isinstance(v, list)` test guards. Indexing one with a tensor turns the tensor into a Python int (`operator.index`)."""
    return _builds_sequence(ctx, node) or every_binding(ctx, node, _builds_sequence, "sequence") \
        or _sequence_parameter(ctx, node) or \
        type(node) in (ast.Name, ast.Attribute) and checked_not_tensor(ctx, node, _SEQUENCE_CHECKS)


# `isinstance(v, list)` guards a branch where `v` is a Python sequence.
_SEQUENCE_CHECKS = frozenset({"list", "tuple", "List", "Tuple", "Sequence", "abc.Sequence"})


def host_read_here(ctx, expr) -> bool:
    """Every host value in `expr` (a Python value computed from tensor data) was read from a
    tensor in the enclosing function: traced through the local bindings of the names it uses
    (tuple unpacking and loop targets too) to a read (`t.item()`, `t.tolist()`, `int(t)`),
    through arithmetic, subscripts and calls fed by such values (`counts[i]`,
    `min(n, self.k)`). Not when one arrives from outside: a parameter, an attribute, a name
    of an enclosing scope, what a function returns from no host argument. A parameter counts
    as from outside when it holds a host value on entry (its annotation, its callers), else
    by what the function binds it to (`if n is None: n = int(t.max())`)."""
    frame = function_of(ctx)
    return frame is not None and _traced(ctx, frame, expr, set())


def _traced(ctx, frame, expr, seen: set) -> bool:
    t = type(expr)
    if t is ast.Call and _reads_tensor(ctx, expr):
        return True
    if not ctx.kind(expr) & K.HOST:
        return True                 # holds no host value: nothing to trace
    if t is ast.Name:
        if expr.id in seen:
            return True             # a loop-carried value: its other bindings decide
        seen.add(expr.id)
        if frame.entry.get(expr.id, 0) & K.HOST:
            return False
        values = _binding_values(frame.node, expr.id)
        return bool(values) and all(_traced(ctx, frame, v, seen) for v in values)
    if t is ast.Call:
        args = [*expr.args, *(k.value for k in expr.keywords)]
        if type(expr.func) is ast.Attribute:
            args.append(expr.func.value)
        # A host value from no host argument comes out of the callee: read elsewhere.
        return any(ctx.kind(a) & K.HOST for a in args) and \
            all(_traced(ctx, frame, a, seen) for a in args)
    if t in (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Subscript,
             ast.Tuple, ast.List, ast.Starred, ast.Slice):
        return all(_traced(ctx, frame, c, seen) for c in ast.iter_child_nodes(expr)
                   if isinstance(c, ast.expr))
    return False                    # an attribute, a comprehension...: from outside


def _reads_tensor(ctx, call) -> bool:
    """Where tensor data becomes a Python value, as the host-read rules see it: `t.item()`,
    `t.tolist()` (in model code) of a value not already on the host (methods of tensors: a
    receiver that may be one is enough), `int(t)`, `float(t)`... of a certain tensor (`int(0.5 * rate)` of a
    value only probably a tensor is no evidence of a read, and no rule reports it there)."""
    f = call.func
    if type(f) is ast.Attribute and f.attr in K.HOST_METHODS:
        # An export (`.tolist()`) is reported in model code only: in library code it is mostly
        # a result converted for the user, so a slice by it is the first place it shows.
        return not ctx.kind(f.value) & K.HOST and (f.attr != "tolist" or in_model_code(ctx, call))
    if type(f) is ast.Name and f.id in K.HOST_CONVERTERS and len(call.args) == 1:
        k = ctx.kind(call.args[0])
        return K.level(k) == K.TENSOR and not k & K.HOST
    return False


def _binding_values(func, name: str):
    """The values `name` is bound to in `func`'s body (an assignment's value, tuple unpacking
    included; a loop's iterable), or None when it is bound otherwise (`with`, an import, a
    walrus)."""
    values = []
    for st in block_statements(func.body):
        t = type(st)
        if t is ast.Assign and any(binds_name(target, name) for target in st.targets):
            values.append(st.value)
        elif t in (ast.AugAssign, ast.AnnAssign) and binds_name(st.target, name):
            if st.value is not None:
                values.append(st.value)
        elif t in (ast.For, ast.AsyncFor) and binds_name(st.target, name):
            values.append(st.iter)
        elif binds_name_here(st, name):
            return None
    return values
