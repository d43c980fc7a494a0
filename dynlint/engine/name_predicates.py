"""Weak evidence: what names say when the code says nothing.

A mask that arrives from another package (`valid = laf_is_filled(lafs)[b]`), from a caller
dynlint cannot see, or as an unannotated parameter has no known dtype. Its name often tells:
`fg_mask`, `keep`, `valid0` used as the index of a tensor, or a value every assignment of which
is the result of a predicate-named call (`oriented = sample_is_valid(...)`). Such evidence
is used only where the code gives none (the index's kind is unknown or merely "probably a
tensor"), and never against code evidence of integer indices (a name bound from `nms`,
`topk`, `argsort`, `nonzero`...). A predicate here that holds on names alone marks the match
`weak`: its finding's confidence is `likely`, not `certain`.
"""
from __future__ import annotations

import ast
import re

from ..analysis import kinds as K
from ..analysis.kinds import BOOL, PROBABLE, UNKNOWN
from .predicates import _every_binding, _function_of, _bindings, predicate

# Name parts that say "bool mask", and parts that say the name holds positions or counts.
_MASK_WORDS = frozenset({"mask", "masks", "keep", "valid", "keeps"})
_INDEX_WORDS = frozenset("""
idx idxs index indices ind inds id ids len lens length lengths num count counts pos position
positions token tokens size sizes ratio prob probs value values fill order rank ranks
slice slices start end begin stop offset offsets dim dims shape step steps to
""".split())
# Calls whose result holds positions (int tensors), whatever the name they are bound to.
_INDEX_CALLS = re.compile(r"nms|topk|argsort|sort|arange|nonzero|argwhere|where|indices|index|idx|"
                          r"randperm|multinomial|argmax|argmin|searchsorted|bucketize", re.I)
_PREDICATE_CALL = re.compile(r"^(is|has)_|_(is|has)_")


def _parts(name: str) -> list:
    return [p for p in re.split(r"[_\d]+", name.lower()) if p]


def _root(node):
    """The name a subscript index stands for: `m`, `self.m`, `m[b]` -> 'm'; None otherwise."""
    while type(node) is ast.Subscript:
        node = node.value
    if type(node) is ast.Name:
        return node, node.id
    if type(node) is ast.Attribute:
        return node, node.attr
    return None, None


def _callee_name(value) -> str | None:
    while type(value) is ast.Subscript:          # `laf_is_filled(l)[b]`
        value = value.value
    if type(value) is not ast.Call:
        return None
    f = value.func
    return f.attr if type(f) is ast.Attribute else f.id if type(f) is ast.Name else None


def _bound_to_index_call(ctx, name_node) -> bool:
    """Some assignment of the name in its function is a call that gives positions."""
    if type(name_node) is not ast.Name:
        return False
    frame = _function_of(ctx)
    values = _bindings(frame.node, name_node.id) if frame is not None else None
    return any(_INDEX_CALLS.search(_callee_name(v) or "") for v in values or ())


def _predicate_result(ctx, v) -> bool:
    name = _callee_name(v)
    return name is not None and bool(_PREDICATE_CALL.search(name)) and \
        not _INDEX_CALLS.search(name)


def _mask_by_name(ctx, item) -> bool:
    if type(item) in (ast.Slice, ast.Constant) or type(item) is ast.Starred:
        return False
    k = ctx.kind(item)
    if k & (BOOL | K.HOST | K.SHAPE | K.ARRAY) or K.level(k) not in (UNKNOWN, PROBABLE):
        return False                      # the code says what it is: not for names to say
    node, name = _root(item)
    if node is None:
        return False
    if _bound_to_index_call(ctx, node):
        return False
    parts = _parts(name)
    if any(p in _MASK_WORDS for p in parts) and not any(p in _INDEX_WORDS for p in parts):
        return True
    return type(node) is ast.Name and _every_binding(ctx, node, _predicate_result, "predicate_call")


@predicate()
def named_mask(ctx, node):
    """Weak evidence (the finding is `likely`): the index, or an item of a tuple index, has no known dtype but its name says mask (`fg_mask`, `keep`, `valid0`, `self.mask[b]`; not `mask_idx`, `keep_inds`, `valid_len`), or every assignment of it is a predicate-named call (`oriented = sample_is_valid(...)`); never a name bound from a call that gives positions (`keep = nms(...)`, `topk`, `argsort`, `nonzero`)."""
    sub = ctx.node if type(ctx.node) is ast.Subscript and ctx.node.slice is node else None
    items = node.elts if sub is not None and type(node) is ast.Tuple else (node,)
    if any(_mask_by_name(ctx, item) for item in items):
        ctx.weak = True
        return True
    return False
