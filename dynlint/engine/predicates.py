"""Named conditions that rules put on metavariables (`where:`) and on whole matches (`when:`).

Each predicate is written once here and documented by its docstring (shown by
`dynlint predicates`). A predicate takes the match context, the node it is applied to and any
literal arguments given in the rule, e.g. ``arg_count(1)`` or ``any_arg(tensor)``.
Rules may negate any predicate: ``not in_cold_code``.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ..analysis import kinds as K
from ..analysis.evidence import tensor_by_evidence
from ..analysis.hostmem import copy_source, names_cpu
from ..analysis.tensor_api import TENSOR_NAMES
from ..analysis.kinds import BOOL, HOST, PROBABLE, TENSOR, UNKNOWN
from ..analysis.oneshot import once_regions
from ..analysis.scopes import in_step_span
from ..analysis.tensor_api import HOST_FACTORIES, SEQUENCE_TYPES, VALIDATED_DISTRIBUTIONS
from .patterns import same_code
from ..analysis.roles import Role

REGISTRY: dict[str, "Predicate"] = {}


@dataclass(frozen=True)
class Predicate:
    name: str
    fn: object
    arity: int              # number of rule-supplied arguments; -1: any
    doc: str
    # For a predicate about where the code is (not what it is): `scope(analyzer, info, *args)`
    # says whether it may hold anywhere inside function `info` (a scopes.FunctionInfo; None:
    # code outside any `def`). False lets the walker skip a body no other rule needs.
    scope: object = None
    # For a predicate that can only hold in a module whose text contains one of these strings
    # (an identifier it resolves to): the engine tries its rules' patterns only there.
    text: tuple | None = None


def predicate(arity: int = 0, scope=None, text=None):
    def register(fn):
        name = fn.__name__.rstrip("_")
        REGISTRY[name] = Predicate(name, fn, arity, (fn.__doc__ or "").strip(), scope,
                                   tuple(text) if text else None)
        return fn
    return register


class MatchContext:
    """What a predicate may look at: the analyzer state, the match and its bindings."""

    __slots__ = ("analyzer", "node", "binds", "parent", "frame", "assume_model", "weak", "library")

    def __init__(self, analyzer, node, binds, parent, frame, assume_model=False):
        self.analyzer, self.node, self.binds = analyzer, node, binds
        self.parent, self.frame = parent, frame
        # Set while collecting findings that count only if another file's model code
        # turns out to call this function (see runner's cross-file step).
        self.assume_model = assume_model
        # Set by a predicate that held on names alone (weak evidence): the finding is `likely`.
        self.weak = False
        # Set by `in_step_code` when only its library scope held (no entry point reaches the
        # function in its file): `likely` too, unless the cross-file step finds a caller.
        self.library = False

    def kind(self, node: ast.AST) -> int:
        k = self.analyzer.kind(node)
        if k and type(node) in (ast.Name, ast.Attribute) and _has_isinstance(self.analyzer) \
                and _checked_not_tensor(self, node):
            return K.NOT
        return k


# Types an `isinstance` test may name that rule a tensor out in the branch it guards.
_NON_TENSOR_TYPES = frozenset({"list", "tuple", "dict", "set", "int", "float", "bool", "str",
                               "bytes", "complex", "np.ndarray", "numpy.ndarray", "Number",
                               "numbers.Number", "Sequence", "abc.Sequence"})


def _has_isinstance(analyzer) -> bool:
    """Whether the module mentions `isinstance(` at all (read once per module)."""
    found = getattr(analyzer, "_isinstance_seen", None)
    if found is None or found[0] is not analyzer.lines:
        found = (analyzer.lines, any("isinstance(" in line for line in analyzer.lines))
        analyzer._isinstance_seen = found
    return found[1]


def _checked_not_tensor(ctx, node, types=_NON_TENSOR_TYPES) -> bool:
    """`node` sits in the branch an `isinstance(node, <non-tensor types>)` test guards:
    `a if isinstance(x, list) else b`, `if isinstance(x, (list, tuple)): ...`,
    `isinstance(x, int) and ...`. Such a value is not a tensor there, whatever else the
    code shows about it (a `self.` attribute assigned a tensor elsewhere, say). With `types`,
    the test names only those (`list`, `tuple`: a Python sequence there)."""
    child = ctx.node
    for owner in _ancestors(ctx):
        t = type(owner)
        if t is ast.IfExp or t is ast.If:
            if any(child is c for c in ([owner.body] if t is ast.IfExp else owner.body)) \
                    and _isinstance_of(owner.test, node, types):
                return True
        elif t is ast.BoolOp and type(owner.op) is ast.And:
            for v in owner.values:
                if v is child:
                    break
                if _isinstance_of(v, node, types):
                    return True
        child = owner
    return False


def _isinstance_of(test, node, types=_NON_TENSOR_TYPES) -> bool:
    if type(test) is not ast.Call or type(test.func) is not ast.Name or \
            test.func.id != "isinstance" or len(test.args) != 2 or \
            not same_code(test.args[0], node):
        return False
    kinds = test.args[1]
    names = kinds.elts if type(kinds) is ast.Tuple else [kinds]
    return all(ast.unparse(n) in types for n in names)


# -- what a value is --------------------------------------------------------------------
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
        return all(type(o) in _COMPARE_OPS for o in node.ops)
    if t is ast.UnaryOp and type(node.op) is ast.Invert:
        return boolean_expression(ctx, node.operand)
    if t is ast.BinOp and type(node.op) in (ast.BitAnd, ast.BitOr, ast.BitXor):
        return boolean_expression(ctx, node.left) and boolean_expression(ctx, node.right)
    return bool_mask(ctx, node)


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
    if ctx.kind(node) & K.CPU and ctx.kind(copy_source(node)) & K.CPU:
        ctx.weak = True         # (`d.detach().cpu().item()` reads `d`: the copy is the device read)
    return True


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
                if v is child or _contains(v, node):
                    break
                if _is_bool_dtype_test(ctx, v, name):
                    return True
        elif t in (ast.If, ast.IfExp) and not _contains(anc.test, node) and \
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
    """A subscript index holding a slice whose start, stop or step is a tensor or a host value computed from tensor data (`x[:n]` with `n = t.item()`); in a write (`out[i, :n] = y`), only a tensor bound, read right there. A slice of constant width (`x[i:i + 1]`, `x[n - 2:n]`) has a static shape whatever its offset, so it does not count."""
    # In a write (`out[i, :olen] = y`) only a tensor bound counts: it is read on the host right
    # there. A host value read earlier was reported where it was read.
    sub = ctx.node
    written = type(sub) is ast.Subscript and sub.slice is node and not loaded(ctx, sub)
    return _slice_bound(ctx, node, host_too=not written)


def _slice_bound(ctx, node, host_too: bool) -> bool:
    items = node.elts if type(node) is ast.Tuple else (node,)
    for item in items:
        if type(item) is ast.Slice and not _constant_width(item):
            for bound in (item.lower, item.upper, item.step):
                if bound is not None:
                    k = ctx.kind(bound)
                    if (host_too and k & HOST) or (K.level(k) == TENSOR and not k & HOST):
                        return True
    return False


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


# -- calls ------------------------------------------------------------------------------
@predicate(arity=1)
def arg_count(ctx, node, n):
    """The call has exactly `n` positional arguments and no `*args`."""
    return type(node) is ast.Call and len(node.args) == int(n) and \
        not any(type(a) is ast.Starred for a in node.args)


@predicate(arity=1)
def min_args(ctx, node, n):
    """The call has at least `n` positional arguments."""
    return type(node) is ast.Call and len(node.args) >= int(n)


@predicate(arity=-1)
def kw_absent(ctx, node, *names):
    """None of the named keyword arguments is passed (and no `**kwargs` that could hold them)."""
    if type(node) is not ast.Call:
        return False
    given = {k.arg for k in node.keywords}
    return None not in given and not given.intersection(names)


@predicate(arity=-1)
def kw_unset(ctx, node, *names):
    """Each named keyword argument is absent, `None`, or a parameter of the enclosing function
    that defaults to `None` and is never rebound (`output_size=output_size` of a helper
    written to be called without it: the value may well be None); no `**kwargs`."""
    if type(node) is not ast.Call:
        return False
    func = None
    for k in node.keywords:
        if k.arg is None:
            return False
        if k.arg not in names or type(k.value) is ast.Constant and k.value.value is None:
            continue
        if type(k.value) is not ast.Name:
            return False
        if func is None:
            frame = _function_of(ctx)
            if frame is None:
                return False
            func = frame.node
        if not _none_default_param(func, k.value.id):
            return False
    return True


def _none_default_param(func, name: str) -> bool:
    """`name` is a parameter of `func` with the default `None`, not rebound in its body."""
    args = func.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults)) + \
        list(zip(args.kwonlyargs, args.kw_defaults))
    if not any(a.arg == name and type(d) is ast.Constant and d.value is None for a, d in pairs):
        return False
    return not any(type(n) is ast.Name and n.id == name and type(n.ctx) is not ast.Load
                   for st in func.body for n in ast.walk(st))


@predicate(arity=-1)
def kw_present(ctx, node, *names):
    """At least one of the named keyword arguments is passed."""
    return type(node) is ast.Call and any(k.arg in names for k in node.keywords)


@predicate(arity=2)
def kw_literal(ctx, node, name, value):
    """Keyword argument `name` is passed as the literal `value` (`kw_literal(shuffle, True)`)."""
    if type(node) is not ast.Call:
        return False
    for k in node.keywords:
        if k.arg == name:
            return type(k.value) is ast.Constant and type(k.value.value) is type(value) \
                and k.value.value == value
    return False


@predicate(arity=2)
def arg(ctx, node, index, pred):
    """Positional argument `index` (0-based) exists and satisfies predicate `pred`."""
    if type(node) is not ast.Call or len(node.args) <= int(index):
        return False
    return _apply(ctx, pred, node.args[int(index)])


@predicate(arity=1)
def any_arg(ctx, node, pred):
    """Some argument of the call (positional, keyword, or an item of a tuple/list argument) satisfies predicate `pred`; `out=`, `device=`, `dtype=` and the like say where a result goes, not what it is, and do not count."""
    if type(node) is not ast.Call:
        return False
    values = list(node.args) + [k.value for k in node.keywords
                                if k.arg is not None and k.arg not in _PLACEMENT_KEYWORDS]
    for v in values:
        items = v.elts if type(v) in (ast.Tuple, ast.List) else (v,)
        if any(type(i) is not ast.Starred and _apply(ctx, pred, i) for i in items):
            return True
    return False


_PLACEMENT_KEYWORDS = frozenset({"out", "device", "dtype", "layout", "generator",
                                 "requires_grad", "pin_memory", "memory_format"})


def _apply(ctx, name, node) -> bool:
    p = REGISTRY.get(str(name))
    if p is None or p.arity not in (0, -1):
        raise ValueError(f"predicate argument must name a predicate without arguments: {name}")
    return bool(p.fn(ctx, node))


@predicate()
def tensor_element(ctx, node):
    """A 0-d tensor, which Python reads back to an int when it is used as an index: a single element taken from a row of a loop over a tensor (`for row in t: row[0]`) or of positions (`m.nonzero(as_tuple=True)[0][0]`), or, as weaker evidence (the finding is `likely`), a parameter annotated `int | Tensor` (a tensor standing in for a number)."""
    k = ctx.kind(node)
    if not k & K.SCALAR:
        return False
    if K.level(k) < TENSOR:
        ctx.weak = True
    return True


@predicate()
def compares_tensor_element(ctx, node):
    """A comparison (`t > 0`, `num_obs < 2`) that is probably, not certainly, a tensor because one side is a 0-d tensor only probably: a value declared `int | Tensor` (a parameter, a function's return), or a parameter declared a number that callers pass a tensor (see `tensor_element`). Python reads the answer back when it branches; the finding is `likely`."""
    if type(node) is not ast.Compare or any(type(o) in (ast.Is, ast.IsNot, ast.In, ast.NotIn)
                                            for o in node.ops):
        return False
    k = ctx.kind(node)
    if K.level(k) != PROBABLE or k & HOST:
        return False              # a certain tensor is `tensor`'s (no second finding)
    for operand in (node.left, *node.comparators):
        items = ctx.analyzer._items_of(operand) if type(operand) is ast.Name else None
        # (`pad == (0, 0)` of a tuple whose items callers pass as 0-d tensors)
        for o in items if type(items) is tuple else (ctx.kind(operand),):
            if o & K.SCALAR and K.level(o) >= PROBABLE and not o & HOST:
                ctx.weak = True
                return True
    return False


@predicate()
def loop_carried_tensor(ctx, node):
    """A name truth-tested as the first operand of an `or`/`and` whose value is assigned back to it inside a loop (`triggered = triggered or (meas[i] >= level)`), where a later operand is a tensor: from the second iteration on the name holds that tensor, and the test reads it on the host."""
    stack = ctx.analyzer.stack
    if type(node) is not ast.Name or len(stack) < 3 or type(stack[-1]) is not ast.BoolOp or \
            stack[-1].values[0] is not node:
        return False
    assign = stack[-2]
    if type(assign) is not ast.Assign or assign.value is not stack[-1] or \
            not any(type(t) is ast.Name and t.id == node.id for t in assign.targets):
        return False
    for outer in reversed(stack[:-2]):
        if type(outer) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef):
            return False
        if type(outer) in (ast.For, ast.AsyncFor, ast.While):
            break
    else:
        return False
    return any(K.level(k) == TENSOR and not k & HOST for k in map(ctx.kind, stack[-1].values[1:]))


@predicate()
def tensor_items(ctx, node):
    """A generator or list comprehension whose items are tensors (`m.any() for m in masks`): a builtin that truth-tests or compares the items (`any`, `all`, `min`, `max`) reads each one on the host."""
    return type(node) in (ast.GeneratorExp, ast.ListComp) and bool(ctx.kind(node) & K.ITEMS)


@predicate()
def tensor_tuple_items(ctx, node):
    """A generator or list comprehension of tuples with a tensor among their items (`(p, r, t) for p, r, t in zip(precision, recall, thresholds)`): `min`/`max`/`sorted` compare the tuples item by item, `==` then `<` on the tensors, each answer read on the host."""
    if type(node) not in (ast.GeneratorExp, ast.ListComp) or type(node.elt) is not ast.Tuple:
        return False
    with ctx.analyzer.comprehension(node):
        return any(K.level(k) == TENSOR and not k & HOST for k in map(ctx.kind, node.elt.elts))


@predicate()
def holds_tensor(ctx, node):
    """A tensor, or a list/tuple literal (or a name bound to one) with a tensor among its items; a tuple whose items callers pass as 0-d tensors (`pad: tuple[int, int]` given `(max_pad_len, 0)`), by name or unpacked into a literal, on weak evidence (`likely`)."""
    k = ctx.kind(node)
    if (K.level(k) == TENSOR and not k & HOST) or k & K.HOLDS:
        return True
    # A tuple whose items callers pass as 0-d tensors (`pad: tuple[int, int]` given
    # `(max_pad_len, 0)`), by name or unpacked into a literal (`(*zeros, *pad)`): `likely`.
    names = [node] if type(node) is ast.Name else \
        [e.value for e in node.elts if type(e) is ast.Starred and type(e.value) is ast.Name] \
        if type(node) in (ast.Tuple, ast.List) else []
    for name in names:
        items = ctx.analyzer._items_of(name)
        if type(items) is tuple and any(i & K.SCALAR and K.level(i) >= PROBABLE and not i & HOST
                                        for i in items):
            ctx.weak = True
            return True
    return False


# -- what a name was built as: every binding of it in its function (or of `self.attr` in its class) --
def _function_of(ctx):
    """The innermost enclosing `def` frame (lambdas and class bodies have no bindings to scan)."""
    frame = ctx.frame
    while frame is not None and type(frame.node) not in (ast.FunctionDef, ast.AsyncFunctionDef):
        frame = frame.parent
    return frame


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


_HOST_COPY_CHAIN = frozenset({"detach", "float", "double", "half", "long", "int", "bool", "clone",
                              "contiguous", "flatten", "view", "reshape", "squeeze", "unsqueeze"})


@predicate()
def cpu_device(ctx, node):
    """The literal device `"cpu"` (or `"cpu:0"`), or `torch.device("cpu")`."""
    return names_cpu(ctx.analyzer, node)


def _is_host_copy(ctx, node) -> bool:
    while type(node) is ast.Call and type(node.func) is ast.Attribute:
        if _torch_name(ctx, node.func) in HOST_FACTORIES:
            return not any(k.arg == "device" for k in node.keywords)
        attr = node.func.attr
        if attr in ("cpu", "numpy") or (attr == "to" and any(
                cpu_device(ctx, a) for a in [*node.args[:1], *(k.value for k in node.keywords if k.arg == "device")])):
            return True
        if attr not in _HOST_COPY_CHAIN:
            return False
        node = node.func.value
    return False


@predicate()
def host_copy(ctx, node):
    """A tensor already copied to the host: `t.cpu()`, `t.to("cpu")`, `t.numpy()`, followed by casts or views (`t.cpu().float()`), or a local name every assignment of which is one. (Flagging the first copy is enough.)"""
    return _is_host_copy(ctx, node) or _every_binding(ctx, node, _is_host_copy, "host_copy")


@predicate()
def read_on_host_next(ctx, node):
    """The matched value goes, through casts and copies only, straight into `.item()` or `.tolist()` (`t.cpu().item()`, `t.detach().cpu().bool().tolist()`): that read is reported by its own rule."""
    cur = node
    for anc in reversed(ctx.analyzer.stack):
        if anc is node:
            continue
        f = getattr(anc, "func", None)
        if type(anc) is not ast.Call or type(f) is not ast.Attribute or f.value is not cur:
            return False
        if f.attr in ("item", "tolist"):
            return True
        if f.attr not in _HOST_COPY_CHAIN and f.attr not in ("cpu", "numpy", "to"):
            return False
        cur = anc
    return False


@predicate()
def argument_of_dynamic_op(ctx, node):
    """The matched value is passed straight to a data-dependent op (`torch.unique(x.cpu())`, `nonzero`, `bincount`, NMS...): the op's own rule reports that line, and moving such an op to the CPU is the usual deliberate fallback."""
    for anc in reversed(ctx.analyzer.stack):
        if anc is node:
            continue
        if type(anc) is not ast.Call or not any(a is node for a in anc.args):
            return False
        f = anc.func
        last = f.attr if type(f) is ast.Attribute else f.id if type(f) is ast.Name else None
        return last in _DYNAMIC_CALLS
    return False


@predicate(text=("distributions",))       # the qualified name has it: `torch.distributions.`
def validated_distribution(ctx, node):
    """A `torch.distributions` class (or a call of one) whose constructor validates its arguments by default (`Normal`, `Categorical`, ...; not `Independent` or `TransformedDistribution`, which have none), in a module that does not turn validation off with `Distribution.set_default_validate_args(False)`."""
    if type(node) is ast.Call:
        node = node.func
    q = ctx.analyzer.qualname(node) if type(node) in (ast.Name, ast.Attribute) else None
    if not q or not q.startswith("torch.distributions.") or q.rsplit(".", 1)[-1] not in VALIDATED_DISTRIBUTIONS:
        return False
    cache = ctx.analyzer.__dict__.setdefault("_binding_cache", {})
    if "validation_off" not in cache:
        cache["validation_off"] = any("set_default_validate_args(False)" in line for line in ctx.analyzer.lines)
    return not cache["validation_off"]


@predicate()
def in_raise(ctx, node):
    """Inside a `raise` statement, the message of an `assert`, or a branch that always ends by raising (`if bad.any(): first = boxes[i].tolist(); raise ValueError(...)`, or `torch._assert(False, ...)`): code that only runs on the error path."""
    stack = ctx.analyzer.stack
    for i, a in enumerate(stack):
        t = type(a)
        if t is ast.Raise or (t is ast.Assert and a.msg is not None and _contains(a.msg, node)):
            return True
        if t is ast.If and i + 1 < len(stack):
            child = stack[i + 1]
            for block in (a.body, a.orelse):
                if block and any(s is child for s in block) and _always_raises(ctx, block[-1]):
                    return True
    return False


def _always_raises(ctx, st) -> bool:
    """`raise ...`, `assert False, ...` or `torch._assert(False, ...)`."""
    t = type(st)
    if t is ast.Raise:
        return True
    test = st.test if t is ast.Assert else None
    if t is ast.Expr and type(st.value) is ast.Call and st.value.args and \
            (ctx.analyzer.qualname(st.value.func) or "").endswith("._assert"):
        test = st.value.args[0]
    return type(test) is ast.Constant and test.value is False


# Calls that are true while torch compiles, exports, scripts or traces the code. Matched by the
# callee's last name so that re-exports (`torch.compiler.is_compiling`, `torch._dynamo.is_compiling`,
# `transformers.utils.is_torchdynamo_compiling`) are all seen, whatever the import path.
# `torch._C._get_tracing_state()` is what `torch.jit.is_tracing()` reads: None unless tracing.
_GRAPH_GUARDS = frozenset({"is_compiling", "is_dynamo_compiling", "is_torchdynamo_compiling", "is_exporting",
                           "is_scripting", "is_tracing", "is_fx_tracing", "is_in_onnx_export",
                           "_get_tracing_state"})


def _guard_implies(ctx, test, value: bool, compiling: bool) -> bool:
    """`test` evaluating to `value` implies that the code is (`compiling`) or is not being
    compiled or traced."""
    t = type(test)
    if t is ast.UnaryOp and type(test.op) is ast.Not:
        return _guard_implies(ctx, test.operand, not value, compiling)
    if t is ast.BoolOp:
        # `a and b` true: every operand true; false: at least one false (so all must imply it)
        every = (type(test.op) is ast.And) == value
        results = (_guard_implies(ctx, v, value, compiling) for v in test.values)
        return any(results) if every else all(results)
    if t is ast.Call and not test.args and not test.keywords:
        name = ctx.analyzer.qualname(test.func) or _last_name(test.func) or ""
        return value is compiling and name.rsplit(".", 1)[-1] in _GRAPH_GUARDS
    return False


@predicate()
def compile_only(ctx, node):
    """Only reached while the code is compiled, exported, scripted or traced: in the body of `if torch.compiler.is_compiling():` (or `torch.jit.is_tracing()`, ...) or the `else` of the negative test. There `torch._check(...)` is a hint to the compiler, not a read."""
    return _under_graph_guard(ctx, node, True)


@predicate()
def eager_only(ctx, node):
    """Only reached when the code is not being compiled, exported, scripted or traced: in the body of `if not torch.compiler.is_compiling():` (or `is_exporting()`, `torch.jit.is_scripting()`, `torch.jit.is_tracing()`, `torch._dynamo.is_compiling()`...) or the `else` of the positive test. Such code never becomes part of a graph."""
    return _under_graph_guard(ctx, node, False)


def _under_graph_guard(ctx, node, compiling: bool) -> bool:
    """`node` sits in a branch of an `if` (statement or expression) whose test, taking that
    branch, implies the code is (`compiling`) or is not being compiled or traced."""
    if not _mentions(ctx.analyzer, _GRAPH_GUARDS):
        return False
    child = node
    for anc in reversed(ctx.analyzer.stack):
        if type(anc) in (ast.If, ast.IfExp):
            body = anc.body if type(anc) is ast.IfExp else None
            in_body = (body is not None and _contains(body, node)) or \
                (body is None and any(b is child or _contains(b, node) for b in anc.body))
            in_else = _contains(anc.orelse, node) if type(anc) is ast.IfExp else \
                any(b is child or _contains(b, node) for b in anc.orelse)
            if in_body and _guard_implies(ctx, anc.test, True, compiling) and \
                    not _contains(anc.test, node):
                return True
            if in_else and _guard_implies(ctx, anc.test, False, compiling):
                return True
        child = anc
    return False


def once_only(ctx, node):
    """Runs once per object, not per step: in a method after `if self.X: return`, or in the
    body of `if not self.X:`, where the method itself sets `self.X` (lazy initialisation on
    the first forward). The guard's own test runs every call and is not part of it."""
    frame = ctx.frame
    while frame is not None and type(frame.node) is ast.Lambda:
        frame = frame.parent
    fnode = frame.node if frame is not None else None
    if type(fnode) not in (ast.FunctionDef, ast.AsyncFunctionDef) or frame.cls is None:
        return False
    cache = ctx.analyzer.__dict__.setdefault("_once_cache", {})
    regions = cache.get(id(fnode))
    if regions is None:
        regions = cache[id(fnode)] = once_regions(fnode)
    return any(_contains(stmt, node) for _, stmts in regions for stmt in stmts)


def outside_step(ctx, node):
    """Code that runs in the model's methods but not as part of a step: eager-only branches
    (`eager_only`) and once-per-object initialisation (`once_only`)."""
    return eager_only(ctx, node) or once_only(ctx, node)


@predicate()
def fp16_only(ctx, node):
    """Only reached when a tensor is float16: under `if x.dtype == torch.float16:` or after such a test earlier in the same `and` chain (fp16 overflow guards)."""
    if not (_mentions(ctx.analyzer, ("dtype",)) and _mentions(ctx.analyzer, _FP16_NAMES)):
        return False
    stack = ctx.analyzer.stack
    child = node
    for anc in reversed(stack):
        t = type(anc)
        if t is ast.BoolOp and type(anc.op) is ast.And:
            for v in anc.values:
                if v is child or _contains(v, node):
                    break
                if _is_fp16_test(ctx, v):
                    return True
        elif t is ast.If and child is not anc.test and not _contains(anc.test, node) \
                and any(b is child for b in anc.body) and _is_fp16_test(ctx, anc.test):
            return True
        child = anc
    return False


_FP16_NAMES = ("float16", "half")


def _mentions(analyzer, words) -> bool:
    """Whether the module's text holds one of `words` (cached per module): a test that needs
    a name (`is_compiling`, `float16`) cannot hold in a module that never writes it."""
    cache = analyzer.__dict__.setdefault("_mentions_cache", {})
    found = cache.get(words)
    if found is None:
        text = cache.get(None)
        if text is None:
            text = cache[None] = "\n".join(analyzer.lines)
        found = cache[words] = any(w in text for w in words)
    return found


def _contains(tree, node) -> bool:
    """`node` lies within `tree`, by source position (cheaper than walking the tree)."""
    start = (tree.lineno, tree.col_offset)
    end = (tree.end_lineno, tree.end_col_offset)
    return start <= (node.lineno, node.col_offset) and (node.end_lineno, node.end_col_offset) <= end


def _is_fp16_test(ctx, test) -> bool:
    if type(test) is ast.BoolOp and type(test.op) is ast.And:
        return any(_is_fp16_test(ctx, v) for v in test.values)
    if type(test) is not ast.Compare or len(test.ops) != 1 or \
            type(test.ops[0]) not in (ast.Eq, ast.Is):
        return False
    sides = (test.left, test.comparators[0])
    has_dtype = any(type(x) is ast.Attribute and x.attr == "dtype" for x in sides)
    names = {ctx.analyzer.qualname(x) for x in sides if type(x) in (ast.Attribute, ast.Name)}
    return has_dtype and bool(names & {"torch.float16", "torch.half"})


# -- where the code runs (roles come from the scopes pre-pass) --------------------------------------------
@predicate()
def in_model_code(ctx, node):
    """Inside code that runs as part of the model's computation: a `forward` (or `__call__`/`forward_*` of a module), a loss function, a `torch.compile`/`jit.script` function, a helper or method they call in the same file, or a function nested in those."""
    return (ctx.frame.role == Role.MODEL or ctx.assume_model) and not outside_step(ctx, node) \
        and not _outside_training_step(ctx, node)


def _outside_training_step(ctx, node) -> bool:
    """In a function that is model code because it runs a training step of its own
    (`scopes._mark_steps`), but outside that step: before or after its minibatch loop."""
    if ctx.assume_model or ctx.frame.kind != "function":
        return False
    info = ctx.analyzer.frame_info()
    if info is None or not info.steps:
        return False
    return not in_step_span(info, node) or _periodic(ctx, node)


def _periodic(ctx, node) -> bool:
    """Under `if step % log_every == 0:` (a test holding a `%`): logging every few steps,
    whose read is paid once per period, not per step. Not a block that runs a backward pass
    itself (TD3's delayed actor update under `if n % policy_delay == 0:` is a step)."""
    child = node
    for anc in reversed(ctx.analyzer.stack):
        if type(anc) is ast.If and any(b is child for b in anc.body) and any(
                type(n) is ast.BinOp and type(n.op) is ast.Mod for n in ast.walk(anc.test)):
            return not any(type(n) is ast.Call and type(n.func) is ast.Attribute
                           and n.func.attr == "backward" for b in anc.body for n in ast.walk(b))
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        child = anc
    return False


@predicate()
def in_step_code(ctx, node):
    """Inside a function that may run inside the step: model code, or library code that nothing in the file reaches from model code or from cold code only (a scheduler's `step`, a box utility a detector calls from another file). Not module level, class bodies, cold code."""
    if ctx.assume_model or ctx.frame.role == Role.MODEL:
        return (ctx.assume_model or ctx.frame.kind == "function") and not outside_step(ctx, node) \
            and not _outside_training_step(ctx, node)
    if ctx.frame.kind != "function" or ctx.frame.role == Role.COLD or outside_step(ctx, node):
        return False
    # Library code that no entry point reaches: it may run in a step, or may be setup, data
    # or diagnostics; the finding rests on scope alone and is `likely`, not `certain`.
    ctx.library = True
    return True


@predicate()
def in_cold_code(ctx, node):
    """Inside code that never runs inside the model graph and is not called from it: `__init__`, weight initialisation, training/eval loops, data preparation, tests, module level under `if __name__ == "__main__"`, class bodies."""
    return (ctx.frame.role == Role.COLD and not ctx.assume_model) or ctx.frame.kind in ("class", "main") or outside_step(ctx, node) \
        or _outside_training_step(ctx, node)


@predicate()
def in_unrolled_code(ctx, node):
    """Inside model code whose loops have a fixed number of steps that unroll into one graph (a `forward`, a loss, what they call); not a function whose loop feeds what a model returns into the next step (a hand-written decoding or denoising loop, found from the code)."""
    if not (ctx.frame.role == Role.MODEL or ctx.assume_model):
        return False
    info = ctx.analyzer.frame_info()
    return info is None or not (info.drives or info.steps)


@predicate()
def in_function(ctx, node):
    """Inside a function or method body, not at module or class level."""
    return ctx.frame.kind == "function"


@predicate()
def in_loop(ctx, node):
    """Inside the body of a `for`/`while` loop of the same function (not in the loop's header, not in a nested function): the code runs once per iteration."""
    return _innermost_loop(ctx, node)[0] is not None


def _innermost_loop(ctx, node):
    """(loop, the statement of its body holding `node`), or (None, None)."""
    child = node
    for owner in _ancestors(ctx):
        if owner is ctx.frame.node:
            break
        if isinstance(owner, _LOOPS) and any(child is s for s in owner.body):
            return owner, child
        child = owner
    return None, None


@predicate()
def loop_accumulator(ctx, node):
    """A local name that the innermost enclosing loop accumulates into: the matched statement is the only thing in the loop that binds it (not the loop target, no other assignment in the body), so each iteration starts from the previous iteration's result (`x = torch.cat([x, y])` grows `x`; after `x = f(item)` or before `x = layer(x)` it does not)."""
    if type(node) is not ast.Name:
        return False
    loop, holder = _innermost_loop(ctx, node)
    if loop is None or holder is None:
        return False
    if type(loop) is not ast.While and _binds(loop.target, node.id):
        return False
    statement = _last_statement(ctx)
    for st in _statements(loop.body):
        if st is not statement and _binds_here(st, node.id):
            return False
    return not any(_binds(t, node.id) for t in _comprehension_targets(ctx, node))


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
    return {n.target.id for n in ast.walk(expr) if type(n) is ast.NamedExpr}


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
        todo.extend(ast.iter_child_nodes(n))
    return out


def _comprehension_targets(ctx, node):
    return [g.target for a in _ancestors(ctx)
            if type(a) in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
            for g in a.generators]


def _enclosing_names(info):
    """The names `in_function_*` may see from inside function `info`: its own, its class's and
    those of the functions around it, and `<lambda>` (a lambda nested anywhere inside)."""
    names = ["<lambda>"]
    while info is not None:
        names.append(info.name)
        if info.cls is not None:
            names.append(info.cls.name)
        info = info.parent
    return names


def _named_scope(analyzer, info, *words):
    return any(w.lower() in n.lower() for n in _enclosing_names(info) for w in words)


@predicate(arity=-1, scope=_named_scope)
def in_function_named(ctx, node, *words):
    """Inside a function whose name, or whose class's name, contains one of the given words, case-insensitive (`in_function_named(collate)`: `collate_fn`, `DataCollatorForX.__call__`), or a function nested in one."""
    words = tuple(w.lower() for w in words)
    frame = ctx.frame
    while frame is not None and frame.kind == "function":
        names = [frame.name, frame.cls.name if frame.cls is not None else ""]
        if any(w in n.lower() for n in names for w in words):
            return True
        frame = frame.parent
    return False


def _passed_scope(analyzer, info, *keywords):
    passed = _passed_as(analyzer, keywords)
    return bool(passed) and any(n in passed for n in _enclosing_names(info))


@predicate(arity=-1, scope=_passed_scope)
def in_function_passed_as(ctx, node, *keywords):
    """Inside a function (or a method of a class) that the module passes as one of the given keyword arguments, e.g. `in_function_passed_as(collate_fn)` for `DataLoader(ds, collate_fn=pad_batch)`, `collate_fn=partial(pad_batch, ...)` or `collate_fn=Padder(...)`; or a function nested in one."""
    passed = _passed_as(ctx.analyzer, keywords)
    frame = ctx.frame
    while frame is not None and frame.kind == "function":
        if frame.name in passed or (frame.cls is not None and frame.cls.name in passed):
            return True
        frame = frame.parent
    return False


def _passed_as(analyzer, keywords) -> frozenset:
    """Names given as these keyword arguments anywhere in the module (cached per module)."""
    cache = analyzer.__dict__.setdefault("_passed_as_cache", {})
    if keywords not in cache:
        names = set()
        tree = getattr(analyzer, "tree", None)
        # A keyword argument names itself in the text: most modules need no tree walk.
        text = "\n".join(analyzer.lines) if tree is not None else ""
        if any(k in text for k in keywords):
            for n in ast.walk(tree):
                if type(n) is ast.keyword and n.arg in keywords:
                    value = n.value
                    if type(value) is ast.Call:   # partial(fn, ...) or an instance of a class
                        names.add(_last_name(value.func))
                        value = value.args[0] if value.args else value
                    names.add(_last_name(value))
        names.discard(None)
        cache[keywords] = frozenset(names)
    return cache[keywords]


def _last_name(node):
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Attribute:
        return node.attr
    return None


# -- where a match sits, shared with the fix conditions (fix_predicates.py) --
_COMPARE_OPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_DYNAMIC_CALLS = frozenset("""
nonzero argwhere unique unique_consecutive masked_select bincount nms batched_nms
remove_small_boxes
""".split())


def _torch_name(ctx, func) -> str | None:
    """`isnan` for `torch.isnan` (through imports), else None."""
    q = ctx.analyzer.qualname(func) if type(func) in (ast.Name, ast.Attribute) else None
    return q[6:] if q and q.startswith("torch.") and q.count(".") == 1 else None


def _ancestors(ctx) -> list:
    """The walk's ancestors, nearest first, ending with the function being walked (the
    analyzer's stack starts afresh in each function body)."""
    chain = list(reversed(ctx.analyzer.stack))
    owner = ctx.frame.node
    if owner is not None and not any(a is owner for a in chain):
        chain.append(owner)
    return chain


def _last_statement(ctx):
    """Where the matched code ends: the match itself if it is a statement (for a window of
    several statements, the last one), else the statement holding it."""
    if isinstance(ctx.node, ast.stmt):
        return ctx.node
    return next((n for n in _ancestors(ctx) if isinstance(n, ast.stmt)), None)
