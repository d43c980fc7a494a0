"""Fix suggestions, on the `ast` side: find a rule's fix template around a flagged node and
turn it into text edits. Runs inside the check, only for matched findings of rules that have
`fixes:`; it never imports libcst or torch (applying edits is `fix.py`'s job).

Finding a fix (the first fix of the rule that applies wins, so rules list safe fixes first):

* expression patterns are tried on the flagged node and its ancestors, nearest first, up to
  the enclosing statement; statement patterns (one or several statements) on the windows of
  statements that contain the flagged statement, in its block, then in each enclosing block;
* the flagged node must be part of the pattern's own code, not inside an expression
  metavariable: a fix belongs to the finding it is about, never to a neighbour's;
* the fix's `where`/`when` conditions must hold.

Rendering a fix:

* metavariables become their source text, parenthesised only where their position in the
  parsed template needs it; a `$S` alone on a template line stands for a whole statement;
* the rendered code is parsed and compared with the matched code, and only the smallest
  differing nodes become edits. `x[m].sum()` -> `torch.where(m, x, ...).sum()` edits just
  `x[m]`, so comments and formatting in the rest of the match are never touched.
"""
from __future__ import annotations

import ast
import os
import re
import textwrap

from . import align
from ..engine.spans import char_col, segment
from ..finding import Edit, Fix
from ..engine.patterns import META_PREFIX, Pattern, meta_name, same_code
from ..engine.predicates import MatchContext
from ..analysis.bindings import binds_name
from .splice import top_level_names

_META_RE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_SKIP_FIELDS = frozenset({"ctx", "type_comment", "kind"})
_BODY_FIELDS = ("body", "orelse", "finalbody")
_DEBUG = bool(os.environ.get("DYNLINT_DEBUG_FIXES"))


class NoFix(Exception):
    """The template cannot be rendered here (the caller tries the next one)."""


def suggest_fix(rule, node, binds, analyzer, matcher) -> Fix | None:
    """The first of `rule.fixes` that applies around the flagged `node`, or None."""
    # Fix conditions may ask for kinds of code the walk has not reached yet; answered
    # speculatively, they stay out of the analyzer's memo, so fixing never changes what is
    # flagged.
    analyzer.fix_flagged = node          # for `holds_flagged`: whose fix is being built
    with analyzer.speculative():
        try:
            return _first_fix(rule, node, analyzer, matcher)
        except Exception:
            if _DEBUG:
                raise
            return None                # a fix is a bonus: never let it cost the finding


def _first_fix(rule, node, analyzer, matcher) -> Fix | None:
    chain = ancestors(analyzer, node)
    levels = _Levels(chain)
    for spec in rule.fixes:
        for pat in spec.patterns:
            for target, fbinds, parent, field in _matches(pat, chain, matcher, levels):
                try:
                    fix = _build(spec, pat, node, target, fbinds, parent, field, analyzer, chain)
                except (NoFix, SyntaxError, ValueError, RecursionError):
                    fix = None
                if fix is not None:
                    return fix
    return None


# -- where a fix pattern may match ----------------------------------------------------------
def ancestors(analyzer, node) -> list:
    """`node`, then its ancestors, nearest first. The analyzer's stack starts afresh in each
    function body, so the function itself (the owner of its top-level statements) is added."""
    chain = [node] + [a for a in reversed(analyzer.stack) if a is not node]
    owner = analyzer.frame.node
    if owner is not None and not any(a is owner for a in chain):
        chain.append(owner)
    return chain


class _Levels:
    """The statements holding the flagged node, nearest first, each with the node that owns
    its block, the block and its place there: worked out once for all of a rule's fixes."""

    def __init__(self, chain):
        self.chain = chain
        self._levels = None

    def __iter__(self):
        if self._levels is None:
            self._levels = list(self._walk())
        return iter(self._levels)

    def _walk(self):
        chain = self.chain
        stmt_index = next((i for i, n in enumerate(chain) if isinstance(n, ast.stmt)), None)
        if stmt_index is None:
            return
        for k in range(stmt_index, len(chain)):
            stmt = chain[k]
            if not isinstance(stmt, ast.stmt):
                continue
            owner = align.owner_of(stmt, chain[k + 1:])
            found = align.position_in(owner, stmt) if owner is not None else None
            if found is None:
                return
            yield owner, found[0], found[1]


def _matches(pat: Pattern, chain, matcher, levels=None):
    """(target, binds, parent, field) for each place around the flagged node where `pat`
    matches; `target` is a node, or a list of statements for a multi-statement pattern."""
    stmt_index = next((i for i, n in enumerate(chain) if isinstance(n, ast.stmt)), None)
    if pat.root is not None and not isinstance(pat.root, ast.stmt):
        for i, cand in enumerate(chain[:stmt_index]):
            b = matcher.match(pat, cand)
            if b is not None:
                parent, field = _parent_of(cand, chain[i + 1:])
                yield cand, b, parent, field
        return
    if stmt_index is None:
        return
    pats = [pat.root] if pat.root is not None else pat.sequence
    n = len(pats)
    # The statement holding the flagged node, then each enclosing one: a section of a
    # function body may hold the flagged op deep inside a `with` or a loop.
    for owner, block, i in (levels if levels is not None else _Levels(chain)):
        for start in range(max(0, i - n + 1), min(i, len(block) - n) + 1):
            window = block[start:start + n]
            b = _match_statements(pats, window, matcher)
            if b is not None:
                yield window, b, owner, None


def _match_statements(pats, stmts, matcher):
    """Match statement patterns one to one; `$S` alone on a line binds a whole statement."""
    binds: dict = {}
    for p, t in zip(pats, stmts):
        name = meta_name(p.value) if type(p) is ast.Expr else None
        if name is not None:
            if name != "_":
                if name in binds and not same_code(binds[name], t):
                    return None
                binds[name] = t
            continue
        b = matcher.match(Pattern("", root=p), t)
        if b is None:
            return None
        for k, v in b.items():
            if k in binds and not same_code(binds[k], v):
                return None
            binds[k] = v
    return binds


def _parent_of(node, ancestors):
    """The real parent of `node` and its field. The analyzer's stack skips attributes and
    keywords, so look below the nearest stacked ancestor."""
    if not ancestors:
        return None, None
    todo = [ancestors[0]]
    while todo:
        cur = todo.pop()
        for field, value in ast.iter_fields(cur):
            for child in value if isinstance(value, list) else (value,):
                if child is node:
                    return cur, field
                if type(child) in (ast.Attribute, ast.keyword):
                    todo.append(child)
    return ancestors[0], None


# -- one fix --------------------------------------------------------------------------------
def _build(spec, pat, flagged, target, binds, parent, field, analyzer, chain) -> Fix | None:
    lines = analyzer.lines
    for value in binds.values():
        if not isinstance(value, ast.stmt) and _contains(value, flagged):
            return None            # the flagged node sits in a metavariable: not its fix
    stmts = target if isinstance(target, list) else None
    ctx_node = stmts[-1] if stmts else target
    ctx = MatchContext(analyzer, ctx_node, binds, parent, analyzer.frame)
    for p in spec.when:
        if not p(ctx, ctx_node):
            return None
    for var, preds in spec.where.items():
        value = binds.get(var)
        if value is None:
            continue                # a condition for another pattern of the same fix
        for p in preds:
            if not p(ctx, value):
                return None
    facts = _LazyFacts(analyzer, _statement_chain(chain, stmts or target))
    if stmts is None:
        if spec.build:
            raise NoFix("builders write statements")
        text = _render(spec.replace, binds, lines, "", facts)
        new = ast.parse(text, mode="eval").body
        ops: list = []
        _diff(target, new, parent, field, ops)
        new_lines = text.split("\n")
    else:
        indent = _indent(stmts[0], lines)
        if spec.build:             # named Python code writes what a template cannot
            from .builders import build_statements
            text = indent + build_statements(spec.build, stmts, binds, analyzer, indent,
                                             flagged, facts)
        else:
            text = indent + _render(spec.replace, binds, lines, indent, facts)
        source = "if 1:\n" + text if indent else text
        body = ast.parse(source).body
        new_body = body[0].body if indent else body
        ops = []
        _diff_block(stmts, new_body, ops)
        new_lines = source.split("\n")
    edits = list(_edits(ops, lines, new_lines))
    if not edits:
        return None
    imports = []
    for spec_import in spec.imports:
        where = _import_place(spec_import, analyzer, chain)
        if where == "module":
            imports.append(spec_import)
        elif where is not None:
            edits.append(where)
    edits = tuple(sorted(edits, key=lambda e: (e.line, e.column)))
    return Fix(spec.applicability, _describe(spec.description, binds, lines), edits,
               tuple(imports))


def _import_place(spec: str, analyzer, chain):
    """Where a fix's import goes: "module" (after the module's imports), None (the name is
    already bound where the fix is), or an edit putting it first in the enclosing function,
    for a module that imports torch only inside functions, on purpose (lazily)."""
    if spec.startswith(("from ", "optional ")) or not analyzer.tree:
        return "module"
    name = spec.removeprefix("import ").strip().split(".")[0]
    if name in top_level_names(analyzer.tree):
        return "module"                      # already there: nothing is added
    functions = [a for a in chain if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if any(binds_name(s, name) for f in functions for s in f.body):
        return None
    lazy = any(type(n) in (ast.Import, ast.ImportFrom) and binds_name(n, name)
               for n in ast.walk(analyzer.tree))
    if not lazy or not functions:
        return "module"
    body = functions[0].body
    first = body[1] if len(body) > 1 and type(body[0]) is ast.Expr and \
        type(body[0].value) is ast.Constant and isinstance(body[0].value.value, str) else body[0]
    indent = _indent(first, analyzer.lines)
    line, col = _start(first, analyzer.lines)
    return Edit(line, col, line, col, f"{spec if spec.startswith('import ') else 'import ' + spec}\n{indent}")


def _contains(outer, inner) -> bool:
    if not hasattr(outer, "lineno") or not hasattr(inner, "lineno"):
        return False
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and \
        (inner.end_lineno, inner.end_col_offset) <= (outer.end_lineno, outer.end_col_offset)


def _indent(stmt, lines) -> str:
    """The indentation of a statement that starts its line; statement edits need one."""
    prefix = lines[stmt.lineno - 1].encode("utf-8")[:stmt.col_offset].decode("utf-8", "replace")
    if prefix.strip():
        raise NoFix("statement does not start its line")
    return prefix


def _describe(description: str, binds, lines) -> str:
    def sub(m):
        node = binds.get(m.group(1))
        if node is None:
            return m.group(0)
        text = " ".join(segment(node, lines).split())
        return text if len(text) <= 40 else text[:37] + "..."
    return re.sub(r"{([A-Za-z_]\w*)}", sub, description)


# -- rendering a template -------------------------------------------------------------------
def _render(template: str, binds, lines, indent: str, facts=None) -> str:
    """The template with metavariables replaced by their source text; lines after the
    first are indented by `indent` (the source text keeps its own indentation). The
    pseudo-calls `lined_up($M, $X)` and `selected($M, $X)` become the shortest form the
    code proves (`align.py`)."""
    code = _META_RE.sub(lambda m: META_PREFIX + m.group(1), textwrap.dedent(template).strip("\n"))
    tree = ast.parse(code)
    subs: dict[int, list] = {}
    inside: set = set()
    for parent in ast.walk(tree):
        for fname, value in ast.iter_fields(parent):
            for child in value if isinstance(value, list) else (value,):
                if id(child) in inside:
                    continue
                pseudo = _pseudo(child, binds, lines, facts)
                if pseudo is not None:
                    inside.update(id(n) for n in ast.walk(child))
                    node = ast.parse(pseudo, mode="eval").body
                    if needs_parens(node, parent, fname, pseudo):
                        pseudo = f"({pseudo})"
                    subs.setdefault(child.lineno, []).append((child.col_offset, child.end_col_offset, pseudo))
                    continue
                name = meta_name(child) if type(child) is ast.Name else None
                if name is None:
                    continue
                bound = binds.get(name)
                if bound is None:
                    raise NoFix(f"${name} is not bound")
                if isinstance(bound, ast.stmt):
                    if type(parent) is not ast.Expr or getattr(bound, "decorator_list", None):
                        raise NoFix("statement metavariable used inside an expression")
                    text = segment(bound, lines)
                else:
                    text = expression_text(bound, lines, parent, fname)
                subs.setdefault(child.lineno, []).append((child.col_offset, child.end_col_offset, text))
    out = []
    for i, line in enumerate(code.split("\n"), 1):
        raw = line.encode("utf-8")
        for start, end, text in sorted(subs.get(i, ()), reverse=True):
            raw = raw[:start] + text.encode("utf-8") + raw[end:]
        out.append((indent if i > 1 else "") + raw.decode("utf-8"))
    return "\n".join(out)


_PSEUDO = {"lined_up": align.lined_up, "selected": align.selected,
           "broadcast_count": align.broadcast_count}


def _pseudo(node, binds, lines, facts):
    """The text of a pseudo-call `lined_up($M, $X)` / `selected($M, $X)`, else None."""
    if type(node) is not ast.Call or type(node.func) is not ast.Name or node.func.id not in _PSEUDO:
        return None
    names = [meta_name(a) if type(a) is ast.Name else None for a in node.args]
    if len(names) != 2 or None in names or any(binds.get(n) is None for n in names):
        raise NoFix(f"{node.func.id}() takes two bound metavariables")
    mask, x = (binds[n] for n in names)

    def atom(text):
        n = ast.parse(text, mode="eval").body if _parses(text) else None
        return text if n is not None and precedence(n, text) >= _ATOM and "\n" not in text else f"({text})"
    return _PSEUDO[node.func.id](facts.get(), mask, x, segment(mask, lines), segment(x, lines), atom)


class _LazyFacts:
    """Shape facts are only computed for templates that ask for them."""

    def __init__(self, analyzer, chain):
        self.analyzer, self.chain, self.facts = analyzer, chain, None

    def get(self):
        if self.facts is None:
            self.facts = align.Facts(self.analyzer, self.chain)
        return self.facts


def _statement_chain(chain, target):
    """The ancestors of the statement where the matched code starts, nearest first."""
    if isinstance(target, list):
        for k, node in enumerate(chain):
            if any(node is s for s in target):
                return [target[0]] + chain[k + 1:]
        return [target[0]]
    for k, node in enumerate(chain):
        if isinstance(node, ast.stmt):
            return chain[k:]
    return [target]


def expression_text(node, lines, parent, field) -> str:
    """Source text of `node` ready to stand at `parent.field`: parenthesised when the
    position binds tighter than the expression, or when it spans lines without brackets."""
    text = segment(node, lines)
    if needs_parens(node, parent, field, text) or ("\n" in text and not _parses(text)):
        return f"({text})"
    return text


def _parses(text: str) -> bool:
    try:
        ast.parse(text, mode="eval")
        return True
    except SyntaxError:
        return False


# Python's operator precedence, lowest first (the language reference's table).
_ATOM = 16
_BINOP_PREC = {
    ast.BitOr: 7, ast.BitXor: 8, ast.BitAnd: 9, ast.LShift: 10, ast.RShift: 10, ast.Add: 11,
    ast.Sub: 11, ast.Mult: 12, ast.MatMult: 12, ast.Div: 12, ast.FloorDiv: 12, ast.Mod: 12,
    ast.Pow: 14,
}


def precedence(node, text: str | None = None) -> int:
    t = type(node)
    if t in (ast.NamedExpr, ast.Yield, ast.YieldFrom):
        return 0
    if t is ast.Lambda:
        return 1
    if t is ast.IfExp:
        return 2
    if t is ast.BoolOp:
        return 3 if type(node.op) is ast.Or else 4
    if t is ast.UnaryOp:
        return 5 if type(node.op) is ast.Not else 13
    if t is ast.Compare:
        return 6
    if t is ast.BinOp:
        return _BINOP_PREC[type(node.op)]
    if t is ast.Await:
        return 15
    if t is ast.Tuple:                    # ast positions include a tuple's own parentheses
        return _ATOM if text is not None and text.startswith("(") and text.endswith(")") else 0
    if t in (ast.Starred, ast.Slice):
        return 0
    return _ATOM


def _required(parent, field) -> int:
    """The lowest precedence an expression may have at `parent.field` without parentheses."""
    t = type(parent)
    if t in (ast.Attribute, ast.Subscript) and field == "value" or t is ast.Call and field == "func":
        return _ATOM
    if t is ast.BinOp:
        p = _BINOP_PREC[type(parent.op)]
        if type(parent.op) is ast.Pow:
            return 15 if field == "left" else 13
        return p if field == "left" else p + 1
    if t is ast.UnaryOp:
        return 5 if type(parent.op) is ast.Not else 13
    if t is ast.BoolOp:
        return 4 if type(parent.op) is ast.Or else 5
    if t is ast.Compare:
        return 7
    if t is ast.IfExp:
        return 2 if field == "orelse" else 3
    if t is ast.Await:
        return 15
    if t is ast.Starred:
        return 7
    return 1


def needs_parens(node, parent, field, text: str | None = None) -> bool:
    if type(node) is ast.Slice:
        if type(parent) is ast.Subscript or type(parent) is ast.Tuple:
            return False
        raise NoFix("a slice only fits inside a subscript")
    if type(node) is ast.Starred:
        return False
    if type(parent) is ast.Attribute and type(node) is ast.Constant and \
            isinstance(node.value, int) and not isinstance(node.value, bool):
        return True                       # `1.real` is a syntax error; `(1).real` is not
    if type(parent) is ast.Subscript and field == "slice" and type(node) is ast.Tuple:
        return False
    return precedence(node, text) < _required(parent, field)


# -- smallest differing nodes ---------------------------------------------------------------
def _diff(o, n, parent, field, ops) -> None:
    """Append ("replace", old, new, parent, field) for the smallest nodes where `o` and `n`
    differ; descend only while exactly one child differs, so one change is one edit."""
    if same_code(o, n):
        return
    if type(o) is type(n) and isinstance(o, (ast.expr, ast.stmt)):
        differing = _differing_children(o, n)
        if differing is not None and len(differing) == 1:
            kind, a, b, f = differing[0]
            if kind == "node":
                _diff(a, b, o, f, ops)
            else:
                _diff_block(a, b, ops)
            return
    ops.append(("replace", o, n, parent, field))


def _differing_children(o, n):
    out = []
    for f in o._fields:
        if f in _SKIP_FIELDS:
            continue
        a, b = getattr(o, f), getattr(n, f)
        if isinstance(a, list):
            if f in _BODY_FIELDS and all(isinstance(x, ast.stmt) for x in a + b):
                if not _same_list(a, b):
                    out.append(("block", a, b, f))
            elif len(a) == len(b) and all(isinstance(x, (ast.expr, ast.stmt)) for x in a + b):
                out.extend(("node", x, y, f) for x, y in zip(a, b) if not same_code(x, y))
            elif not _same_list(a, b):
                return None
        elif isinstance(a, (ast.expr, ast.stmt)) and isinstance(b, (ast.expr, ast.stmt)):
            if not same_code(a, b):
                out.append(("node", a, b, f))
        elif isinstance(a, ast.AST) or isinstance(b, ast.AST):
            if not (isinstance(a, ast.AST) and isinstance(b, ast.AST) and same_code(a, b)):
                return None
        elif a != b:
            return None
    return out


def _same_list(a, b) -> bool:
    return len(a) == len(b) and all(
        same_code(x, y) if isinstance(x, ast.AST) and isinstance(y, ast.AST) else x == y
        for x, y in zip(a, b))


def _diff_block(old: list, new: list, ops) -> None:
    """Align two statement lists on their common statements (longest common subsequence),
    then handle each gap: insert, delete, or pair statements up from the end."""
    pairs = _lcs(old, new)
    pi = pj = 0
    for i, j in pairs + [(len(old), len(new))]:
        og, ng = old[pi:i], new[pj:j]
        nxt = old[i] if i < len(old) else None
        prev = old[pi - 1] if pi > 0 else None
        extra = len(og) - len(ng)
        if extra > 0:
            after = og[extra] if extra < len(og) else nxt
            if after is None:
                raise NoFix("cannot delete the last statements of a block")
            ops.append(("delete", og[:extra], after))
            og = og[extra:]
        elif extra < 0:
            anchor = og[0] if og else nxt
            if anchor is not None:
                ops.append(("insert", anchor, "before", ng[:-extra]))
            elif prev is not None:
                ops.append(("insert", prev, "after", ng[:-extra]))
            else:
                raise NoFix("empty block")
            ng = ng[-extra:]
        for a, b in zip(og, ng):
            _diff(a, b, None, None, ops)
        pi, pj = i + 1, j + 1


def _lcs(a: list, b: list) -> list:
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if same_code(a[i], b[j]) else \
                max(table[i + 1][j], table[i][j + 1])
    out, i, j = [], 0, 0
    while i < n and j < m:
        if same_code(a[i], b[j]):
            out.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


# -- operations to edits --------------------------------------------------------------------
def _start(node, lines):
    return node.lineno, char_col(lines, node.lineno, node.col_offset)


def _end(node, lines):
    return node.end_lineno, char_col(lines, node.end_lineno, node.end_col_offset)


def _edits(ops, lines, new_lines):
    for op in ops:
        kind = op[0]
        if kind == "replace":
            _, o, n, parent, field = op
            if type(getattr(o, "ctx", None)) in (ast.Store, ast.Del):
                raise NoFix("cannot replace an assignment target")
            if isinstance(o, ast.stmt):
                text = segment(n, new_lines)
                if "\n" in text:
                    _indent(o, lines)       # a multi-line statement needs its own line
            else:
                text = segment(n, new_lines)
                if (needs_parens(n, parent, field, text) and
                        not needs_parens(o, parent, field, segment(o, lines))) or \
                        ("\n" in text and not _parses(text)):
                    text = f"({text})"
            yield Edit(*_start(o, lines), *_end(o, lines), text)
        elif kind == "insert":
            _, anchor, where, stmts = op
            indent = _indent(anchor, lines)
            texts = [segment(s, new_lines) for s in stmts]
            if where == "before":
                content = "".join(t + "\n" + indent for t in texts)
                yield Edit(*_start(anchor, lines), *_start(anchor, lines), content)
            else:
                content = "".join("\n" + indent + t for t in texts)
                yield Edit(*_end(anchor, lines), *_end(anchor, lines), content)
        else:                                          # delete
            _, gone, after = op
            _indent(gone[0], lines)
            _indent(after, lines)
            yield Edit(*_start(gone[0], lines), *_start(after, lines), "")
