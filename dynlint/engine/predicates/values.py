"""Predicates about what a value is: a tensor (certain, probable, possible), a host value, a
boolean mask, a data-dependent slice bound, a literal, a loaded name."""
from __future__ import annotations

import ast

from ...analysis import kinds as K
from ...analysis.evidence import tensor_by_evidence
from ...analysis.hostmem import copy_source
from ...analysis.kinds import BOOL, HOST, PROBABLE, TENSOR, UNKNOWN
from ...analysis.tensor_api import TENSOR_NAMES
from ..patterns import same_code
from .bindings import host_read_here
from .context import COMPARE_OPS, contains
from .registry import predicate


@predicate()
def tensor(ctx, node):
    """The expression certainly evaluates to a tensor (torch call, tensor method, tensor arithmetic, `Tensor`-annotated parameter)."""
    return K.level(ctx.kind(node)) == TENSOR and not ctx.kind(node) & HOST


@predicate()
def probable_tensor(ctx, node):
    """The expression is a tensor or probably one (e.g. an unannotated parameter of `forward`, a submodule's output)."""
    return K.level(ctx.kind(node)) >= PROBABLE


@predicate()
def tensor_operand(ctx, node):
    """A tensor, probably one, or a name that the function's own code proves to hold one: a tensor-only method is called on it (`t.ne(pad)`, `x.view(-1)`), it is the input of a torch function (`torch.gather(a, ...)`), or, in a module that does not import numpy, it is indexed by a torch boolean mask. For fixes in unannotated functions."""
    if K.level(ctx.kind(node)) >= PROBABLE:
        return True
    t = type(node)
    if t is ast.Compare:             # `x > 0`, `t != pad` of such a name is a tensor too
        return any(tensor_operand(ctx, o) for o in [node.left, *node.comparators])
    if t is ast.BinOp:
        return tensor_operand(ctx, node.left) or tensor_operand(ctx, node.right)
    if t is ast.UnaryOp and type(node.op) is not ast.Not:
        return tensor_operand(ctx, node.operand)
    if t is ast.Call and type(node.func) is ast.Attribute and node.func.attr in TENSOR_NAMES \
            and node.func.attr not in K.NOT_TENSOR_METHODS and node.func.attr not in K.HOST_METHODS:
        return tensor_operand(ctx, node.func.value)
    return tensor_by_evidence(ctx.analyzer, node, ctx.frame.node if ctx.frame is not None else None)


@predicate()
def boolean_expression(ctx, node):
    """A comparison (`c != -1`), or `~`/`&`/`|`/`^` of such expressions, or a boolean mask: a value of bool dtype whatever its operands are."""
    t = type(node)
    if t is ast.Compare:
        return all(type(o) in COMPARE_OPS for o in node.ops)
    if t is ast.UnaryOp and type(node.op) is ast.Invert:
        return boolean_expression(ctx, node.operand)
    if t is ast.BinOp and type(node.op) in (ast.BitAnd, ast.BitOr, ast.BitXor):
        return boolean_expression(ctx, node.left) and boolean_expression(ctx, node.right)
    return bool_mask(ctx, node)


@predicate()
def chained_tensor_comparison(ctx, node):
    """A chained comparison (`t0 < t < t1`) one of whose links before the last compares a tensor (certainly one): Python evaluates it as `t0 < t and t < t1`, so it tests that link's tensor for truth, wherever the chain's value goes (`on_jump = t0 < t < t0 + dt`)."""
    if type(node) is not ast.Compare or len(node.ops) < 2:
        return False
    operands = [node.left, *node.comparators]
    for i, op in enumerate(node.ops[:-1]):
        if type(op) not in COMPARE_OPS:
            continue
        for o in operands[i:i + 2]:
            k = ctx.kind(o)
            if K.level(k) == TENSOR and not k & HOST:
                return True
    return False


@predicate()
def possible_tensor(ctx, node):
    """Nothing shows that the expression is *not* a tensor (it is not a literal, a shape, a numpy array, a Python number...)."""
    return K.level(ctx.kind(node)) >= UNKNOWN


@predicate()
def host_value(ctx, node):
    """A Python value computed from tensor data: the result of `.item()`, `.tolist()`, `int(t)`, or arithmetic on those."""
    return bool(ctx.kind(node) & HOST)


@predicate()
def host_tensor(ctx, node):
    """A tensor in host memory: built by a torch factory without `device=` (`torch.arange(n)`, `torch.full(shape, v)`, `torch.tensor([1, 2])`), or computed only from such tensors and Python values (`v1 < v2`, `grid[0, k]`, `torch.stack((a, b))`), and never moved (`.to(device)`, `.cuda()`, `*_like` of a device tensor, a `with torch.device(...)` block). Reading it waits for no device, and a data-dependent op on it is CPU work outside the device graph (under torch.compile still a graph break). Attributes never count: a buffer moves with its module."""
    return bool(ctx.kind(node) & K.CPU)


@predicate()
def read_from_device(ctx, node):
    """Always holds; for a host tensor (see `host_tensor`) it holds on weak evidence, so the finding is `likely`: reading host memory waits for no device (no sync on CUDA, Gaudi or XLA), but under torch.compile the read is still a graph break, and a run on the CPU records it like any other read."""
    if host_memory_read(ctx, node):
        ctx.weak = True
    return True


@predicate()
def host_memory_read(ctx, node):
    """Reading the tensor reads host memory only: it is a host tensor (see `host_tensor`) and no device copy is read on the way (`d.detach().cpu().tolist()` reads `d`: the copy is the device read)."""
    return bool(ctx.kind(node) & K.CPU and ctx.kind(copy_source(node)) & K.CPU)


@predicate()
def bool_mask(ctx, node):
    """A boolean tensor: a comparison, `~`/`&`/`|` of masks, `.bool()`, `isnan`, `logical_*`, `dtype=torch.bool`, ... followed through local assignments. Used as the index of a subscript, a tuple index counts when any of its items is a mask, and a comparison involving the indexed value itself (`x[x > 0]`) counts."""
    sub = ctx.node if type(ctx.node) is ast.Subscript and ctx.node.slice is node else None
    items = node.elts if sub is not None and type(node) is ast.Tuple else (node,)
    return any(_is_mask(ctx, item, sub) for item in items)


def _is_mask(ctx, node, sub) -> bool:
    k = ctx.kind(node)
    if k & BOOL and K.level(k) >= PROBABLE:
        return True
    if sub is not None and k & BOOL and K.level(k) == UNKNOWN and type(node) is not ast.Compare \
            and K.level(ctx.kind(sub.value)) >= PROBABLE:
        # Elementwise comparison of values of unknown type, kept (`(iou <= t).flatten()`),
        # indexing a tensor: a bool array or tensor selects either way.
        return True
    if sub is not None and k & BOOL and K.level(k) == K.NOT and type(node) is not ast.Compare \
            and K.level(ctx.kind(sub.value)) >= PROBABLE:
        # A list of Python bools or a numpy bool array indexing a tensor selects as a mask.
        return True
    if sub is not None and K.level(k) >= UNKNOWN and _bool_by_dtype_test(ctx, node):
        return True
    if sub is None:
        return False
    t = type(node)
    if t is ast.Compare:
        if not (k & BOOL):
            return False                 # `is`, `in`, string comparisons...
        operands = (node.left, *node.comparators)
        return any(same_code(o, sub.value) for o in operands) or \
            K.level(ctx.kind(sub.value)) >= PROBABLE
    if t is ast.UnaryOp and type(node.op) is ast.Invert:
        # `~m` as an index only makes sense for a bool mask: on ints it gives -m-1.
        return K.level(ctx.kind(node.operand)) >= UNKNOWN and _maskish(ctx, node.operand, sub)
    if t is ast.BinOp and type(node.op) in (ast.BitAnd, ast.BitOr, ast.BitXor):
        return _maskish(ctx, node.left, sub) or _maskish(ctx, node.right, sub)
    return False


def _root_name(node):
    """`m` for `m`, `m[0]`, `m[:, i]`: the name whose dtype an item shares."""
    while type(node) is ast.Subscript:
        node = node.value
    return node.id if type(node) is ast.Name else None


def _bool_by_dtype_test(ctx, node) -> bool:
    """Inside `if m.dtype == torch.bool:` (or `is`, or after it in an `and` chain) for the
    name `m` that `node` is or is an item of: the code itself says the value is a bool mask."""
    name = _root_name(node)
    if name is None:
        return False
    child = node
    for anc in reversed(ctx.analyzer.stack):
        t = type(anc)
        if t is ast.BoolOp and type(anc.op) is ast.And:
            for v in anc.values:
                if v is child or contains(v, node):
                    break
                if _is_bool_dtype_test(ctx, v, name):
                    return True
        elif t in (ast.If, ast.IfExp) and not contains(anc.test, node) and \
                (anc.body is child if t is ast.IfExp else any(b is child for b in anc.body)) and \
                _is_bool_dtype_test(ctx, anc.test, name):
            return True
        child = anc
    return False


def _is_bool_dtype_test(ctx, test, name: str) -> bool:
    if type(test) is ast.BoolOp and type(test.op) is ast.And:
        return any(_is_bool_dtype_test(ctx, v, name) for v in test.values)
    if type(test) is not ast.Compare or len(test.ops) != 1 or type(test.ops[0]) not in (ast.Eq, ast.Is):
        return False
    a, b = test.left, test.comparators[0]
    for dtype, other in ((a, b), (b, a)):
        if type(dtype) is ast.Attribute and dtype.attr == "dtype" and type(dtype.value) is ast.Name \
                and dtype.value.id == name and type(other) in (ast.Attribute, ast.Name):
            return ctx.analyzer.qualname(other) in K.BOOL_DTYPE_NAMES
    return False


def _maskish(ctx, node, sub) -> bool:
    if type(node) in (ast.Name, ast.Attribute) and K.level(ctx.kind(node)) >= UNKNOWN:
        return True
    return _is_mask(ctx, node, sub)


@predicate()
def data_dependent_slice(ctx, node):
    """A subscript index holding a slice whose start, stop or step is a tensor (read on the host right there: `x[: mask.sum()]`) or a host value computed from tensor data that arrives from outside the function (a parameter, an attribute, a helper's return: `x[:n]` with `n` a `max_len` the caller read); in a write (`out[i, :n] = y`), only a tensor bound. A host value read from a tensor in the same function (`n = t.item()` or `int(t.max())` earlier) was reported where it was read: the slice is its consequence, not a second cause. A slice of constant width (`x[i:i + 1]`, `x[n - 2:n]`) has a static shape whatever its offset, so it does not count."""
    # In a write (`out[i, :olen] = y`) only a tensor bound counts: it is read on the host right
    # there. A host value read earlier was reported where it was read (host_read_here).
    sub = ctx.node
    written = type(sub) is ast.Subscript and sub.slice is node and not loaded(ctx, sub)
    return _slice_bound(ctx, node, host_too=not written)


@predicate()
def tensor_slice_bound(ctx, node):
    """A subscript index holding a slice whose start, stop or step is a tensor on the device
    (`layers[:n]` with `n` a tensor): a Python sequence converts each bound with
    `operator.index`, a host read, whatever the slice's width."""
    return any(_device_tensor(ctx.kind(b)) for b in _slice_bounds(node, constant_width=True))


def _slice_bound(ctx, node, host_too: bool) -> bool:
    host = []
    for bound in _slice_bounds(node, constant_width=False):
        k = ctx.kind(bound)
        if _device_tensor(k):
            return True
        if host_too and k & HOST:
            host.append(bound)
    # The root cause is reported once: a host value read in this function, where it was read.
    return any(not host_read_here(ctx, b) for b in host)


def _device_tensor(k) -> bool:
    return K.level(k) == TENSOR and not k & HOST


def _slice_bounds(node, constant_width: bool):
    """The start, stop and step of each slice in a subscript index; of the slices of constant
    width too, or not (`_constant_width`)."""
    items = node.elts if type(node) is ast.Tuple else (node,)
    for item in items:
        if type(item) is ast.Slice and (constant_width or not _constant_width(item)):
            for bound in (item.lower, item.upper, item.step):
                if bound is not None:
                    yield bound


def _constant_width(item: ast.Slice) -> bool:
    """`a:a + k` or `b - k:b` with an int literal `k` and no step: the slice always has `k` items
    (when in bounds), so only its offset depends on the data."""
    lo, hi = item.lower, item.upper
    if item.step is not None or lo is None or hi is None:
        return False

    def offset(expr, base, op) -> bool:
        if type(expr) is not ast.BinOp or type(expr.op) is not op:
            return False
        sides = [(expr.left, expr.right)] + ([(expr.right, expr.left)] if op is ast.Add else [])
        return any(type(k) is ast.Constant and type(k.value) is int and ast.dump(b) == ast.dump(base)
                   for b, k in sides)
    return offset(hi, lo, ast.Add) or offset(lo, hi, ast.Sub)


@predicate()
def literal(ctx, node):
    """A literal constant (number, string, `True`, `None`), possibly negated."""
    if type(node) is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        node = node.operand
    return type(node) is ast.Constant


@predicate()
def string_literal(ctx, node):
    """A string literal or an f-string (the template of `"..." % x` or `"...".format(x)`)."""
    return type(node) is ast.JoinedStr or type(node) is ast.Constant and type(node.value) is str


@predicate()
def negative_literal(ctx, node):
    """A negated number literal (`-1`): the "infer it" value of arguments such as `num_classes`."""
    return type(node) is ast.UnaryOp and type(node.op) is ast.USub and \
        type(node.operand) is ast.Constant and type(node.operand.value) in (int, float)


@predicate()
def loaded(ctx, node):
    """The expression is read. Plain assignment targets (`x[m] = 0`) are not; augmented ones (`x[m] += 1`) are, since they read first."""
    ctx_type = type(getattr(node, "ctx", None))
    if ctx_type is ast.Load:
        return True
    return type(ctx.parent) is ast.AugAssign and ctx.parent.target is node
