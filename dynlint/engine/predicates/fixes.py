"""Conditions used by the `fixes:` of rules (registered in the same table as the rest).

They look only at syntax and at kinds of names already bound, never at code the walk has not
reached, so asking them from a fix (which looks at statements after the flagged one) cannot
change what the walk infers later. Kept apart from the detection predicates: what a fix may
repeat or drop (`pure`, `unused_after`, `only_reduced_by`), how a mask lines up with a tensor
(`elementwise_mask_of`) and the mark_step split (`opens_dynamic_section`).
"""
from __future__ import annotations

import ast

from ...analysis import kinds as K
from ...analysis.bindings import BLOCK_FIELDS, rebinds as _rebinds
from ...analysis.kinds import BOOL, PROBABLE
from ...analysis.roles import Role
from ...analysis.statements import child_nodes, walk
from ...analysis.tensor_api import TENSOR_NAMES
from ..patterns import same_code
from .context import (COMPARE_OPS, DYNAMIC_CALLS, LOOPS, ancestors_of, last_statement,
                      torch_name)
from .registry import predicate

_PURE_METHODS = frozenset("""
bool float double half bfloat16 long int short byte to detach view view_as reshape reshape_as
squeeze unsqueeze flatten t transpose permute contiguous expand expand_as ne eq gt lt ge le
logical_not logical_and logical_or logical_xor isnan isinf isfinite isposinf isneginf signbit
abs neg sign
""".split())
_PURE_TORCH = frozenset("""
ne eq gt lt ge le logical_not logical_and logical_or logical_xor isnan isinf isfinite isposinf
isneginf signbit abs neg
""".split())
_MASK_METHODS = frozenset("bool ne eq gt lt ge le isnan isinf isfinite isposinf isneginf "
                          "signbit logical_not".split())
_MASK_JOINS = frozenset("logical_and logical_or logical_xor".split())


@predicate()
def pure(ctx, node):
    """Evaluating the expression twice gives the same value and does nothing else: names, attributes, constants, subscripts, arithmetic and comparisons of those, and elementwise or view tensor methods (`.bool()`, `.ne(0)`, `.view(-1)`, `torch.isnan(x)`). A fix may repeat such an expression."""
    if type(node) is not ast.Call:
        return _parts_pass(node, lambda part: pure(ctx, part), bool_ops=True)
    args = list(node.args) + [k.value for k in node.keywords]
    if any(k.arg is None for k in node.keywords) or not all(pure(ctx, a) for a in args):
        return False
    f = node.func
    if torch_name(ctx, f) in _PURE_TORCH:
        return True
    return type(f) is ast.Attribute and f.attr in _PURE_METHODS and pure(ctx, f.value)


@predicate()
def side_effect_free(ctx, node):
    """Evaluating the expression changes nothing else and draws no random numbers: names, attributes, constants, subscripts, arithmetic, and calls of tensor methods or torch functions that work neither in place nor at random (`a.mul(w)`, `torch.exp(x)`). A fix may evaluate it in another order relative to a `pure` expression, and read its metadata (`.dim()`) again."""
    t = type(node)
    if t is ast.Call:
        args = list(node.args) + [k.value for k in node.keywords]
        if any(k.arg is None for k in node.keywords) or any(type(a) is ast.Starred for a in node.args) \
                or not all(side_effect_free(ctx, a) for a in args):
            return False
        f = node.func
        name = torch_name(ctx, f)
        if name is None and type(f) is ast.Attribute and side_effect_free(ctx, f.value) and \
                K.level(ctx.kind(f.value)) >= PROBABLE:
            name = f.attr
        return name is not None and name in TENSOR_NAMES and not name.endswith("_") and \
            name not in _MUTATING
    return _parts_pass(node, lambda part: side_effect_free(ctx, part), bool_ops=False)


def _parts_pass(node, check, bool_ops: bool) -> bool:
    """For an expression that is not a call: whether every part of it passes `check` (names and
    constants always do; kinds of node not listed never do)."""
    t = type(node)
    if t in (ast.Name, ast.Constant):
        return True
    if t is ast.Attribute:
        return check(node.value)
    if t is ast.Subscript:
        return check(node.value) and check(node.slice)
    if t is ast.Slice:
        return all(v is None or check(v) for v in (node.lower, node.upper, node.step))
    if t in (ast.Tuple, ast.List):
        return all(check(e) for e in node.elts)
    if t is ast.UnaryOp:
        return check(node.operand)
    if t is ast.BinOp:
        return check(node.left) and check(node.right)
    if t is ast.BoolOp and bool_ops:
        return all(check(v) for v in node.values)
    if t is ast.Compare:
        return check(node.left) and all(check(c) for c in node.comparators)
    return False


# Tensor methods without a trailing underscore that still change state or draw random numbers.
_MUTATING = frozenset("backward register_hook register_post_accumulate_grad_hook retain_grad "
                      "record_stream resize item tolist numpy bernoulli multinomial".split())


@predicate(arity=1)
def elementwise_mask_of(ctx, node, var):
    """The mask is computed elementwise from metavariable `var` itself (`x > 0`, `x.isnan()`, `~(x == pad)`, `(x > a) & m`), so wherever `x[mask]` works the mask has exactly `x`'s shape."""
    base = ctx.binds.get(str(var))
    return base is not None and _elementwise_of(ctx, node, base)


def _elementwise_of(ctx, node, base) -> bool:
    t = type(node)
    if same_code(node, base):
        return False                     # the tensor itself is not a mask of it
    if t is ast.Compare:
        return len(node.ops) == 1 and type(node.ops[0]) in COMPARE_OPS and \
            any(_same_or_of(ctx, o, base) for o in (node.left, node.comparators[0]))
    if t is ast.UnaryOp and type(node.op) is ast.Invert:
        return _elementwise_of(ctx, node.operand, base)
    if t is ast.BinOp and type(node.op) in (ast.BitAnd, ast.BitOr, ast.BitXor):
        # Broadcasting can only grow the mask; `x[mask]` fails unless it has x's shape.
        return _elementwise_of(ctx, node.left, base) or _elementwise_of(ctx, node.right, base)
    if t is ast.Call and not node.keywords:
        f = node.func
        name = torch_name(ctx, f)
        if name in _MASK_METHODS and node.args:
            return _same_or_of(ctx, node.args[0], base)
        if name in _MASK_JOINS and len(node.args) == 2:
            return any(_elementwise_of(ctx, a, base) for a in node.args)
        if type(f) is ast.Attribute and f.attr in _MASK_METHODS:
            return _same_or_of(ctx, f.value, base)
        if type(f) is ast.Attribute and f.attr in _MASK_JOINS and len(node.args) == 1:
            return _elementwise_of(ctx, f.value, base) or _elementwise_of(ctx, node.args[0], base)
    return False


def _same_or_of(ctx, node, base) -> bool:
    """`node` is `base` or computed elementwise from it (`x.abs()`, `x * 2`, `x.float() - y`).
    Broadcasting can only add dimensions, and `x[mask]` works only if the mask has none
    beyond x's, so a mask built from such a value has exactly x's shape."""
    if same_code(node, base) or _elementwise_of(ctx, node, base):
        return True
    t = type(node)
    if t is ast.UnaryOp and type(node.op) is not ast.Not:
        return _same_or_of(ctx, node.operand, base)
    if t is ast.BinOp and type(node.op) is not ast.MatMult:
        return _same_or_of(ctx, node.left, base) or _same_or_of(ctx, node.right, base)
    if t is ast.Call and not node.keywords:
        f = node.func
        if torch_name(ctx, f) in _ELEMENTWISE:
            return any(_same_or_of(ctx, a, base) for a in node.args)
        if type(f) is ast.Attribute and f.attr in _ELEMENTWISE:
            return _same_or_of(ctx, f.value, base) or \
                any(_same_or_of(ctx, a, base) for a in node.args)
    return False


_ELEMENTWISE = frozenset("""
abs neg negative float double half bfloat16 long int short bool detach clone sigmoid exp log
log1p log2 sqrt rsqrt relu tanh sin cos floor ceil round trunc frac sign square add sub mul div
true_divide floor_divide remainder fmod pow maximum minimum clamp clip nan_to_num
""".split())


# -- what happens to a name after the matched statements ---------------------------------------
_SCOPE_BREAKERS = frozenset({"locals", "vars", "eval", "exec", "globals"})
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _later_reads(ctx, name: str):
    """Each read of local `name` that may run after the matched statements, as
    (name node, parent, grandparent); None when that cannot be known (a nested function
    reads it, `global`/`nonlocal`, `locals()`/`eval`...).

    The rest of the block is scanned, then the rest of each enclosing block up to the
    function. A loop around the statements is scanned whole (its next iteration runs
    after them), and so is a `try` (its handlers and `finally` may). Scanning stops at an
    unconditional re-assignment of `name` in a scanned block."""
    stmt = last_statement(ctx)
    scope = ctx.frame.node if ctx.frame.node is not None else ctx.analyzer.stack[0]
    if stmt is None or not _knowable(ctx.analyzer, scope, name):
        return None
    reads: list = []
    current = stmt
    for owner in ancestors_of(ctx):
        rest = _after(owner, current)
        if rest is None:
            continue
        for s in rest:
            _collect(s, name, reads)
            if _rebinds(s, name):
                return reads
        if isinstance(owner, LOOPS) or type(owner).__name__ in ("Try", "TryStar"):
            _collect(owner, name, reads)
        if owner is scope:
            return reads
        current = owner
    return reads


def _knowable(analyzer, scope, name: str) -> bool:
    blocked = _unknowable_names(analyzer, scope)
    return blocked is not None and name not in blocked


def _unknowable_names(analyzer, scope):
    """Names of `scope` whose later reads cannot be listed (global/nonlocal, used by nested
    functions); None when no name's can (`locals()`, `eval`...). One walk per scope, cached on
    the analyzer: fix conditions ask for many names in the same function."""
    cache = analyzer.__dict__.setdefault("_unknowable_cache", {})
    key = id(scope)
    if key in cache:
        return cache[key]
    blocked: set | None = set()
    for n in walk(scope):
        t = type(n)
        if t in (ast.Global, ast.Nonlocal):
            blocked.update(n.names)
        elif t in _NESTED_SCOPES and n is not scope:
            blocked.update(m.id for m in walk(n) if type(m) is ast.Name)
        elif t is ast.Call and type(n.func) is ast.Name and n.func.id in _SCOPE_BREAKERS:
            blocked = None
            break
    cache[key] = blocked
    return blocked


def _after(owner, child):
    """The statements after `child` in the block of `owner` that holds it, else None."""
    for field in BLOCK_FIELDS:
        block = getattr(owner, field, None)
        if type(block) is list:
            for i, s in enumerate(block):
                if s is child:
                    return block[i + 1:]
    return None


def _collect(tree, name: str, reads: list) -> None:
    """Reads of `name` in `tree`: loads, `del`, and augmented-assignment targets."""
    todo = [(tree, None, None)]
    while todo:
        node, parent, grand = todo.pop()
        if type(node) is ast.Name and node.id == name and \
                (type(node.ctx) is not ast.Store or type(parent) is ast.AugAssign):
            reads.append((node, parent, grand))
        for child in child_nodes(node):
            todo.append((child, node, parent))


@predicate()
def unused_after(ctx, node):
    """A local name that nothing reads after the matched statements: not later in the function (up to a re-assignment), not in a surrounding loop, not from a nested function."""
    if type(node) is not ast.Name:
        return False
    reads = _later_reads(ctx, node.id)
    return reads is not None and not reads


@predicate(arity=-1)
def only_reduced_by(ctx, node, *reductions):
    """A local name read after the matched statements (up to its re-assignment) only as `name.r()` or `torch.r(name)` with no other arguments, for the listed reductions `r` (e.g. `only_reduced_by(sum, nansum)`), and at least once; so nothing else sees its shape."""
    if type(node) is not ast.Name:
        return False
    reads = _later_reads(ctx, node.id)
    if not reads:
        return False
    for use, parent, grand in reads:
        if type(use.ctx) is not ast.Load:
            return False
        if type(parent) is ast.Attribute and parent.attr in reductions:
            if not (type(grand) is ast.Call and grand.func is parent and not grand.args
                    and not grand.keywords):
                return False
        elif type(parent) is ast.Call and len(parent.args) == 1 and parent.args[0] is use \
                and not parent.keywords:
            if torch_name(ctx, parent.func) not in reductions:
                return False
        else:
            return False
    return True


# -- dynamic sections (for the mark_step split suggestion) ------------------------------------


def _looks_dynamic(ctx, node, bools: set) -> bool:
    """A syntactic guess that an expression has a data-dependent shape: a call to a
    data-dependent op, one-argument `torch.where`, or indexing with something mask-like."""
    t = type(node)
    if t is ast.Call:
        f = node.func
        last = f.attr if type(f) is ast.Attribute else f.id if type(f) is ast.Name else None
        if last in DYNAMIC_CALLS:
            return True
        return torch_name(ctx, f) == "where" and len(node.args) == 1 and not node.keywords
    if t is ast.Subscript and type(node.ctx) is ast.Load:
        items = node.slice.elts if type(node.slice) is ast.Tuple else (node.slice,)
        return any(_masklike(ctx, i, bools) for i in items)
    return False


def _masklike(ctx, node, bools: set) -> bool:
    t = type(node)
    if t is ast.Compare:
        return len(node.ops) == 1 and type(node.ops[0]) in COMPARE_OPS
    if t is ast.UnaryOp and type(node.op) is ast.Invert:
        return True
    if t is ast.BinOp and type(node.op) in (ast.BitAnd, ast.BitOr, ast.BitXor):
        return _masklike(ctx, node.left, bools) or _masklike(ctx, node.right, bools)
    if t is ast.Call:
        f = node.func
        name = f.attr if type(f) is ast.Attribute else torch_name(ctx, f)
        return name in _MASK_METHODS or name in _MASK_JOINS
    if t is ast.Name:
        k = ctx.analyzer.frame.lookup(node.id)     # uncached: later statements are not walked yet
        return node.id in bools or bool(k & BOOL) and K.level(k) >= PROBABLE
    return False


def _dynamic_nodes(ctx, stmt, bools: set) -> list:
    out = []
    todo = [stmt]
    while todo:
        n = todo.pop()
        if _looks_dynamic(ctx, n, bools):
            out.append(n)
        todo.extend(c for c in ast.iter_child_nodes(n) if not isinstance(c, _NESTED_SCOPES))
    return out


def _dynamic_flags(ctx, body: list, forced: int) -> list:
    """Which statements of a block look dynamic; `forced` is known to be (a rule matched)."""
    bools: set = set()
    flags = []
    for i, s in enumerate(body):
        flags.append(i == forced or bool(_dynamic_nodes(ctx, s, bools)))
        if type(s) is ast.Assign and len(s.targets) == 1 and type(s.targets[0]) is ast.Name:
            name = s.targets[0].id
            if _masklike(ctx, s.value, bools):
                bools.add(name)
            else:
                bools.discard(name)
    return flags


def _is_mark_step(stmt) -> bool:
    if type(stmt) is not ast.Expr or type(stmt.value) is not ast.Call:
        return False
    f = stmt.value.func
    return (f.attr if type(f) is ast.Attribute else getattr(f, "id", None)) == "mark_step"


def _is_code(stmt) -> bool:
    """Real computation: not a docstring, `pass`, `...` or an existing mark_step()."""
    if type(stmt) is ast.Pass or _is_mark_step(stmt):
        return False
    return not (type(stmt) is ast.Expr and type(stmt.value) is ast.Constant)


def _function_body_index(ctx, node):
    func = ctx.frame.node
    if ctx.frame.kind != "function" or type(func) not in (ast.FunctionDef, ast.AsyncFunctionDef):
        return None, None
    for n in ctx.analyzer.stack:
        for i, s in enumerate(func.body):
            if s is n:
                return func.body, i
    return None, None


def _section_end(flags: list, start: int):
    end = start
    while end < len(flags) and flags[end]:
        end += 1
    return end if end < len(flags) else None


@predicate()
def opens_dynamic_section(ctx, node):
    """The match is the first data-dependent op of a run of statements of a model function that sits between static statements (and is not yet split by `mark_step()` calls): the place to split static and dynamic sections."""
    body, i = _function_body_index(ctx, node)
    model = ctx.frame.role == Role.MODEL or getattr(ctx, "assume_model", False)
    if body is None or not model or i == 0:
        return False
    flags = _dynamic_flags(ctx, body, i)
    if flags[i - 1] or _is_mark_step(body[i - 1]) or not any(map(_is_code, body[:i])):
        return False
    end = _section_end(flags, i)
    if end is None or _is_mark_step(body[end]):
        return False
    first = min(((n.lineno, n.col_offset) for n in _dynamic_nodes(ctx, body[i], set())),
                default=None)
    return first is None or first >= (node.lineno, node.col_offset)


@predicate(arity=1)
def closes_dynamic_section(ctx, node, var):
    """The statement is the first static one after the run of data-dependent statements that starts with metavariable `var`."""
    body, _ = _function_body_index(ctx, node)
    start_stmt = ctx.binds.get(str(var))
    if body is None or start_stmt is None:
        return False
    start = next((i for i, s in enumerate(body) if s is start_stmt), None)
    if start is None:
        return False
    end = _section_end(_dynamic_flags(ctx, body, start), start)
    return end is not None and body[end] is node
