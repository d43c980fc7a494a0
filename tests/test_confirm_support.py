"""Shared helpers for the confirm tests (no tests here).

`static_findings` uses dynlint's real scanner.  Until `dynlint.api` exists it
falls back to a deliberately tiny AST matcher, enough to point at the lines
the acceptance cases need; it is not a second linter.
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples", "confirm")
_CALLS = {"nonzero", "unique", "masked_select", "item", "nms", "batched_nms", "unique_consecutive"}


def real_scanner_available() -> bool:
    try:
        from dynlint.api import scan  # noqa: F401
    except ImportError:
        return False
    return True


def static_findings(paths: list[str]) -> list:
    if real_scanner_available():
        from dynlint.api import scan
        return list(scan(paths))
    found = []
    for path in paths:
        files = [path] if os.path.isfile(path) else [
            os.path.join(r, n) for r, _, ns in os.walk(path) for n in ns if n.endswith(".py")]
        for file in files:
            found.extend(_tiny_scan(file))
    return found


def _tiny_scan(path: str) -> list[dict]:
    tree = ast.parse(open(path, encoding="utf-8").read())
    out: list[dict] = []

    def visit(node, scope):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, scope + [child.name])
                continue
            hit = None
            if isinstance(child, ast.Subscript) and isinstance(child.slice, ast.Compare):
                hit = "DYN101"
            elif isinstance(child, ast.Call):
                name = getattr(child.func, "attr", getattr(child.func, "id", ""))
                if name in _CALLS or (name == "where" and len(child.args) == 1):
                    hit = "DYN1xx"
            if hit:
                out.append({"path": path, "line": child.lineno, "end_line": child.end_lineno,
                            "column": child.col_offset + 1, "code": hit, "name": "tiny",
                            "message": "tiny fallback", "severity": "error",
                            "scope": ".".join(scope) or "<module>"})
            visit(child, scope)

    visit(tree, [])
    return out


def run_cli(args: list[str], timeout: float = 240) -> subprocess.CompletedProcess:
    """`python -m dynlint.confirm ARGS` in a fresh interpreter, from the repo root."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "dynlint.confirm", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
