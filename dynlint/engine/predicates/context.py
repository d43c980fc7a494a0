"""What a predicate may look at (`MatchContext`), and helpers about where a match sits that
the detection predicates share with the fix conditions (`fixes.py`): its ancestors, the
statement it ends in, whether an `isinstance` test rules a tensor out there."""
from __future__ import annotations

import ast

from ...analysis import kinds as K
from ..patterns import same_code


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
                and checked_not_tensor(self, node):
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


def checked_not_tensor(ctx, node, types=_NON_TENSOR_TYPES) -> bool:
    """`node` sits in the branch an `isinstance(node, <non-tensor types>)` test guards:
    `a if isinstance(x, list) else b`, `if isinstance(x, (list, tuple)): ...`,
    `isinstance(x, int) and ...`. Such a value is not a tensor there, whatever else the
    code shows about it (a `self.` attribute assigned a tensor elsewhere, say). With `types`,
    the test names only those (`list`, `tuple`: a Python sequence there)."""
    child = ctx.node
    for owner in ancestors_of(ctx):
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


COMPARE_OPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
LOOPS = (ast.For, ast.AsyncFor, ast.While)
DYNAMIC_CALLS = frozenset("""
nonzero argwhere unique unique_consecutive masked_select bincount nms batched_nms
remove_small_boxes
""".split())


def torch_name(ctx, func) -> str | None:
    """`isnan` for `torch.isnan` (through imports), else None."""
    q = ctx.analyzer.qualname(func) if type(func) in (ast.Name, ast.Attribute) else None
    return q[6:] if q and q.startswith("torch.") and q.count(".") == 1 else None


def function_of(ctx):
    """The innermost enclosing `def` frame (lambdas and class bodies have no bindings to scan)."""
    frame = ctx.frame
    while frame is not None and type(frame.node) not in (ast.FunctionDef, ast.AsyncFunctionDef):
        frame = frame.parent
    return frame


def ancestors_of(ctx) -> list:
    """The walk's ancestors, nearest first, ending with the function being walked (the
    analyzer's stack starts afresh in each function body)."""
    chain = list(reversed(ctx.analyzer.stack))
    owner = ctx.frame.node
    if owner is not None and not any(a is owner for a in chain):
        chain.append(owner)
    return chain


def last_statement(ctx):
    """Where the matched code ends: the match itself if it is a statement (for a window of
    several statements, the last one), else the statement holding it."""
    if isinstance(ctx.node, ast.stmt):
        return ctx.node
    return next((n for n in ancestors_of(ctx) if isinstance(n, ast.stmt)), None)


def contains(tree, node) -> bool:
    """`node` lies within `tree`, by source position (cheaper than walking the tree)."""
    start = (tree.lineno, tree.col_offset)
    end = (tree.end_lineno, tree.end_col_offset)
    return start <= (node.lineno, node.col_offset) and (node.end_lineno, node.end_col_offset) <= end


def last_name(node):
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Attribute:
        return node.attr
    return None
