"""Applying fixes (`dynlint check --fix`): rewriting the files that have fixable findings.

Per file, until nothing changes (at most MAX_ROUNDS):

    check -> keep the allowed fixes -> drop those overlapping an earlier one (next round)
          -> libcst applies the edits and adds the imports (rewrite.py) -> the result must parse

Everything the fixes do not touch stays byte-identical (comments, blank lines, CRLF line
endings). Files are written atomically (a temporary file in the same
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
import stat
import tempfile
import tokenize
from dataclasses import dataclass, field

from ..project import notebook
from ..project import source as sourcelib
from .layout import wrap_long_statements
from .splice import rewrite

MAX_ROUNDS = 6
PARALLEL_FILES = 8                     # fewer files than this are fixed in this process


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


def apply_fixes(findings, engine, plan=None, unsafe=False, display_only=False, write=True,
                stdin=None, jobs=None, stdin_path=None) -> FixResult:
    """Fix the files behind `findings`. `stdin` is the source text read from `-`, if any:
    it is fixed in memory and returned as `output`. With a `plan` (plan.Plan), each file is
    re-checked with its own configuration's engine, per-file-ignores and selection."""
    by_path: dict[str, list] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    result = FixResult(remaining=[])
    if stdin is not None:
        path = stdin_path or (findings[0].path if findings else "-")
        if path.endswith(notebook.SUFFIX):          # the notebook's JSON, fixed cell by cell
            text, fixed, remaining, messages = _fix_notebook_text(
                stdin, path, _engine(engine, plan, path), unsafe, display_only, _keeper(plan))
        else:
            text, fixed, remaining, messages = fix_text(stdin, path, _engine(engine, plan, path),
                                                        unsafe, display_only, keep=_keeper(plan))
        result.output, result.fixed, result.messages = text, fixed, messages
        result.remaining = remaining
        result.diff = unified_diff(stdin, text, path)
        return result
    todo = [p for p, fs in by_path.items() if any(allowed(f.fix, unsafe, display_only) for f in fs)]
    for path, fs in by_path.items():
        if path not in todo:
            result.remaining.extend(fs)
    job = (engine, unsafe, display_only, write, plan)
    for path, outcome in zip(todo, _map(job, [(p, by_path[p]) for p in todo], jobs)):
        remaining, fixed, diff, messages = outcome
        result.remaining.extend(by_path[path] if remaining is None else remaining)
        result.fixed += fixed
        result.diff += diff
        result.messages.extend(messages)
    result.remaining.sort(key=lambda f: f.sort_key)
    return result


def _keeper(plan):
    return plan.keep if plan is not None else None


def _engine(engine, plan, path):
    return plan.engine_for(path) if plan is not None else engine


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
    engine, unsafe, display_only, write, plan = _JOB
    engine = _engine(engine, plan, path)
    if path.endswith(notebook.SUFFIX):
        return _fix_notebook(path, before)
    try:
        data = read_file_bytes(path)
        text = sourcelib.decode(data, path)
    except (OSError, sourcelib.SourceError) as exc:
        return None, 0, "", [f"{path}: cannot read for fixing: {exc}"]
    alone: list = []
    new, fixed, remaining, messages = fix_text(text, path, engine, unsafe, display_only,
                                               keep=_keeper(plan), first=alone)
    if new == text:
        return None, 0, "", messages
    remaining = remaining + _carried(before, alone, text, new)
    diff = unified_diff(text, new, path)
    if not write:
        return None, 0, diff, messages
    try:
        encoded = new.encode(_encoding(data))
    except (UnicodeEncodeError, LookupError) as exc:
        return None, 0, diff, messages + [f"{path}: fixed text cannot be encoded ({exc}); not written"]
    problem = _write_unless_changed(path, data, encoded)
    if problem:
        return None, 0, diff, messages + [problem]
    return remaining, fixed, diff, messages


def _write_unless_changed(path, read_bytes: bytes, new_bytes: bytes) -> str | None:
    """Write atomically, unless the file changed on disk since `read_bytes` were read (another
    tool or an editor saved it): a message saying why nothing was written, else None."""
    try:
        if _digest(read_file_bytes(path)) != _digest(read_bytes):
            return f"{path}: file changed on disk since it was read; not overwritten"
        atomic_write(path, new_bytes)
    except OSError as exc:
        return f"{path}: cannot write: {exc}"
    return None


def _fix_notebook(path, before):
    """Fix the code cells of a notebook together (one module); write the JSON back as it was
    formatted. Notebooks take no part in the cross-file step, so nothing is carried."""
    engine, unsafe, display_only, write, plan = _JOB
    engine = _engine(engine, plan, path)
    try:
        data = read_file_bytes(path)
        new_data, (fixed, remaining, messages) = notebook.edit_joined(
            data, path, lambda text: _fix_joined(text, path, engine, unsafe, display_only, _keeper(plan)))
        nb_after = notebook.load(new_data, path)
    except (OSError, sourcelib.SourceError) as exc:
        return None, 0, "", [f"{path}: cannot read for fixing: {exc}"]
    if new_data == data:
        return None, 0, "", messages
    diff = unified_diff(data.decode("utf-8-sig"), new_data.decode("utf-8"), path)
    if not write:
        return None, 0, diff, messages
    problem = _write_unless_changed(path, data, new_data)
    if problem:
        return None, 0, diff, messages + [problem]
    return notebook.to_cells(_check(engine, nb_after.text, path, _keeper(plan)), nb_after), \
        fixed, diff, messages


def _fix_notebook_text(text, path, engine, unsafe, display_only, keep):
    """A notebook read from stdin: (fixed JSON, fixes applied, remaining per cell, messages)."""
    new_data, (fixed, remaining, messages) = notebook.edit_joined(
        text.encode("utf-8"), path,
        lambda joined: _fix_joined(joined, path, engine, unsafe, display_only, keep))
    after = notebook.load(new_data, path)
    return new_data.decode("utf-8"), fixed, notebook.to_cells(remaining, after), messages


def _fix_joined(text, path, engine, unsafe, display_only, keep):
    new, fixed, remaining, messages = fix_text(text, path, engine, unsafe, display_only, keep=keep)
    return new, (fixed, remaining, messages)


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


def read_file_bytes(path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _encoding(data: bytes) -> str:
    """The file's own encoding; 'utf-8-sig' writes the BOM back."""
    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


def atomic_write(path, data: bytes) -> None:
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
def fix_text(text: str, path: str, engine, unsafe=False, display_only=False, keep=None,
             first=None):
    """(fixed text, fixes applied, remaining findings, messages) for one module's source.
    `first` may be a list: it receives the findings of the unfixed text."""
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    messages: list[str] = []
    fixed = 0
    findings = None
    original = text
    try:
        tree = ast.parse(text)         # one parse per round: check and rewrite share it
    except (SyntaxError, ValueError) as exc:
        return text, 0, _check(engine, text, path, keep), [f"{path}: not fixed: {exc}"]
    for round_ in range(MAX_ROUNDS):
        findings = _check(engine, text, path, keep, tree)
        if round_ == 0 and first is not None:
            first.extend(findings)
        chosen = choose(_best_tier([f.fix for f in findings if allowed(f.fix, unsafe, display_only)]))
        if not chosen:
            break
        code_fixes = [f for f in chosen if not f.text_only]
        try:
            if code_fixes:
                new, applied, problems = rewrite(text, code_fixes, tree)
            else:                    # comment edits (noqa) once the code is settled
                new, applied, problems = apply_text_edits(text, chosen), chosen, []
        except Exception as exc:     # libcst cannot parse this file, or a bug: leave it as is
            messages.append(f"{path}: fixes not applied ({type(exc).__name__}: {exc})")
            break
        messages.extend(f"{path}: {p}" for p in problems)
        try:
            new_tree = ast.parse(new)
        except SyntaxError as exc:
            messages.append(f"{path}: fixes produced code that does not parse ({exc.msg}, "
                            f"line {exc.lineno}); file left unchanged, please report this")
            break
        if new == text or not applied:
            break
        text, tree, fixed = new, new_tree, fixed + len(applied)
        findings = None
    else:
        messages.append(f"{path}: fixes still pending after {MAX_ROUNDS} rounds")
    if fixed:
        wrapped = wrap_long_statements(original, text, path)
        if wrapped != text:
            text, findings = wrapped, None
    if findings is None:
        findings = _check(engine, text, path, keep)
    return ("\ufeff" if bom else "") + text, fixed, findings, messages


def apply_text_edits(text: str, fixes) -> str:
    """Plain text edits (1-based line, character column; end exclusive), bottom-up."""
    from .splice import split_lines
    lines = split_lines(text)
    edits = sorted((e for f in fixes for e in f.edits), key=lambda e: (e.line, e.column), reverse=True)
    for e in edits:
        assert e.line == e.end_line, "text edits stay on one line"
        line = lines[e.line - 1]
        lines[e.line - 1] = line[:e.column - 1] + e.content + line[e.end_column - 1:]
    return "".join(lines)


def _check(engine, text, path, keep, tree=None):
    findings = engine.check(text, path, tree=tree)
    return [f for f in findings if keep(f)] if keep is not None else findings


def _best_tier(fixes) -> list:
    """Only the safest kind present: safe fixes first, then (after a re-check) unsafe, then
    display-only, so a mark_step split is suggested only for what a rewrite left dynamic."""
    for tier in ("safe", "unsafe", "display-only"):
        picked = [f for f in fixes if f.applicability == tier]
        if picked:
            return picked
    return []


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
