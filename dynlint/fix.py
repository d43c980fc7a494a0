"""Applying fixes (`dynlint check --fix`): libcst rewrites the files that have fixable findings.

Per file, until nothing changes (at most MAX_ROUNDS):

    check -> keep the allowed fixes -> drop those overlapping an earlier one (next round)
          -> libcst: find the node at each edit's span, put the parsed replacement there
          -> add the imports the fixes need, once -> the result must parse

Everything libcst does not touch is printed back exactly as it was read (comments, blank
lines, CRLF line endings). Files are written atomically (a temporary file in the same
directory, then a rename) with their mode, encoding and BOM, and never over a file that
changed on disk since it was read.
"""
from __future__ import annotations

import ast
import dataclasses
import difflib
import hashlib
import io
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass, field

from . import source as sourcelib
from .config import per_file_ignored

MAX_ROUNDS = 6
PARALLEL_FILES = 8                     # fewer files than this are fixed in this process
_LINE_SPLIT = re.compile(r"\r\n|\r|\n")
OPTIONAL = "optional "                 # an import that may be missing at run time


@dataclass
class FixResult:
    remaining: list                    # findings after fixing (re-checked)
    fixed: int = 0                     # fixes applied
    diff: str = ""                     # unified diff of every change
    messages: list = field(default_factory=list)
    output: str | None = None          # the fixed source, when it came from stdin


def allowed(fix, unsafe: bool = False, display_only: bool = False) -> bool:
    if fix is None:
        return False
    return fix.applicability == "safe" or (fix.applicability == "unsafe" and unsafe) or \
        (fix.applicability == "display-only" and display_only)


# -- the entry points -----------------------------------------------------------------------
def fix_source(source: str, path: str, engine, unsafe: bool = False,
               display_only: bool = False) -> str:
    """`source` with every allowed fix applied (used by the rule example tests)."""
    return fix_text(source, path, engine, unsafe, display_only)[0]


def apply_fixes(findings, engine, settings=None, unsafe=False, display_only=False, write=True,
                stdin=None, jobs=None) -> FixResult:
    """Fix the files behind `findings`. `stdin` is the source text read from `-`, if any:
    it is fixed in memory and returned as `output`."""
    ignores = getattr(settings, "per_file_ignores", None) or {}
    by_path: dict[str, list] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    result = FixResult(remaining=[])
    if stdin is not None:
        path = findings[0].path if findings else "-"
        text, fixed, remaining, messages = fix_text(stdin, path, engine, unsafe, display_only,
                                                    keep=_keeper(path, ignores))
        result.output, result.fixed, result.messages = text, fixed, messages
        result.remaining = remaining
        result.diff = unified_diff(stdin, text, path)
        return result
    todo = [p for p, fs in by_path.items() if any(allowed(f.fix, unsafe, display_only) for f in fs)]
    for path, fs in by_path.items():
        if path not in todo:
            result.remaining.extend(fs)
    job = (engine, unsafe, display_only, write, ignores)
    for path, outcome in zip(todo, _map(job, [(p, by_path[p]) for p in todo], jobs)):
        remaining, fixed, diff, messages = outcome
        result.remaining.extend(by_path[path] if remaining is None else remaining)
        result.fixed += fixed
        result.diff += diff
        result.messages.extend(messages)
    result.remaining.sort(key=lambda f: f.sort_key)
    return result


def _keeper(path, ignores):
    if not ignores:
        return None
    return lambda f: not per_file_ignored(f.path, f.code, ignores)


# -- one file -------------------------------------------------------------------------------
_JOB = None


def _map(job, paths, jobs):
    global _JOB
    _JOB = job
    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1 or len(paths) < PARALLEL_FILES:
        return [_fix_file(p) for p in paths]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    try:
        ctx = multiprocessing.get_context("fork")     # the workers inherit the compiled rules
    except ValueError:
        return [_fix_file(p) for p in paths]
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        return list(pool.map(_fix_file, paths, chunksize=1))


def _fix_file(item):
    """(remaining findings or None if unchanged, fixes applied, diff, messages)."""
    path, before = item
    engine, unsafe, display_only, write, ignores = _JOB
    try:
        data = _read(path)
        text = sourcelib.decode(data, path)
    except (OSError, sourcelib.SourceError) as exc:
        return None, 0, "", [f"{path}: cannot read for fixing: {exc}"]
    new, fixed, remaining, messages = fix_text(text, path, engine, unsafe, display_only,
                                               keep=_keeper(path, ignores))
    if new == text:
        return None, 0, "", messages
    remaining = remaining + _carried(before, engine.check(text, path), text, new)
    diff = unified_diff(text, new, path)
    if not write:
        return None, 0, diff, messages
    try:
        encoded = new.encode(_encoding(data))
    except (UnicodeEncodeError, LookupError) as exc:
        return None, 0, diff, messages + [f"{path}: fixed text cannot be encoded ({exc}); not written"]
    try:
        if _digest(_read(path)) != _digest(data):
            return None, 0, diff, messages + [
                f"{path}: file changed on disk since it was read; not overwritten"]
        _atomic_write(path, encoded)
    except OSError as exc:
        return None, 0, diff, messages + [f"{path}: cannot write: {exc}"]
    return remaining, fixed, diff, messages


def _carried(before, alone, old, new) -> list:
    """Findings a single-file check does not give (another file's model code calls this
    code, see runner's cross-file step), moved to their lines in the fixed text."""
    local = {(f.code, f.line, f.column) for f in alone}
    extra = [f for f in before if (f.code, f.line, f.column) not in local]
    if not extra:
        return []
    moved = {}
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    for tag, i1, i2, j1, _ in matcher.get_opcodes():
        for i in range(i1, i2):
            moved[i + 1] = j1 + (i - i1 if tag == "equal" else 0) + 1
    out = []
    for f in extra:
        line = moved.get(f.line, f.line)
        out.append(dataclasses.replace(f, line=line, end_line=line + f.end_line - f.line))
    return out


def _read(path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _encoding(data: bytes) -> str:
    """The file's own encoding; 'utf-8-sig' writes the BOM back."""
    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


def _atomic_write(path, data: bytes) -> None:
    """Write through a temporary file in the same directory and rename it over the target,
    so a reader (or an interrupted run) sees either the old file or the new one."""
    real = os.path.realpath(path)
    mode = stat.S_IMODE(os.stat(real).st_mode)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(real) or ".",
                               prefix=f".{os.path.basename(real)}.", suffix=".dynlint-tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def unified_diff(old: str, new: str, path: str) -> str:
    if old == new:
        return ""
    lines = difflib.unified_diff(old.splitlines(True), new.splitlines(True), path, path)
    out = []
    for line in lines:
        out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(out)


# -- the fixing loop --------------------------------------------------------------------------
def fix_text(text: str, path: str, engine, unsafe=False, display_only=False, keep=None):
    """(fixed text, fixes applied, remaining findings, messages) for one module's source."""
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    messages: list[str] = []
    fixed = 0
    findings = None
    for _ in range(MAX_ROUNDS):
        findings = _check(engine, text, path, keep)
        chosen = choose([f.fix for f in findings if allowed(f.fix, unsafe, display_only)])
        if not chosen:
            break
        try:
            new, applied, problems = rewrite(text, chosen)
        except Exception as exc:              # libcst cannot parse it, or a bug: leave it
            messages.append(f"{path}: fixes not applied ({type(exc).__name__}: {exc})")
            break
        messages.extend(f"{path}: {p}" for p in problems)
        try:
            ast.parse(new)
        except SyntaxError as exc:
            messages.append(f"{path}: fixes produced code that does not parse ({exc.msg}, "
                            f"line {exc.lineno}); file left unchanged, please report this")
            break
        if new == text or not applied:
            break
        text, fixed = new, fixed + len(applied)
        findings = None
    if findings is None:
        findings = _check(engine, text, path, keep)
    return ("\ufeff" if bom else "") + text, fixed, findings, messages


def _check(engine, text, path, keep):
    findings = engine.check(text, path)
    return [f for f in findings if keep(f)] if keep is not None else findings


def choose(fixes) -> list:
    """Fixes that can be applied together: in source order, skipping any whose edits overlap
    an earlier one (the next round gets it) and duplicates of one already chosen."""
    chosen, spans, seen = [], [], set()
    for fix in sorted(fixes, key=lambda x: [(e.line, e.column) for e in x.edits]):
        key = fix.edits
        if key in seen:
            continue
        mine = [((e.line, e.column), (e.end_line, e.end_column)) for e in fix.edits]
        if any(_overlap(a, b) for a in mine for b in spans):
            continue
        seen.add(key)
        spans.extend(mine)
        chosen.append(fix)
    return chosen


def _overlap(a, b) -> bool:
    (s1, e1), (s2, e2) = a, b
    if s1 == e1 and s2 == e2:
        return s1 == s2
    if s1 == e1:
        return s2 < s1 < e2
    if s2 == e2:
        return s1 < s2 < e1
    return s1 < e2 and s2 < e1


# -- libcst ----------------------------------------------------------------------------------
class _Unplaced(Exception):
    """An edit whose span is not a node (or run of statements) libcst knows."""


def rewrite(text: str, fixes: list):
    """(new text, fixes applied, problems): apply the edits of `fixes` to `text` with libcst."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    module = cst.parse_module(text)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    plan = _Plan(positions, _LINE_SPLIT.split(text))
    applied, problems = [], []
    for fix in fixes:
        try:
            plan.add(fix.edits)
            applied.append(fix)
        except (_Unplaced, cst.ParserSyntaxError) as exc:
            problems.append(f"a {fix.applicability} fix was skipped ({exc})")
    if not applied:
        return text, [], problems
    new = module.visit(_make_rewriter(plan))
    imports = list(dict.fromkeys(i for fix in applied for i in fix.imports))
    if imports:
        new = add_imports(new, imports)
    return new.code, applied, problems


class _Plan:
    """What to change, keyed by the id() of the original libcst nodes."""

    def __init__(self, positions, lines):
        import libcst as cst
        self.cst = cst
        self.lines = lines
        self.by_span: dict[tuple, list] = {}
        self.line_start: dict[tuple, object] = {}
        self.line_end: dict[tuple, object] = {}
        statements = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
        for node, r in positions.items():
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
        self._pending: list = []

    def add(self, edits) -> None:
        """Place every edit of one fix, or none of them."""
        staged = [self._place(e) for e in edits]
        for table, key, value in staged:
            if table is self.before or table is self.after:
                table.setdefault(key, []).extend(value)
            else:
                table[key] = value

    def _place(self, e):
        cst = self.cst
        start, end = (e.line, e.column - 1), (e.end_line, e.end_column - 1)
        if start == end:
            if not e.content.strip():
                raise _Unplaced("empty insertion")
            stmt = self.line_start.get(start)
            if stmt is not None:
                return self.before, id(stmt), self._statements(e.content, stmt, start)
            stmt = self.line_end.get(start)
            if stmt is not None:
                return self.after, id(stmt), self._statements(e.content, stmt, start, after=True)
            raise _Unplaced(f"no statement at line {e.line}")
        if not e.content:
            first, kept = self.line_start.get(start), self.line_start.get(end)
            if first is None or kept is None:
                raise _Unplaced(f"no statements to delete at line {e.line}")
            return self.delete, id(first), kept
        nodes = self.by_span.get(start + end, ())
        expr = next((n for n in nodes if isinstance(n, cst.BaseExpression)), None)
        if expr is not None:
            try:
                return self.exprs, id(expr), cst.parse_expression(e.content)
            except cst.ParserSyntaxError:
                pass
        small = next((n for n in nodes if isinstance(n, cst.BaseSmallStatement)), None)
        if small is not None and "\n" not in e.content:
            line = cst.parse_statement(e.content + "\n")
            if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                return self.smalls, id(small), line.body[0]
        first, last = self.line_start.get(start), self.line_end.get(end)
        if first is None or last is None:
            raise _Unplaced(f"no node spans line {e.line} column {e.column} to "
                            f"line {e.end_line} column {e.end_column}")
        return self.runs, id(first), (last, self._statements(e.content, first, start))

    def _statements(self, content: str, anchor, start, after=False) -> list:
        """Statements parsed from edit text, indented like `anchor`."""
        indent = self.lines[start[0] - 1][:start[1]] if not after else \
            self._indent_of(anchor)
        if indent.strip():
            raise _Unplaced("statement does not start its line")
        body = content.strip()
        if indent:
            return list(self.cst.parse_module(f"if 1:\n{indent}{body}\n").body[0].body.body)
        return list(self.cst.parse_module(body + "\n").body)

    def _indent_of(self, stmt) -> str:
        for (line, col), node in self.line_start.items():
            if node is stmt:
                return self.lines[line - 1][:col]
        raise _Unplaced("statement not found")


def _make_rewriter(plan):
    """A transformer doing what `plan` says (a factory, so libcst is imported only here)."""
    import libcst as cst

    class Rewriter(cst.CSTTransformer):
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
                return new.with_changes(semicolon=updated.semicolon) \
                    if hasattr(updated, "semicolon") and hasattr(new, "semicolon") else new
            if isinstance(updated, (cst.IndentedBlock, cst.Module)):
                body = _body(plan, original.body, updated.body)
                if body is not None:
                    return updated.with_changes(body=body)
            return updated

    return Rewriter()


def _body(plan, originals, updated):
    """The new statement list of a block, or None if nothing in it changes."""
    keys = [id(o) for o in originals]
    if not any(k in plan.before or k in plan.after or k in plan.delete or k in plan.runs
               for k in keys):
        return None
    out: list = []
    carry = None          # leading comments of deleted statements, for the next kept one
    skip_to = None        # the original node at which deleting stops (kept)
    skip_through = None   # the original node at which replacing stops (replaced too)
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
            skip_to, carry = plan.delete[k], (carry or u.leading_lines)
            continue
        if carry is not None:
            u, carry = u.with_changes(leading_lines=carry), None
        if k in plan.runs:
            last, new = plan.runs[k]
            new = [new[0].with_changes(leading_lines=u.leading_lines), *new[1:]]
            out.extend(new)
            if last is not o:
                skip_through = last
            continue
        if k in plan.before:
            new = plan.before[k]
            out.append(new[0].with_changes(leading_lines=u.leading_lines))
            out.extend(new[1:])
            u = u.with_changes(leading_lines=())
        out.append(u)
        out.extend(plan.after.get(k, ()))
    return out



# -- imports ---------------------------------------------------------------------------------
def add_imports(module, imports):
    """Add each needed import once, after the module's leading imports. `torch` and
    `a.b` become `import ...`; `from a import b` is kept as written; an entry starting with
    `optional ` is guarded so the file still imports without that package, and falls back
    to a do-nothing function (`optional from habana_frameworks.torch.core import mark_step`)."""
    import libcst as cst
    bound = _top_level_names(module)
    new = []
    for spec in imports:
        optional = spec.startswith(OPTIONAL)
        stmt = spec[len(OPTIONAL):].strip() if optional else spec.strip()
        if not stmt.startswith(("import ", "from ")):
            stmt = f"import {stmt}"
        names = _names_bound(stmt)
        if names and names <= bound:
            continue
        bound |= names
        if optional:
            package = stmt.split()[1].split(".")[0]
            fallback = "".join(f"    def {n}(*args, **kwargs):\n        return None\n"
                               for n in sorted(names))
            code = (f"try:\n    {stmt}\n"
                    f"except ImportError:  # no {package}: {', '.join(sorted(names))}() does nothing\n"
                    f"{fallback}")
        else:
            code = stmt + "\n"
        new.extend(cst.parse_module(code).body)
    if not new:
        return module
    body = list(module.body)
    at = _import_position(body)
    return module.with_changes(body=body[:at] + new + body[at:])


def _names_bound(stmt: str) -> set:
    node = ast.parse(stmt).body[0]
    out = set()
    for a in node.names:
        if type(node) is ast.Import:
            out.add(a.asname or a.name.split(".")[0])
        else:
            out.add(a.asname or a.name)
    return out


def _top_level_names(module) -> set:
    """Names bound at module level by imports and defs (also inside top-level try/if)."""
    import libcst as cst
    out = set()
    todo = list(module.body)
    while todo:
        s = todo.pop()
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                if isinstance(small, cst.Import):
                    for a in small.names:
                        name = a.asname.name.value if a.asname else cst.helpers.get_full_name_for_node(a.name)
                        out.add(name.split(".")[0] if not a.asname else name)
                elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    for a in small.names:
                        out.add(a.asname.name.value if a.asname else
                                cst.helpers.get_full_name_for_node(a.name))
        elif isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            out.add(s.name.value)
        elif isinstance(s, (cst.Try, cst.If)):
            todo.extend(s.body.body)
            for h in getattr(s, "handlers", ()):
                todo.extend(h.body.body)
            orelse = getattr(s, "orelse", None)
            if orelse is not None and hasattr(orelse, "body") and hasattr(orelse.body, "body"):
                todo.extend(orelse.body.body)
    return out


def _import_position(body) -> int:
    """After the last import in the module's head (docstring, imports, `__future__`...),
    before the first definition or other code."""
    import libcst as cst
    at = 0
    for i, s in enumerate(body):
        if isinstance(s, cst.SimpleStatementLine):
            if all(isinstance(x, (cst.Import, cst.ImportFrom)) for x in s.body):
                at = i + 1
                continue
            if i == 0 and len(s.body) == 1 and isinstance(s.body[0], cst.Expr) and \
                    isinstance(s.body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
                at = 1
                continue
        if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            break
    return at
