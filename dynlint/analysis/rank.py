"""One-dimensional tensors (the `VEC` kind flag), known from the code that builds them.

Ranks are not tracked in general; this keeps one fact that decides host reads: an item of a
1-d tensor taken by a Python int (`groups[0]`, `lens[i]`), or one iteration over it, is a 0-d
tensor (`SCALAR`), which Python reads back when it is used as an index, a range bound or a
condition. Only code that fixes the rank gives the flag: a 1-d factory (`torch.arange`,
`linspace`, `randperm`, `bincount`), a flattening (`x.flatten()`, `x.view(-1)`,
`masked_select`), the values and counts of `unique` without `dim`, the positions of
`nonzero(as_tuple=True)` or one-argument `where`; element-wise math and cumulative sums keep it,
as do slices, masks and 1-d gathers of it. A shape's items are ints (`SHAPE`), never this.
Tensors in host memory (`CPU`: `torch.arange(n)` without a device) get no 0-d items from it:
reading them waits for no device (the loop `for i in torch.arange(n)` of a CPU range is a host
loop), so the rank adds no finding there.
"""
from __future__ import annotations

import ast

from . import kinds as K
from .bindings import int_form, int_valued
from .kinds import BOOL, HOLDS, HOST, NOT, PROBABLE, SCALAR, SHAPE, TENSOR, UNKNOWN, VEC

# torch functions whose result is 1-d whatever their arguments' shapes.
_FACTORIES = frozenset({"arange", "range", "linspace", "logspace", "randperm", "bincount",
                        "masked_select", "histc"})
# Functions and methods that keep a 1-d input 1-d (element-wise, cumulative, reordering).
_KEEP = K.SHAPE_PRESERVING | frozenset("""
cumsum cumprod flip roll diff masked_fill where add sub mul div true_divide floor_divide
remainder fmod minimum maximum bool neg abs_ clamp_ add_ sub_ mul_ div_
""".split())
# Flattenings with these arguments only give a 1-d result.
_FLATTEN = frozenset({"flatten", "ravel"})


def torch_call(analyzer, name: str, node: ast.Call) -> int:
    """VEC for a torch function whose result is 1-d by the code (`torch.arange(n)`,
    `torch.flatten(x)`, `torch.cumsum(v, 0)` of a 1-d `v`)."""
    args = node.args
    if name in _FACTORIES:
        return VEC
    if name in _FLATTEN:
        return VEC if len(args) == 1 and not node.keywords else 0
    if name in ("tensor", "as_tensor") and args and type(args[0]) in (ast.List, ast.Tuple):
        # A flat literal of Python numbers or 0-d tensors.
        elts = args[0].elts
        return VEC if elts and all(_element(analyzer, e) for e in elts) else 0
    if name in _KEEP and name != "where" and args and type(args[0]) is not ast.Starred:
        # (one-argument `torch.where(c)` is a tuple of position tensors, no 1-d tensor)
        return VEC if analyzer.kind(args[0]) & VEC and _broadcasts_to_vector(
            analyzer, args[1:]) else 0
    return 0


def method(analyzer, name: str, base: int, node: ast.Call) -> int:
    """VEC for a tensor method whose result is 1-d by the code (`x.flatten()`, `x.view(-1)`,
    `v.cumsum(0)`, `v.float()` of a 1-d `v`)."""
    args = node.args
    if name in _FLATTEN or name in ("view", "reshape"):
        if name in _FLATTEN and not args and not node.keywords:
            return VEC
        if len(args) == 1 and not node.keywords and _minus_one(args[0]):
            return VEC
        return 0
    if name == "masked_select":
        return VEC
    if base & VEC and name in _KEEP and _broadcasts_to_vector(analyzer, args):
        return VEC
    return 0


def unique_items(analyzer, node: ast.Call, receiver: ast.AST | None):
    """The items' kinds of `torch.unique(x, return_inverse=..., return_counts=...)` without
    `dim`: the values and the counts are 1-d, the inverse has the input's shape. None where
    the call returns one tensor or the flags are not literal."""
    args = node.args if receiver is not None else node.args[1:]
    if args or any(k.arg == "dim" or k.arg is None for k in node.keywords):
        return None
    flags = {k.arg: k.value for k in node.keywords if k.arg in ("return_inverse", "return_counts")}
    if not flags or not all(type(v) is ast.Constant and type(v.value) is bool for v in flags.values()):
        return None
    items = [TENSOR | VEC]
    if flags.get("return_inverse") and flags["return_inverse"].value:
        items.append(TENSOR)
    if flags.get("return_counts") and flags["return_counts"].value:
        items.append(TENSOR | VEC)
    return tuple(items) if len(items) > 1 else None


def item(analyzer, base: int, index: ast.AST) -> int:
    """The kind of `v[index]` for a 1-d `v` (`base` has VEC): a Python int gives a 0-d
    tensor, a slice, a mask or a 1-d index tensor a 1-d one; anything else no rank."""
    plain = base & ~(VEC | SHAPE | HOLDS | K.ROW)
    if type(index) is ast.Slice:
        return plain | VEC
    if _python_int(analyzer, index):
        # An item of host memory is read with no device to wait for: no claim (as before).
        return plain | (0 if base & K.CPU else SCALAR)
    k = analyzer.kind(index)
    if K.level(k) >= PROBABLE and not k & HOST and k & (BOOL | VEC):
        return plain | VEC
    return plain


def binop(a: int, b: int) -> int:
    """VEC for arithmetic of a 1-d tensor with numbers, 0-d or 1-d tensors (`counts - 1`)."""
    if not (a | b) & VEC:
        return 0
    return VEC if all(k & (VEC | SCALAR) or K.level(k) <= UNKNOWN for k in (a, b)) else 0


def _broadcasts_to_vector(analyzer, others) -> bool:
    """The other arguments broadcast a 1-d tensor to no more than 1-d: numbers, 0-d or 1-d
    tensors, names of no known tensor (`dim=0` keywords are not among them)."""
    for a in others:
        if type(a) is ast.Starred:
            return False
        k = analyzer.kind(a)
        if K.level(k) >= PROBABLE and not k & (VEC | SCALAR | HOST):
            return False
    return True


def _element(analyzer, node: ast.AST) -> bool:
    if type(node) in (ast.List, ast.Tuple, ast.Starred, ast.ListComp, ast.GeneratorExp):
        return False
    k = analyzer.kind(node)
    return (K.level(k) == NOT and not k & (HOLDS | K.ITEMS | K.ARRAY | SHAPE)) or bool(k & SCALAR)


def _python_int(analyzer, node: ast.AST) -> bool:
    """An index that is a Python int by the code: of an int form (`int_form`: a literal,
    `len(xs) - 1`, `i // 2`), no tensor nor container by its kind, each name in it bound only
    to such forms (`int_valued`)."""
    if not int_form(node) or type(node) is ast.Subscript:
        return False
    if type(node) is ast.Constant:
        return True
    k = analyzer.kind(node)
    if K.level(k) != NOT or k & (HOLDS | K.ITEMS | K.SEQ | K.ARRAY | BOOL):
        return False
    func = analyzer._function_node()
    return all(int_valued(func, n) for n in _operand_names(node))


def _operand_names(node: ast.AST):
    """The names an int expression computes with (`i` and `k` in `i * 2 + k`), not those
    inside calls (`len(xs)` is an int whatever `xs` is)."""
    t = type(node)
    if t is ast.Name:
        yield node.id
    elif t is ast.UnaryOp:
        yield from _operand_names(node.operand)
    elif t is ast.BinOp:
        yield from _operand_names(node.left)
        yield from _operand_names(node.right)
    elif t is ast.IfExp:
        yield from _operand_names(node.body)
        yield from _operand_names(node.orelse)


def _minus_one(node: ast.AST) -> bool:
    return type(node) is ast.UnaryOp and type(node.op) is ast.USub and \
        type(node.operand) is ast.Constant and node.operand.value == 1

