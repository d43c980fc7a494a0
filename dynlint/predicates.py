"""Named conditions that rules put on metavariables (`where:`) and on whole matches (`when:`).

Each predicate is written once here and documented by its docstring (shown by
`dynlint predicates`). A predicate takes the match context, the node it is applied to and any
literal arguments given in the rule, e.g. ``arg_count(1)`` or ``any_arg(tensor)``.
Rules may negate any predicate: ``not in_cold_code``.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from . import kinds as K
from .kinds import BOOL, HOST, NOT, PROBABLE, TENSOR, UNKNOWN
from .patterns import same_code

REGISTRY: dict[str, "Predicate"] = {}


@dataclass(frozen=True)
class Predicate:
    name: str
    fn: object
    arity: int              # number of rule-supplied arguments; -1: any
    doc: str


def predicate(arity: int = 0):
    def register(fn):
        name = fn.__name__.rstrip("_")
        REGISTRY[name] = Predicate(name, fn, arity, (fn.__doc__ or "").strip())
        return fn
    return register


class MatchContext:
    """What a predicate may look at: the analyzer state, the match and its bindings."""

    __slots__ = ("analyzer", "node", "binds", "parent", "frame")

    def __init__(self, analyzer, node, binds, parent, frame):
        self.analyzer, self.node, self.binds = analyzer, node, binds
        self.parent, self.frame = parent, frame

    def kind(self, node: ast.AST) -> int:
        return self.analyzer.kind(node)


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
def possible_tensor(ctx, node):
    """Nothing shows that the expression is *not* a tensor (it is not a literal, a shape, a numpy array, a Python number...)."""
    return K.level(ctx.kind(node)) >= UNKNOWN


@predicate()
def host_value(ctx, node):
    """A Python value computed from tensor data: the result of `.item()`, `.tolist()`, `int(t)`, or arithmetic on those."""
    return bool(ctx.kind(node) & HOST)


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


def _maskish(ctx, node, sub) -> bool:
    if type(node) in (ast.Name, ast.Attribute) and K.level(ctx.kind(node)) >= UNKNOWN:
        return True
    return _is_mask(ctx, node, sub)


@predicate()
def data_dependent_slice(ctx, node):
    """A subscript index holding a slice whose start, stop or step is a tensor or a host value computed from tensor data (`x[:n]` with `n = t.item()`)."""
    items = node.elts if type(node) is ast.Tuple else (node,)
    for item in items:
        if type(item) is ast.Slice:
            for bound in (item.lower, item.upper, item.step):
                if bound is not None:
                    k = ctx.kind(bound)
                    if k & HOST or K.level(k) == TENSOR:
                        return True
    return False


@predicate()
def literal(ctx, node):
    """A literal constant (number, string, `True`, `None`), possibly negated."""
    if type(node) is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        node = node.operand
    return type(node) is ast.Constant


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
def kw_present(ctx, node, *names):
    """At least one of the named keyword arguments is passed."""
    return type(node) is ast.Call and any(k.arg in names for k in node.keywords)


@predicate(arity=2)
def arg(ctx, node, index, pred):
    """Positional argument `index` (0-based) exists and satisfies predicate `pred`."""
    if type(node) is not ast.Call or len(node.args) <= int(index):
        return False
    return _apply(ctx, pred, node.args[int(index)])


@predicate(arity=1)
def any_arg(ctx, node, pred):
    """Some argument of the call (positional, keyword, or an item of a tuple/list argument) satisfies predicate `pred`."""
    if type(node) is not ast.Call:
        return False
    values = list(node.args) + [k.value for k in node.keywords if k.arg is not None]
    for v in values:
        items = v.elts if type(v) in (ast.Tuple, ast.List) else (v,)
        if any(type(i) is not ast.Starred and _apply(ctx, pred, i) for i in items):
            return True
    return False


def _apply(ctx, name, node) -> bool:
    p = REGISTRY.get(str(name))
    if p is None or p.arity not in (0, -1):
        raise ValueError(f"predicate argument must name a predicate without arguments: {name}")
    return bool(p.fn(ctx, node))


# -- where the code runs (roles come from the scopes pre-pass) --------------------------------------------
@predicate()
def in_model_code(ctx, node):
    """Inside code that runs as part of the model's computation: a `forward` (or `__call__`/`forward_*` of a module), a loss function, a `torch.compile`/`jit.script` function, a helper or method they call in the same file, or a function nested in those."""
    return ctx.frame.role == "model"


@predicate()
def in_cold_code(ctx, node):
    """Inside code that never runs inside the model graph and is not called from it: `__init__`, weight initialisation, training/eval loops, data preparation, tests, module level under `if __name__ == "__main__"`, class bodies."""
    return ctx.frame.role == "cold" or ctx.frame.kind in ("class", "main")


@predicate()
def in_function(ctx, node):
    """Inside a function or method body, not at module or class level."""
    return ctx.frame.kind == "function"
