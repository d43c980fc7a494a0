"""Fixes across statements: follow a data-dependent value from where it starts to where it
ends, and when every use is accounted for, hand the whole stretch to the one-expression
templates.

The Gaudi guide's advice is to find where the dynamism starts (a selection) and where it
ends (a reduction) and to replace the stretch between. Here that is done by substitution:

* `y = x[m]` whose every later read is a full reduction (`y.sum()`, `y.mean()`,
  `torch.any(y)`, ...) loses its assignment, and each read becomes `x[m].sum()`,
  `x[m].mean()`... which DYN101's safe templates then turn into masked reductions in the next
  round. Exact when `x` and `m` hold the same values at each read as at the assignment:
  they are pure expressions whose names nothing rebinds or changes in place in between.
* `idx = torch.where(m)` (or `m.nonzero(as_tuple=True)`) whose every read indexes a tensor
  of `m`'s shape (`x[idx]`) becomes `x[m]` at each read: indexing with the index tuple of a
  mask selects what the mask selects. The shape must be proved (same shape key in the
  alignment facts); a longer `x` would accept the indices but not the mask.

Anything else (a read that is not accounted for, a name read after the stretch, a write in
between) leaves the stretch alone: the single-statement fixes, or display-only ones, apply.
"""
from __future__ import annotations

import ast

from ..engine.spans import segment

# Full reductions of the selection that DYN101 rewrites safely.
REDUCTIONS = frozenset({"sum", "mean", "any", "all"})
_ATOMS = (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.Constant)


class NoStretch(ValueError):
    """Not a stretch whose every use is accounted for."""


def inline_selection(stmts, analyzer, flagged) -> list[str]:
    """`y = x[m]`, then statements whose reads of `y` are all full reductions."""
    first, rest = stmts[0], stmts[1:]
    if type(first) is not ast.Assign or len(first.targets) != 1 or \
            type(first.targets[0]) is not ast.Name or type(first.value) is not ast.Subscript:
        raise NoStretch("not `y = x[m]`")
    if not any(n is flagged for n in ast.walk(first.value)):
        raise NoStretch("the finding is not this selection's")
    y = first.targets[0].id
    sel = first.value
    reads = _reads(rest, y)
    if not reads or not all(_full_reduction(r, parents) for r, parents in reads):
        raise NoStretch("a read of the selection is not a full reduction")
    if not any(_reduction_name(parents) in ("mean", "all") for _, parents in reads):
        raise NoStretch("sums and any() only: the one-statement template applies")
    _unchanged(rest, [sel.value, sel.slice], reads, analyzer)
    if not dies_in_stretch(stmts, first.targets[0], analyzer):
        raise NoStretch(f"`{y}` is read after the stretch")
    x_text = _atom(sel.value, analyzer.lines)
    text = f"{x_text}[{segment(sel.slice, analyzer.lines)}]"
    return _substitute(stmts, analyzer.lines, {id(r): text for r, _ in reads})


def inline_where_index(stmts, analyzer, flagged, facts) -> list[str]:
    """`idx = torch.where(m)`, then reads `x[idx]` only, with `x` of `m`'s shape."""
    first, rest = stmts[0], stmts[1:]
    if type(first) is not ast.Assign or len(first.targets) != 1 or \
            type(first.targets[0]) is not ast.Name or type(first.value) is not ast.Call:
        raise NoStretch("not `idx = torch.where(m)`")
    call = first.value
    mask = _where_mask(call, analyzer)
    if mask is None or not any(n is flagged for n in ast.walk(call)):
        raise NoStretch("not a one-argument where / nonzero(as_tuple=True)")
    idx = first.targets[0].id
    reads = _reads(rest, idx)
    if not reads:
        raise NoStretch("the indices are not read")
    key = facts.root(mask, facts.chain)
    bound = {n.id for st in rest for n in ast.walk(st)
             if type(n) is ast.Name and type(n.ctx) is not ast.Load}
    subs = {}
    for r, parents in reads:
        parent = parents[0] if parents else None
        if type(parent) is not ast.Subscript or parent.slice is not r or \
                type(parent.ctx) is not ast.Load:
            raise NoStretch("the indices are used other than to index a tensor")
        # Shape keys are read at the stretch's first statement: the indexed tensor's names
        # must still hold what they held there.
        if bound & {n.id for n in ast.walk(parent.value) if type(n) is ast.Name}:
            raise NoStretch("the indexed tensor is rebound inside the stretch")
        if facts.root(parent.value, facts.chain) != key:
            raise NoStretch("the indexed tensor is not proved to have the mask's shape")
        subs[id(r)] = segment(mask, analyzer.lines)
    _unchanged(rest, [mask], reads, analyzer)
    if not dies_in_stretch(stmts, first.targets[0], analyzer):
        raise NoStretch(f"`{idx}` is read after the stretch")
    return _substitute(stmts, analyzer.lines, subs)


# -- reads ------------------------------------------------------------------------------------
def _reads(stmts, name):
    """(Name node, [parent, grandparent, ...]) for each read of `name` in `stmts`; raise
    when it is rebound before the last read, or read inside a nested function."""
    out = []
    for stmt in stmts:
        for node, parents in _walk(stmt, []):
            if type(node) is ast.Name and node.id == name:
                if type(node.ctx) is not ast.Load:
                    if stmt is not stmts[-1] or not _last_binding(stmt, node):
                        raise NoStretch(f"`{name}` is rebound inside the stretch")
                    continue
                if any(isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                      ast.ClassDef, ast.comprehension)) for p in parents):
                    raise NoStretch("read in a nested scope")
                out.append((node, parents))
            elif type(node) in (ast.Global, ast.Nonlocal) and name in node.names:
                raise NoStretch("global")
    return out


def _last_binding(stmt, target) -> bool:
    """`y = <reduction of y>` ends the stretch: the old value dies there."""
    return type(stmt) is ast.Assign and len(stmt.targets) == 1 and stmt.targets[0] is target


def _walk(node, parents):
    yield node, parents
    for child in ast.iter_child_nodes(node):
        yield from _walk(child, [node] + parents)


def _reduction_name(parents):
    p = parents[0] if parents else None
    if type(p) is ast.Attribute and len(parents) > 1 and type(parents[1]) is ast.Call \
            and parents[1].func is p:
        return p.attr
    if type(p) is ast.Call and type(p.func) is ast.Attribute and \
            type(p.func.value) is ast.Name and p.func.value.id == "torch":
        return p.func.attr
    return None


def _full_reduction(read, parents) -> bool:
    name = _reduction_name(parents)
    if name not in REDUCTIONS:
        return False
    call = parents[1] if type(parents[0]) is ast.Attribute else parents[0]
    if call.keywords:
        return False
    if type(parents[0]) is ast.Attribute:
        return not call.args
    return len(call.args) == 1 and call.args[0] is read


# -- nothing changes what the selection reads --------------------------------------------------
def _unchanged(stmts, exprs, reads, analyzer) -> None:
    """Raise unless the names in `exprs` keep their values across `stmts` up to the last
    read: no rebinding, no in-place method, no item or attribute assignment, no `del`."""
    names = {n.id for e in exprs for n in ast.walk(e) if type(n) is ast.Name}
    if any(type(n) is ast.Call for e in exprs for n in ast.walk(e)) and \
            not all(_pure_call(n) for e in exprs for n in ast.walk(e) if type(n) is ast.Call):
        raise NoStretch("the selection calls something that may not repeat")
    last = max(r.lineno for r, _ in reads)
    for stmt in stmts:
        if stmt.lineno > last:
            break
        for node in ast.walk(stmt):
            t = type(node)
            if t is ast.Name and node.id in names and type(node.ctx) is not ast.Load:
                raise NoStretch(f"`{node.id}` is rebound inside the stretch")
            if t in (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete):
                targets = node.targets if t in (ast.Assign, ast.Delete) else [node.target]
                if any(type(tg) in (ast.Subscript, ast.Attribute) for tg in targets):
                    raise NoStretch("an item or attribute is written inside the stretch")
            if t is ast.Call and type(node.func) is ast.Attribute and \
                    node.func.attr.endswith("_") and not node.func.attr.startswith("_"):
                raise NoStretch("an in-place method runs inside the stretch")
            if t is ast.Call and _may_mutate(node, names, analyzer):
                raise NoStretch("a call inside the stretch may change what the selection reads")


def _may_mutate(call, names, analyzer) -> bool:
    """A call that is handed one of `names` (or is a method of one) and is not torch's own
    (torch functions and tensor methods without a trailing `_` or `out=` change nothing)."""
    if any(k.arg == "out" for k in call.keywords):
        return True
    f = call.func
    q = analyzer.qualname(f) if type(f) in (ast.Name, ast.Attribute) else None
    if q and (q.startswith("torch.") or q in _BUILTINS):
        return False
    handed = [*call.args, *(k.value for k in call.keywords)]
    if type(f) is ast.Attribute:
        root = f.value
        while type(root) in (ast.Attribute, ast.Subscript, ast.Call):
            root = root.func if type(root) is ast.Call else root.value
        # A method of an object the selection reads through (`self.step()` with
        # `self.x[m]`) may change it; a tensor method returns a new value.
        if type(root) is ast.Name and root.id == "self" and "self" in names:
            return True
    return any(type(n) is ast.Name and n.id in names for a in handed for n in ast.walk(a))


_BUILTINS = frozenset({"len", "int", "float", "bool", "print", "isinstance", "range", "min",
                       "max", "abs", "round", "str", "repr", "tuple", "list", "getattr"})
_PURE_METHODS = frozenset({"bool", "ne", "eq", "gt", "lt", "ge", "le", "view", "reshape",
                           "flatten", "logical_not", "isnan", "isinf", "isfinite", "float",
                           "long", "int", "unsqueeze", "squeeze", "detach", "abs"})


def _pure_call(call) -> bool:
    return type(call.func) is ast.Attribute and call.func.attr in _PURE_METHODS


def _where_mask(call, analyzer):
    q = analyzer.qualname(call.func) if type(call.func) in (ast.Name, ast.Attribute) else None
    if q == "torch.where" and len(call.args) == 1 and not call.keywords:
        return call.args[0]
    if type(call.func) is ast.Attribute and call.func.attr == "nonzero" and not call.args and \
            len(call.keywords) == 1 and call.keywords[0].arg == "as_tuple" and \
            type(call.keywords[0].value) is ast.Constant and call.keywords[0].value.value is True:
        return call.func.value
    return None


# -- writing the stretch back ------------------------------------------------------------------
def _atom(node, lines) -> str:
    text = segment(node, lines)
    return text if isinstance(node, _ATOMS) else f"({text})"


def _substitute(stmts, lines, subs) -> list[str]:
    """The statements after the first, with each read in `subs` replaced by its text; the
    first statement (the assignment that started the stretch) is dropped."""
    first_line, last_line = stmts[1].lineno, stmts[-1].end_lineno
    if stmts[0].end_lineno >= first_line:
        raise NoStretch("statements share a line")
    out = list(lines[first_line - 1:last_line])
    edits = []
    for stmt in stmts[1:]:
        for node in ast.walk(stmt):
            if id(node) in subs:
                edits.append((node.lineno, node.col_offset, node.end_col_offset, subs[id(node)]))
    for lineno, start, end, text in sorted(edits, reverse=True):
        i = lineno - first_line
        raw = out[i].encode("utf-8")
        out[i] = (raw[:start] + text.encode("utf-8") + raw[end:]).decode("utf-8")
    return out


def dies_in_stretch(stmts, name_node, analyzer) -> bool:
    """Nothing reads the selection after the stretch: its last statement rebinds it, or the
    `unused_after` predicate holds at the last statement."""
    last = stmts[-1]
    if type(last) is ast.Assign and len(last.targets) == 1 and \
            type(last.targets[0]) is ast.Name and last.targets[0].id == name_node.id:
        return True
    from ..engine.predicates import REGISTRY, MatchContext
    ctx = MatchContext(analyzer, last, {}, None, analyzer.frame)
    return bool(REGISTRY["unused_after"].fn(ctx, name_node))
