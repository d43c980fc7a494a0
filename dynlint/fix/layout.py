"""Lay out the statements a fix made too long, the way the project's formatter would.

A fix writes its code on one line. When that line grows past the project's line length
(`line-length` of ruff or black in the nearest pyproject.toml, ruff.toml or .ruff.toml;
88 otherwise), the statement is run through `ruff format` (quotes preserved) and spliced
back, but only when:

* ruff is installed (it is not a dependency: without it lines stay long);
* the statement is simple, alone on its lines, and has no comment (a `# noqa` must stay on
  the line it is about);
* the formatted statement parses to the same tree.

Everything else in the file stays byte-identical.
"""
from __future__ import annotations

import ast
import difflib
import functools
import os
import subprocess
import sys
import textwrap

DEFAULT_LINE_LENGTH = 88
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
             ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Match)


def wrap_long_statements(old: str, new: str, path: str) -> str:
    """`new` with each statement whose changed lines exceed the line length formatted."""
    limit = line_length(os.path.dirname(os.path.abspath(path)))
    old_lines, new_lines = old.splitlines(True), new.splitlines(True)
    changed = set()
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            changed.update(j for j in range(j1 + 1, j2 + 1)
                           if len(new_lines[j - 1].rstrip("\r\n")) > limit)
    if not changed or not ruff_available():
        return new
    try:
        tree = ast.parse(new)
    except SyntaxError:
        return new
    stmts = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, _COMPOUND) and \
                any(node.lineno <= j <= node.end_lineno for j in changed):
            stmts[(node.lineno, node.end_lineno)] = node
    for (first, last), node in sorted(stmts.items(), reverse=True):
        block = new_lines[first - 1:last]
        indent = block[0][:len(block[0]) - len(block[0].lstrip(" \t"))]
        if len(indent.encode("utf-8")) != node.col_offset or "#" in "".join(block) or \
                _shares_line(node, tree, first, last):
            continue
        newline = block[-1][len(block[-1].rstrip("\r\n")):] or "\n"
        source = textwrap.dedent("".join(l.rstrip("\r\n") + "\n" for l in block))
        formatted = _ruff_format(source, max(limit - len(indent), 20))
        if formatted is None or not _same_tree(source, formatted):
            continue
        new_lines[first - 1:last] = [indent + l + newline if l else newline
                                     for l in formatted.rstrip("\n").split("\n")]
    return "".join(new_lines)


def _shares_line(node, tree, first, last) -> bool:
    """Another statement starts or ends on one of this statement's lines (`a = 1; b = 2`)."""
    return any(isinstance(n, ast.stmt) and n is not node and not isinstance(n, _COMPOUND) and
               (first <= n.lineno <= last or first <= n.end_lineno <= last) and
               not (n.lineno >= node.lineno and n.end_lineno <= node.end_lineno)
               for n in ast.walk(tree))


def _same_tree(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except SyntaxError:
        return False


def _ruff_format(source: str, length: int) -> str | None:
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "ruff", "format", "--isolated", f"--line-length={length}",
             "--config", "format.quote-style='preserve'", "-"],
            input=source, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 and proc.stdout.strip() else None


@functools.lru_cache(maxsize=1)
def ruff_available() -> bool:
    try:
        import ruff  # noqa: F401
        return True
    except ImportError:
        return False


@functools.lru_cache(maxsize=256)
def line_length(directory: str) -> int:
    """The line length of the nearest formatter configuration above `directory`."""
    from ..project.config import toml_parser
    tomllib = toml_parser()
    d = directory
    while True:
        for name, keys in (("ruff.toml", ()), (".ruff.toml", ()), ("pyproject.toml", ("tool", "ruff")),
                           ("pyproject.toml", ("tool", "black"))):
            p = os.path.join(d, name)
            if not os.path.isfile(p):
                continue
            try:
                with open(p, "rb") as f:
                    data = tomllib.load(f)
            except (OSError, ValueError):
                continue
            for k in keys:
                data = data.get(k, {}) if isinstance(data, dict) else {}
            value = data.get("line-length") if isinstance(data, dict) else None
            if isinstance(value, int) and value > 0:
                return value
        parent = os.path.dirname(d)
        if parent == d:
            return DEFAULT_LINE_LENGTH
        d = parent
