"""Fixes a template cannot write: rewrites that keep a loop body as it is, and the stretches
across statements of `stretch.py`.

A rule's fix names a builder (`build: preallocate_grown_tensor`) and a pattern that finds
its statements (`for $I in range(...): ...`). The builder gets the matched statements and
returns their replacement text; `suggest.py` diffs it against the original like a rendered
template, so only the changed and inserted statements become edits and the rest keeps its
comments. A builder raises NoFix (a ValueError) whenever the code is not the shape it knows.
The two loop builders write display-only suggestions: they change when the loop stops or
what its body sees.
"""
from __future__ import annotations

import ast
import re

from ..engine.spans import char_col, segment
from . import stretch

CHECK_EVERY = 8          # steps between two reads of a device-side loop condition
_CAT = frozenset({"torch.cat", "torch.concat", "torch.concatenate"})


class NoFix(ValueError):
    """The loop is not one this builder rewrites (suggest.py tries the next fix)."""


def build_statements(name, stmts, binds, analyzer, indent, flagged, facts=None) -> str:
    builder = BUILDERS.get(name)
    if builder is None:
        raise NoFix(f"no builder {name!r}")
    out = builder(stmts, analyzer, flagged, facts)
    text = "\n".join(out)
    if not text.startswith(indent):
        raise NoFix("the loop does not start its line")
    return text[len(indent):]


# -- helpers ---------------------------------------------------------------------------------
def _single(stmts):
    if len(stmts) != 1:
        raise NoFix("one loop statement expected")
    return stmts[0]


def _fresh(analyzer, base: str) -> str:
    """A name the module's text does not use yet (so nothing can read or shadow it)."""
    used = set(re.findall(r"(?<![.\w])[A-Za-z_]\w*", "\n".join(analyzer.lines)))
    name, i = base, 2
    while name in used:
        name, i = f"{base}{i}", i + 1
    return name


def _contains(outer, inner) -> bool:
    return any(n is inner for n in ast.walk(outer))


def _indent_of(node, lines) -> str:
    line = lines[node.lineno - 1]
    return line[:len(line) - len(line.lstrip())]


# -- a tensor grown by torch.cat in a counted loop --------------------------------------------
def preallocate_grown_tensor(stmts, analyzer, flagged, facts=None) -> list[str]:
    """`for i in range(n): ...; x = torch.cat([x, y], dim=d)` becomes a buffer of the final
    size allocated before the loop, written with `index_copy_` at a position tensor that
    advances each step: one shape for every step. Each step must add a slice of width 1
    along `d` (a generated token); the body now sees the full-size buffer."""
    lines, loop = analyzer.lines, _single(stmts)
    if type(loop) is not ast.For or loop.orelse or type(loop.iter) is not ast.Call:
        raise NoFix("not a counted for-loop")
    rng = loop.iter
    if analyzer.qualname(rng.func) != "range" or rng.keywords or not 1 <= len(rng.args) <= 2:
        raise NoFix("not range(n) / range(a, b)")
    steps = segment(rng.args[-1], lines)
    if len(rng.args) == 2:
        start = rng.args[0]
        if not (type(start) is ast.Constant and start.value == 0):
            steps = f"({steps}) - ({segment(start, lines)})"
    grown = [s for s in loop.body if _is_growth(s, analyzer)]
    if len(grown) != 1 or not _contains(grown[0], flagged):
        raise NoFix("not exactly one growth statement at the loop's top level, or not this one")
    stmt = grown[0]
    k = loop.body.index(stmt)
    if k and loop.body[k - 1].end_lineno >= stmt.lineno or \
            k + 1 < len(loop.body) and loop.body[k + 1].lineno <= stmt.end_lineno:
        raise NoFix("the growth statement shares a line")
    x = stmt.targets[0].id
    call = stmt.value
    dim = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "dim"), ast.Constant(0))
    d = _int_literal(dim)
    if d is None:
        raise NoFix("the dimension is not a literal")
    y = segment(call.args[0].elts[1], lines)
    pos = _fresh(analyzer, f"{x}_pos")
    if d == 0:
        shape = f"{steps}, *{x}.shape[1:]"
    elif d == -1:
        shape = f"*{x}.shape[:-1], {steps}"
    else:
        shape = f"*{x}.shape[:{d}], {steps}, *{x}.shape[{d + 1}:]" if d + 1 != 0 else \
            f"*{x}.shape[:{d}], {steps}"
    ind = _indent_of(loop, lines)
    body_ind = _indent_of(stmt, lines)
    out = [f"{ind}{pos} = torch.tensor([{x}.shape[{d}]], device={x}.device)",
           f"{ind}{x} = torch.cat([{x}, {x}.new_zeros({shape})], dim={d})"]
    for no in range(loop.lineno, loop.end_lineno + 1):
        if no == stmt.lineno:
            out += [f"{body_ind}{x}.index_copy_({d}, {pos}, {y})", f"{body_ind}{pos} += 1"]
        elif stmt.lineno < no <= stmt.end_lineno:
            continue
        else:
            out.append(lines[no - 1])
    return out


def _is_growth(stmt, analyzer) -> bool:
    if type(stmt) is not ast.Assign or len(stmt.targets) != 1 or \
            type(stmt.targets[0]) is not ast.Name or type(stmt.value) is not ast.Call:
        return False
    call = stmt.value
    if analyzer.qualname(call.func) not in _CAT or not call.args or \
            type(call.args[0]) not in (ast.List, ast.Tuple) or len(call.args[0].elts) != 2:
        return False
    first = call.args[0].elts[0]
    return type(first) is ast.Name and first.id == stmt.targets[0].id


def _int_literal(node):
    if type(node) is ast.UnaryOp and type(node.op) is ast.USub:
        v = _int_literal(node.operand)
        return None if v is None else -v
    return node.value if type(node) is ast.Constant and type(node.value) is int else None


# -- a loop that reads a device value every step ----------------------------------------------
def check_every_n_steps(stmts, analyzer, flagged, facts=None) -> list[str]:
    """`while cond_on_device:` reads the device every step (a sync, and a graph cut).
    Reading it every N steps keeps N steps in flight; the body then runs up to N - 1 extra
    steps after the condition turns false, which it must tolerate (finished sequences
    padded, as generation loops do)."""
    lines, loop = analyzer.lines, _single(stmts)
    if type(loop) is not ast.While or loop.orelse or not _contains(loop.test, flagged):
        raise NoFix("the flagged condition is not this while loop's")
    test = loop.test
    if type(test) is ast.BoolOp and type(test.op) is ast.Or and \
            any(type(n) is ast.NamedExpr for n in ast.walk(test.values[0])):
        raise NoFix("already checked every N steps")
    text = segment(test, lines)
    if type(test) in (ast.IfExp, ast.Lambda, ast.NamedExpr):
        text = f"({text})"
    step = _fresh(analyzer, "step")
    ind = _indent_of(loop, lines)
    # Only the condition changes (and a counter starts before the loop): the body, its
    # comments and its `continue`s stay as they are. The first step reads the condition.
    header = lines[loop.lineno - 1:test.end_lineno]
    first, last = header[0], header[-1]
    a = char_col(lines, test.lineno, test.col_offset) - 1         # char_col is 1-based
    b = char_col(lines, test.end_lineno, test.end_col_offset) - 1
    new = f"({step} := {step} + 1) % {CHECK_EVERY} != 1 or {text}"
    if len(header) == 1:
        header = [first[:a] + new + first[b:]]
    else:
        header = [first[:a] + new + last[b:]]
    return [f"{ind}{step} = 0", *header, *lines[test.end_lineno:loop.end_lineno]]


def _inline_selection(stmts, analyzer, flagged, facts=None):
    return stretch.inline_selection(stmts, analyzer, flagged)


def _inline_where_index(stmts, analyzer, flagged, facts=None):
    if facts is None:
        raise NoFix("no shape facts")
    return stretch.inline_where_index(stmts, analyzer, flagged, facts.get())


BUILDERS = {"preallocate_grown_tensor": preallocate_grown_tensor,
            "check_every_n_steps": check_every_n_steps,
            "inline_selection": _inline_selection,
            "inline_where_index": _inline_where_index}
