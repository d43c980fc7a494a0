"""Weak evidence: what names say when the code says nothing.

A mask that arrives from another package (`valid = laf_is_filled(lafs)[b]`), from a caller
dynlint cannot see, or as an unannotated parameter has no known dtype. Its name often tells:
`fg_mask`, `masks[i]` used as the index of a tensor, `keep` or `valid` that the function
also treats as a bool (`~keep`, `valid.any()`), or a value every assignment of which is the
result of a predicate-named call (`oriented = sample_is_valid(...)`, or an item of one). Such evidence
is used only where the code gives none (the index's kind is unknown or merely "probably a
tensor"), and never against code evidence of integer indices (a name bound from `nms`,
`topk`, `argsort`, `nonzero`...). A predicate here that holds on names alone marks the match
`weak`: its finding's confidence is `likely`, not `certain`.
"""
from __future__ import annotations

import ast
import re

from ...analysis import kinds as K
from ...analysis.bindings import binding_values
from ...analysis.kinds import BOOL, PROBABLE, UNKNOWN
from .bindings import every_binding
from .context import function_of
from .registry import predicate

# Name parts that say "bool mask", and parts that say the name holds positions or counts.
# `keep` and `valid` name index tensors as often as masks (`keep = nms(...)`, `tile.keep`
# token indices): they count only with a boolean use of the name in the same function.
_MASK_WORDS = frozenset({"mask", "masks"})
_AMBIGUOUS_WORDS = frozenset({"keep", "keeps", "kept", "valid"})
_BOOL_METHODS = frozenset({"any", "all", "nonzero", "logical_not", "logical_and", "logical_or",
                           "logical_xor", "argwhere"})
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
    frame = function_of(ctx)
    values = binding_values(frame.node, name_node.id) if frame is not None else None
    return any(_INDEX_CALLS.search(_callee_name(v) or "") for v in values or ())


def _predicate_result(ctx, v, hop: bool = True) -> bool:
    """`v` is a predicate-named call (`laf_is_filled(l)`, `has_overlap(a, b)[i]`), or, once,
    an item of a local name every assignment of which is one."""
    name = _callee_name(v)
    if name is not None:
        return bool(_PREDICATE_CALL.search(name)) and not _INDEX_CALLS.search(name)
    root = v
    while type(root) is ast.Subscript:
        root = root.value
    if not hop or root is v or type(root) is not ast.Name:
        return False
    frame = function_of(ctx)
    values = binding_values(frame.node, root.id) if frame is not None else None
    return bool(values) and all(_predicate_result(ctx, x, hop=False) for x in values)


def _used_as_bool(ctx, name: str) -> bool:
    """The function's code treats local `name` as a bool tensor somewhere: `~name`, `name & m`,
    `name.any()`, `name.nonzero()`, `torch.logical_not(name)`, `torch.where(name, a, b)`."""
    frame = function_of(ctx)
    if frame is None:
        return False
    cache = ctx.analyzer.__dict__.setdefault("_binding_cache", {})
    key = ("bool_use", id(frame.node), name)
    if key not in cache:
        cache[key] = any(_bool_use(n, name) for n in ast.walk(frame.node))
    return cache[key]


def _is_name(node, name: str) -> bool:
    return type(node) is ast.Name and node.id == name


def _bool_use(n, name: str) -> bool:
    t = type(n)
    if t is ast.Compare:
        # `name.dtype == torch.bool`: the function handles the name being a mask.
        return len(n.ops) == 1 and type(n.ops[0]) in (ast.Eq, ast.Is) and any(
            type(a) is ast.Attribute and a.attr == "dtype" and _is_name(a.value, name) and
            type(b) is ast.Attribute and b.attr == "bool"
            for a, b in ((n.left, n.comparators[0]), (n.comparators[0], n.left)))
    if t is ast.UnaryOp:
        return type(n.op) is ast.Invert and _is_name(n.operand, name)
    if t is ast.BinOp:
        return type(n.op) in (ast.BitAnd, ast.BitOr, ast.BitXor) and \
            (_is_name(n.left, name) or _is_name(n.right, name))
    if t is ast.Call and type(n.func) is ast.Attribute:
        f = n.func
        if f.attr in _BOOL_METHODS and _is_name(f.value, name):
            return True
        if f.attr in _BOOL_METHODS or f.attr == "where" and len(n.args) == 3:
            return bool(n.args) and _is_name(n.args[0], name)
    return False


_TYPED_TENSOR = re.compile(r"\w+Tensor\b")


def _tensor_parameter(ctx, item) -> bool:
    """`item` is a parameter annotated a plain `Tensor` (`mask_m: torch.Tensor`, optional or
    not) that its function never rebinds: the annotation says tensor, not which dtype, so the
    name may still tell (`LongTensor` and the like say the dtype: no). An item or slice of
    one (`padding_mask[:, 1:]`) has its dtype."""
    item = _root(item)[0]
    if type(item) is not ast.Name:
        return False
    frame = function_of(ctx)
    if frame is None:
        return False
    cache = ctx.analyzer.__dict__.setdefault("_binding_cache", {})
    key = ("tensor_param", id(frame.node), item.id)
    if key not in cache:
        args = frame.node.args
        arg = next((a for a in args.posonlyargs + args.args + args.kwonlyargs
                    if a.arg == item.id), None)
        text = ast.unparse(arg.annotation) if arg is not None and arg.annotation else ""
        cache[key] = bool(re.search(r"\bTensor\b", text)) and not _TYPED_TENSOR.search(text) \
            and not any(type(n) is ast.Name and n.id == item.id and type(n.ctx) is not ast.Load
                        for st in frame.node.body for n in ast.walk(st))
    return cache[key]


def _converted(ctx, item):
    """What a conversion that keeps the dtype converts (`torch.as_tensor(keep, device=d)`,
    `keep.to(d)`, `keep.contiguous()`): the name keeps its say through it."""
    while type(item) is ast.Call and not any(k.arg == "dtype" for k in item.keywords):
        f = item.func
        q = ctx.analyzer.qualname(f) if type(f) in (ast.Name, ast.Attribute) else None
        if q is not None and q.startswith("torch.") and q[6:] in _CONVERSIONS and item.args \
                and len(item.args) == 1:
            item = item.args[0]
        elif type(f) is ast.Attribute and (q is None or not q.startswith("torch.")) and \
                f.attr in _CONVERSIONS and not any(
                    type(a) in (ast.Attribute, ast.Name) and
                    (ctx.analyzer.qualname(a) or "").startswith("torch.") and
                    not (ctx.analyzer.qualname(a) or "").startswith("torch.device")
                    for a in item.args):
            item = f.value                  # `.to(device)`, not `.to(torch.long)`
        else:
            break
    return item


# Conversions that keep what a tensor holds and its dtype (unless `dtype=` says otherwise).
_CONVERSIONS = frozenset({"as_tensor", "asarray", "to", "cuda", "contiguous", "detach", "clone"})


def _mask_by_name(ctx, item) -> bool:
    if type(item) in (ast.Slice, ast.Constant) or type(item) is ast.Starred:
        return False
    item = _converted(ctx, item)
    k = ctx.kind(item)
    if k & (BOOL | K.HOST | K.SHAPE | K.ARRAY):
        return False                      # the code says what it is: not for names to say
    if K.level(k) not in (UNKNOWN, PROBABLE) and not _tensor_parameter(ctx, item):
        return False
    node, name = _root(item)
    if node is None:
        return False
    if _bound_to_index_call(ctx, node):
        return False
    parts = _parts(name)
    if not any(p in _INDEX_WORDS for p in parts):
        if any(p in _MASK_WORDS for p in parts):
            return True
        if type(node) is ast.Name and any(p in _AMBIGUOUS_WORDS for p in parts) and \
                _used_as_bool(ctx, node.id):
            return True
    return type(node) is ast.Name and every_binding(ctx, node, _predicate_result, "predicate_call")


@predicate()
def named_mask(ctx, node):
    """Weak evidence (the finding is `likely`): the index, or an item of a tuple index, has no known dtype but its name says mask (`fg_mask`, `self.mask[b]`; not `mask_idx`, `mask_slice`), or it is a local `keep`/`valid` (not `keep_inds`, `valid_len`) that the function also uses as a bool (`~keep`, `valid.any()`, `keep & m`), or every assignment of it is a predicate-named call (`oriented = sample_is_valid(...)`); never a name bound from a call that gives positions (`keep = nms(...)`, `topk`, `argsort`, `nonzero`)."""
    sub = ctx.node if type(ctx.node) is ast.Subscript and ctx.node.slice is node else None
    items = node.elts if sub is not None and type(node) is ast.Tuple else (node,)
    if any(_mask_by_name(ctx, item) for item in items):
        ctx.weak = True
        return True
    return False
