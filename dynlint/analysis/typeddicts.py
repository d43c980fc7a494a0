"""Items of a TypedDict: `batch["masks"]`, `batch.get("masks")` where `batch: SLCWABatch` is a
parameter and `class SLCWABatch(TypedDict): masks: NotRequired[BoolTensor]` declares the item.

A TypedDict's class body declares what each key holds, as a dataclass's declares its fields:
a batch dict typed so says which items are tensors and which are masks, where the reading
function alone sees an unknown value (a data loader's batch). Only declarations that say
something (a tensor, a bool mask) are kept. The class may be of this file, or of another file
of the project: its module exports the items' kinds with its return summaries
(`Class.[key]`), which the cross-file step hands to the walk that asked.
"""
from __future__ import annotations

import ast

from . import kinds as K
from .annotations import annotation_kind, declared_class
from .bindings import binds_name

_TYPED_DICT = frozenset({"TypedDict", "typing.TypedDict", "typing_extensions.TypedDict"})


def declared_items(tree: ast.AST | None) -> dict:
    """{class name: {key: kind}} for the module-level TypedDict classes of a module (with the
    items their TypedDict bases of the module declare), informative kinds only."""
    if tree is None:
        return {}
    found = tree.__dict__.get("_dl_typed_dicts")
    if found is not None:
        return found
    found = {}
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
    tree._dl_typed_dicts = found
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
    annotated with a TypedDict class and never rebound; None when nothing says."""
    if type(receiver) is not ast.Name or type(key) is not str:
        return None
    fn = analyzer._function_node()
    if type(fn) not in (ast.FunctionDef, ast.AsyncFunctionDef):
        return None
    args = fn.args
    arg = next((a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)
                if a.arg == receiver.id), None)
    if arg is None or arg.annotation is None:
        return None
    cls = declared_class(arg.annotation)
    if cls is None or any(binds_name(st, receiver.id) for st in fn.body):
        return None
    own = declared_items(analyzer.tree)
    if cls in own:
        return own[cls].get(key)
    if cls in analyzer.imports:
        return analyzer.calls.external_item(analyzer.imports[cls], key)
    return None
