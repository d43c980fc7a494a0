"""Applying fix edits with libcst, and adding the imports the fixes need.

An edit names a span of the source (1-based line, 1-based character column, end exclusive)
and the code to put there. libcst finds the node whose position is exactly that span (via
PositionProvider) and the parsed replacement takes its place:

* an expression span: that expression (its own parentheses stay);
* a one-line statement span: that statement (its line's trailing comment stays);
* a zero-width edit at a statement's start (end): new statements before (after) it;
* an empty edit from a statement's start to a later statement's start: the statements in
  between are deleted (comments above the first one stay);
* otherwise a run of whole statements is replaced.

Only the smallest run of statements holding a fix's edits (say, one method) is parsed and
printed by libcst; its new text is spliced into the source. Everything else stays
byte-identical, without a whole-module parse, position pass and print for each changed line
of a 4000-line file.
"""
from __future__ import annotations

import ast
import re

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
OPTIONAL = "optional "                 # an import that may be missing at run time


class Unplaced(Exception):
    """An edit whose span is not a node (or run of statements) libcst knows."""


def split_lines(text: str) -> list[str]:
    """Lines with their own endings, split the way Python's tokenizer splits them."""
    return _LINE.findall(text)


def rewrite(text: str, fixes: list, tree=None):
    """(new text, fixes applied, problems). `tree` is `text` parsed by ast, if at hand."""
    import libcst as cst

    lines = split_lines(text)
    regions = _regions(tree if tree is not None else ast.parse(text), lines, fixes)
    applied, problems, splices = [], [], []
    for first, last, members in regions:
        region = "".join(lines[first - 1:last])
        indent = region[:len(region) - len(region.lstrip(" \t"))]
        # A nested region is parsed inside `if 1:`; columns stay those of the file. libcst
        # takes the first line's ending as the one for new lines: give it the region's.
        newline = re.search(r"\r\n|\r|\n", region)
        wrapper = "if 1:" + (newline.group() if newline else "\n") if indent else ""
        module = cst.parse_module(wrapper + region)
        plan = _Plan(module, first - 1 - (1 if wrapper else 0))
        done = []
        for fix in members:
            try:
                plan.add(fix.edits)
                done.append(fix)
            except (Unplaced, cst.ParserSyntaxError) as exc:
                problems.append(f"a {fix.applicability} fix was skipped ({exc})")
        if done:
            code = module.visit(plan.transformer()).code
            splices.append((first, last, code[len(wrapper):]))
            applied.extend(done)
    placed = {id(f) for _, _, m in regions for f in m}
    problems.extend(f"a {f.applicability} fix was skipped (its edits are not in whole statements)"
                    for f in fixes if id(f) not in placed)
    for first, last, code in sorted(splices, reverse=True):
        lines[first - 1:last] = [code]
    new = "".join(lines)
    imports = list(dict.fromkeys(i for fix in applied for i in fix.imports))
    if imports and new != text:
        new = add_imports(new, imports)
    return new, applied, problems


def _regions(tree, lines, fixes):
    """(first line, last line, fixes): for each fix the smallest run of sibling statements
    holding all its edits and filling whole lines; runs that overlap are merged."""
    spans = []
    for fix in fixes:
        lo = min(e.line for e in fix.edits)
        hi = max(e.end_line for e in fix.edits)
        run = _smallest_run(tree.body, lo, hi, lines)
        if run is not None:
            spans.append([run[0], run[1], [fix]])
    spans.sort(key=lambda s: (s[0], -s[1]))
    merged: list = []
    for s in spans:
        if merged and s[0] <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], s[1])
            merged[-1][2].extend(s[2])
        else:
            merged.append(s)
    return [tuple(m) for m in merged]


def _first_line(stmt) -> int:
    return min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])


def _smallest_run(block, lo, hi, lines):
    """Lines (first, last) of the sibling statements of `block` (or of a nested block) that
    cover lines lo..hi, or None."""
    hit = [s for s in block if _first_line(s) <= hi and s.end_lineno >= lo]
    if not hit:
        return None
    if len(hit) == 1:
        s = hit[0]
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(s, field, None)
            if type(inner) is list and inner:
                nested = inner if field not in ("handlers", "cases") else None
                if nested is None:          # except clauses / match cases hold the bodies
                    for h in inner:
                        if h.body and _first_line(h.body[0]) <= lo and hi <= h.body[-1].end_lineno:
                            run = _smallest_run(h.body, lo, hi, lines)
                            if run is not None:
                                return run
                    continue
                if _first_line(inner[0]) <= lo and hi <= inner[-1].end_lineno:
                    run = _smallest_run(inner, lo, hi, lines)
                    if run is not None:
                        return run
    first, last = hit[0], hit[-1]
    if not _whole_lines(first, last, lines):
        return None
    return _first_line(first), last.end_lineno


def _whole_lines(first, last, lines) -> bool:
    """The run starts its first line and ends its last (no `;` neighbours)."""
    head = lines[_first_line(first) - 1].encode("utf-8")
    start = first.col_offset if not getattr(first, "decorator_list", None) else \
        min(d.col_offset for d in first.decorator_list) - 1
    if head[:max(start, 0)].strip():
        return False
    tail = lines[last.end_lineno - 1].encode("utf-8")[last.end_col_offset:].strip()
    return not tail or tail.startswith(b"#")


class _Plan:
    """What to change in one parsed region, keyed by id() of its original libcst nodes."""

    def __init__(self, module, offset: int):
        import libcst as cst
        from libcst.metadata import MetadataWrapper, PositionProvider
        self.cst, self.offset = cst, offset
        self.lines = split_lines(module.code)
        self.positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        self.by_span: dict[tuple, list] = {}
        self.line_start: dict[tuple, object] = {}
        self.line_end: dict[tuple, object] = {}
        statements = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
        for node, r in self.positions.items():
            start, end = (r.start.line, r.start.column), (r.end.line, r.end.column)
            self.by_span.setdefault(start + end, []).append(node)
            if isinstance(node, statements):
                self.line_start[start] = node
                self.line_end[end] = node
        self.exprs: dict[int, object] = {}
        self.smalls: dict[int, object] = {}
        self.before: dict[int, list] = {}
        self.after: dict[int, list] = {}
        self.delete: dict[int, object] = {}        # first deleted -> first kept after
        self.runs: dict[int, tuple] = {}           # first replaced -> (last replaced, new)
        self.touched: list[tuple[int, int]] = []   # line ranges holding changes

    def add(self, edits) -> None:
        """Place every edit of one fix, or none of them."""
        staged = [self._place(e) for e in edits]
        for table, key, value, lines in staged:
            if table is self.before or table is self.after:
                table.setdefault(key, []).extend(value)
            else:
                table[key] = value
            self.touched.append(lines)

    def _place(self, e):
        cst = self.cst
        start = (e.line - self.offset, e.column - 1)
        end = (e.end_line - self.offset, e.end_column - 1)
        lines = (start[0], end[0])
        if start == end:
            if not e.content.strip():
                raise Unplaced("empty insertion")
            stmt = self.line_start.get(start)
            if stmt is not None:
                return self.before, id(stmt), self._statements(e.content, start), lines
            stmt = self.line_end.get(start)
            if stmt is not None:
                first = self.positions[stmt].start
                return self.after, id(stmt), self._statements(e.content, (first.line, first.column)), lines
            raise Unplaced(f"no statement at line {e.line}")
        if not e.content:
            first, kept = self.line_start.get(start), self.line_start.get(end)
            if first is None or kept is None:
                raise Unplaced(f"no statements to delete at line {e.line}")
            return self.delete, id(first), kept, lines
        nodes = self.by_span.get(start + end, ())
        expr = next((n for n in nodes if isinstance(n, cst.BaseExpression)), None)
        if expr is not None:
            try:
                return self.exprs, id(expr), cst.parse_expression(e.content), lines
            except cst.ParserSyntaxError:
                pass
        small = next((n for n in nodes if isinstance(n, cst.BaseSmallStatement)), None)
        if small is not None and "\n" not in e.content:
            line = cst.parse_statement(e.content + "\n")
            if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                return self.smalls, id(small), line.body[0], lines
        first, last = self.line_start.get(start), self.line_end.get(end)
        if first is None or last is None:
            raise Unplaced(f"no node spans line {e.line} column {e.column} to "
                           f"line {e.end_line} column {e.end_column}")
        return self.runs, id(first), (last, self._statements(e.content, start)), lines

    def _statements(self, content: str, start) -> list:
        """Statements parsed from edit text, for the block whose statement starts at `start`."""
        indent = self.lines[start[0] - 1][:start[1]]
        if indent.strip():
            raise Unplaced("statement does not start its line")
        body = content.strip()
        if indent:
            return list(self.cst.parse_module(f"if 1:\n{indent}{body}\n").body[0].body.body)
        return list(self.cst.parse_module(body + "\n").body)

    def transformer(self):
        return _make_transformer(self)


def _make_transformer(plan):
    """A libcst transformer doing what `plan` says, visiting only subtrees with changes."""
    import libcst as cst

    touched = plan.touched
    positions = plan.positions

    class Rewriter(cst.CSTTransformer):
        def on_visit(self, node):
            r = positions.get(node)
            if r is None:
                return True
            return any(a <= r.end.line and r.start.line <= b for a, b in touched)

        def on_leave(self, original, updated):
            key = id(original)
            new = plan.exprs.get(key)
            if new is not None:
                lpar = getattr(updated, "lpar", None)
                if lpar and hasattr(new, "lpar"):   # keep the parentheses around the old node
                    new = new.with_changes(lpar=[*lpar, *new.lpar], rpar=[*new.rpar, *updated.rpar])
                return new
            new = plan.smalls.get(key)
            if new is not None:
                if hasattr(updated, "semicolon") and hasattr(new, "semicolon"):
                    new = new.with_changes(semicolon=updated.semicolon)
                return new
            if isinstance(updated, (cst.IndentedBlock, cst.Module)):
                body = _body(plan, original.body, updated.body)
                if body is not None:
                    return updated.with_changes(body=body)
            return updated

    return Rewriter()


def _body(plan, originals, updated):
    """The new statement list of a block, or None if no statement-level edit is in it."""
    keys = [id(o) for o in originals]
    if not any(k in plan.before or k in plan.after or k in plan.delete or k in plan.runs
               for k in keys):
        return None
    out: list = []
    carry = None          # leading comments of the first deleted statement, for the next one
    skip_to = None        # the original statement at which deleting stops (it is kept)
    skip_through = None   # the original statement at which replacing stops (it goes too)
    for o, u, k in zip(originals, updated, keys):
        if skip_through is not None:
            if o is skip_through:
                skip_through = None
            continue
        if skip_to is not None:
            if o is not skip_to:
                continue
            skip_to = None
        if k in plan.delete:
            skip_to, carry = plan.delete[k], (carry if carry is not None else u.leading_lines)
            continue
        if carry is not None:
            u, carry = u.with_changes(leading_lines=carry), None
        if k in plan.runs:
            last, new = plan.runs[k]
            out.extend([new[0].with_changes(leading_lines=u.leading_lines), *new[1:]])
            if last is not o:
                skip_through = last
            continue
        if k in plan.before:
            new = plan.before[k]
            out.extend([new[0].with_changes(leading_lines=u.leading_lines), *new[1:]])
            u = u.with_changes(leading_lines=())
        out.append(u)
        out.extend(plan.after.get(k, ()))
    return out


# -- imports ---------------------------------------------------------------------------------
def add_imports(text: str, imports) -> str:
    """Add each import the fixes need, once, after the module's leading imports (libcst
    prints the head of the module with them). `torch` or `a.b` means `import ...`;
    `from a import b` is used as written; an entry starting with `optional ` is guarded, so
    the file still imports without that package and the names become do-nothing functions
    (`optional from habana_frameworks.torch.core import mark_step`)."""
    import libcst as cst
    tree = ast.parse(text)
    bound = top_level_names(tree)
    code = []
    for spec in imports:
        optional = spec.startswith(OPTIONAL)
        stmt = spec[len(OPTIONAL):].strip() if optional else spec.strip()
        if not stmt.startswith(("import ", "from ")):
            stmt = f"import {stmt}"
        names = _names_bound(stmt)
        if names <= bound:
            continue
        bound |= names
        if not optional:
            code.append(stmt + "\n")
            continue
        package = stmt.split()[1].split(".")[0]
        listed = ", ".join(f"{n}()" for n in sorted(names))
        code.append(f"try:\n    {stmt}\n"
                    f"except ImportError:  # no {package}: {listed} does nothing\n")
        code.extend(f"    def {n}(*args, **kwargs):\n        return None\n" for n in sorted(names))
    if not code:
        return text
    lines = split_lines(text)
    at = _import_line(tree)
    head = cst.parse_module("".join(lines[:at]))
    newline = head.default_newline
    added = cst.parse_module("".join(code).replace("\n", newline)).body
    if lines[:at] and not lines[at - 1].endswith(("\n", "\r")):
        lines[at - 1] += newline
        head = cst.parse_module("".join(lines[:at]))
    head = head.with_changes(body=[*head.body, *added], has_trailing_newline=True)
    return head.code + "".join(lines[at:])


def _names_bound(stmt: str) -> set:
    node = ast.parse(stmt).body[0]
    if type(node) is ast.Import:
        return {a.asname or a.name.split(".")[0] for a in node.names}
    return {a.asname or a.name for a in node.names}


def top_level_names(tree) -> set:
    """Names bound at module level by imports and definitions, also inside a top-level
    `try` or `if` (guarded imports)."""
    out = set()
    todo = list(tree.body)
    while todo:
        s = todo.pop()
        if type(s) is ast.Import:
            out.update(a.asname or a.name.split(".")[0] for a in s.names)
        elif type(s) is ast.ImportFrom:
            out.update(a.asname or a.name for a in s.names)
        elif type(s) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            out.add(s.name)
        elif type(s) in (ast.Try, ast.If) or type(s).__name__ == "TryStar":
            todo.extend(s.body)
            todo.extend(s.orelse)
            for h in getattr(s, "handlers", ()):
                todo.extend(h.body)
    return out


def _import_line(tree) -> int:
    """The line after which new imports go: the last top-level import before the first
    definition, else the docstring, else the comment lines above the first statement."""
    at = None
    for i, s in enumerate(tree.body):
        if type(s) in (ast.Import, ast.ImportFrom):
            at = s.end_lineno
        elif i == 0 and type(s) is ast.Expr and type(s.value) is ast.Constant and \
                isinstance(s.value.value, str):
            at = s.end_lineno
        elif type(s) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            break
    if at is None:
        at = tree.body[0].lineno - 1 if tree.body else 0
        first = tree.body[0] if tree.body else None
        if first is not None and getattr(first, "decorator_list", None):
            at = min(d.lineno for d in first.decorator_list) - 1
    return at
