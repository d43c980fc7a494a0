"""Fields of instances of the file's own classes: `state.t1` where `state: State` is a
parameter, `state = State(...)` the local's only binding, or `self.state` holds only `State`
instances (`self.state = State(...)`). What the field holds is what the class says of it
(`attributes.attribute_kind`: a field declared `t1: Tensor` in a NamedTuple or a dataclass,
or what its methods assign to `self.t1`), as `self.t1` reads inside the class."""
from __future__ import annotations

import ast

from .annotations import declared_class
from .attributes import held_classes
from .bindings import binding_values, binds_name


def instance_class(analyzer, node):
    """The class of this file (a scopes.ClassInfo) whose instance `node` (a name or
    `self.x`) holds, or None when it may hold anything else."""
    if type(node) is ast.Attribute and type(node.value) is ast.Name and node.value.id == "self":
        cls = analyzer._enclosing_class()
        held = held_classes(analyzer, cls, node.attr) if cls is not None else ()
        return held[0] if len(held) == 1 else None
    if type(node) is not ast.Name:
        return None
    fn = analyzer._function_node()
    if type(fn) not in (ast.FunctionDef, ast.AsyncFunctionDef):
        return None
    table = analyzer.__dict__.setdefault("_instance_classes", {})
    key = (id(fn), node.id)
    if key not in table:
        table[key] = _declared_or_built(analyzer, fn, node.id)
    return table[key]


def _declared_or_built(analyzer, fn, name: str):
    classes = analyzer.classes
    args = fn.args
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        if a.arg == name:
            # A parameter annotated with the class, and never rebound in the function.
            if any(binds_name(st, name) for st in fn.body):     # (kept on each statement)
                return None
            return classes.get(declared_class(a.annotation))
    values = binding_values(fn, name)
    if not values:
        return None
    # `State(...)`, or `st._replace(t1=...)` of the same local (a copy of the same class).
    built = {v.func.id for v in values if type(v) is ast.Call and type(v.func) is ast.Name}
    copies = sum(type(v) is ast.Call and type(v.func) is ast.Attribute and
                 v.func.attr == "_replace" and type(v.func.value) is ast.Name and
                 v.func.value.id == name for v in values)
    if len(built) != 1 or len(values) != copies + sum(
            type(v) is ast.Call and type(v.func) is ast.Name for v in values):
        return None
    name = built.pop()
    if name in classes:
        return classes[name]
    # `mode = get_boxmode(src)`, a function of this file declared `-> BoxMode`: an instance
    # of that class (or of a subclass: `summaries.LocalCalls.declared_methods`).
    found = analyzer.scopes.module_functions.get(name)
    return classes.get(declared_class(found[0].node.returns)) if found and len(found) == 1 \
        else None


def built_here(analyzer, node) -> bool:
    """Whether the local `node` (a name) holds what a constructor of a class of this file
    built (`x = State(...)`): exactly that class, no subclass."""
    fn = analyzer._function_node()
    if type(fn) not in (ast.FunctionDef, ast.AsyncFunctionDef):
        return False
    values = binding_values(fn, node.id)
    return bool(values) and all(type(v) is ast.Call and type(v.func) is ast.Name and
                                v.func.id in analyzer.classes for v in values)
