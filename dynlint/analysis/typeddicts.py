"""Items of a TypedDict: `batch["masks"]`, `batch.get("masks")` where `batch: SLCWABatch` is a
parameter and `class SLCWABatch(TypedDict): masks: NotRequired[BoolTensor]` declares the item.

A TypedDict's class body declares what each key holds, as a dataclass's declares its fields:
a batch dict typed so says which items are tensors and which are masks, where the reading
function alone sees an unknown value (a data loader's batch). Only declarations that say
something (a tensor, a bool mask) are kept. The class may be of this file, or of another file
of the project: its module exports the items' kinds with its return summaries
(`Class.[key]`), which the cross-file step hands to the walk that asked. A union declared for
a parameter or a class's field says as much for string keys when its only mappings map `str`
to tensors (`annotations.keyed_item_kind`; fields of another file's classes: `Class.field[str]`).
"""
from __future__ import annotations

import ast

from . import kinds as K
from .annotations import annotation_kind, declared_class, keyed_item_kind
from .bindings import binding_values, binds_name

_TYPED_DICT = frozenset({"TypedDict", "typing.TypedDict", "typing_extensions.TypedDict"})


def declared_items(tree: ast.AST | None) -> dict:
    """{class name: {key: kind}} for the module-level TypedDict classes of a module (with the
    items their TypedDict bases of the module declare), informative kinds only."""
    return _cached(tree, "_dl_typed_dicts", _typed_dicts)


def _typed_dicts(tree) -> dict:
    found: dict = {}
    for st in getattr(tree, "body", ()):
        if type(st) is not ast.ClassDef or not st.bases:
            continue
        bases = [_base_name(b) for b in st.bases]
        if not all(b in _TYPED_DICT or b in found for b in bases):
            continue
        items = {}
        for b in bases:
            items.update(found.get(b, {}))
        for node in st.body:
            if type(node) is ast.AnnAssign and type(node.target) is ast.Name:
                k = annotation_kind(node.annotation)
                if K.level(k) == K.TENSOR:
                    items[node.target.id] = k
                else:
                    items.pop(node.target.id, None)
        found[st.name] = items
    return found


def _base_name(node) -> str:
    """`TypedDict`, `typing.TypedDict`, a class name of the module; "" for anything else."""
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Attribute and type(node.value) is ast.Name:
        return f"{node.value.id}.{node.attr}"
    return ""


def item_kind(analyzer, receiver: ast.AST, key) -> int | None:
    """The declared kind of item `key` of `receiver`, a parameter of the walked function
    annotated with a TypedDict class, or with a union whose mappings map `str` to tensors,
    and never rebound; or a field so declared of an instance such a parameter holds (`p.data`,
    or a local bound only to it; `fields`); None when nothing says."""
    if type(key) is not str:
        return None
    fn = analyzer._function_node()
    if type(fn) not in (ast.FunctionDef, ast.AsyncFunctionDef):
        return None
    if type(receiver) is ast.Name:
        arg = _parameter(fn, receiver.id)
        if arg is None:
            values = binding_values(fn, receiver.id)
            return _field_item(analyzer, fn, values[0]) \
                if values and len(values) == 1 and type(values[0]) is ast.Attribute else None
    elif type(receiver) is ast.Attribute:
        return _field_item(analyzer, fn, receiver)
    else:
        return None
    if arg.annotation is None:
        return None
    cls = declared_class(arg.annotation)
    own = declared_items(analyzer.tree)
    if cls in own:
        return own[cls].get(key)
    if cls in analyzer.imports:
        found = analyzer.calls.external_item(analyzer.imports[cls], key)
        if found is not None:
            return found
    return keyed_item_kind(arg.annotation)


def _parameter(fn, name: str):
    """The parameter `name` of `fn` if the function never rebinds it, else None."""
    args = fn.args
    arg = next((a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg == name),
               None)
    if arg is None or any(binds_name(st, name) for st in fn.body):
        return None
    return arg


def _field_item(analyzer, fn, node: ast.Attribute) -> int | None:
    """A str-keyed item of field `p.f`, `p` a parameter declared a class whose body declares
    `f` (this file's class, or another file's through the cross-file step: `Class.f[str]`)."""
    p = node.value
    if type(p) is not ast.Name:
        return None
    arg = _parameter(fn, p.id)
    cls = declared_class(arg.annotation) if arg is not None and arg.annotation is not None \
        else None
    if cls is None:
        return None
    own = declared_fields(analyzer.tree)
    if cls in own:
        return own[cls].get(node.attr)
    if cls in analyzer.imports:
        return analyzer.calls.external_item(analyzer.imports[cls], node.attr, field=True)
    return None


def declared_fields(tree: ast.AST | None) -> dict:
    """{class name: {field: kind}} for the module-level classes of a module whose body declares
    a field with str-keyed items of a known kind (`data: Optional[Union[Dict[str, Tensor],
    List[Item]]]` in a NamedTuple or a dataclass: `annotations.keyed_item_kind`)."""
    return _cached(tree, "_dl_keyed_fields", _keyed_fields)


def _keyed_fields(tree) -> dict:
    found = {}
    for st in getattr(tree, "body", ()):
        if type(st) is not ast.ClassDef:
            continue
        items = {}
        for node in st.body:
            if type(node) is ast.AnnAssign and type(node.target) is ast.Name:
                k = keyed_item_kind(node.annotation)
                if k is not None:
                    items[node.target.id] = k
        if items:
            found[st.name] = items
    return found


def _cached(tree, attr: str, build) -> dict:
    """`build(tree)`, kept on the tree's node (asked once per subscript)."""
    if tree is None:
        return {}
    found = tree.__dict__.get(attr)
    if found is None:
        found = build(tree)
        setattr(tree, attr, found)
    return found
