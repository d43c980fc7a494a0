"""List candidate boolean-mask reads and writes in the step code of a source tree.

Protocol of bench/results/maskrecall.md, step 1: every subscript whose index (or an element
of a tuple index) is a name, attribute, call, comparison, boolean or unary expression (not
an int, slice, Ellipsis, None or string constant), inside a `forward*` method of a class or
inside a loss/criterion function (any function of a `criterions` module, or whose name
contains `loss`), plus `masked_select` calls. Each candidate is then read by hand: this list
only says where to look. Output: one TSV line per candidate
(path, line, col, kind=read|write|masked_select, function, code).

Usage: python bench/maskcands.py ROOT [ROOT ...] [--findings out.json] > cands.tsv

With `--findings` (dynlint's JSON output), a last column gives the DYN1xx findings that start at
the candidate (`DYN101:L` when `likely`), `-` for none.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from pathlib import Path

_INDEX_NODES = (ast.Name, ast.Attribute, ast.Call, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Subscript)


def _maybe_mask(node: ast.expr) -> bool:
    """An index element that could be a tensor (not a literal, slice, Ellipsis or None)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return False  # -1
    return isinstance(node, _INDEX_NODES)


def _index_elements(sl: ast.expr) -> list[ast.expr]:
    return list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]


def _in_scope(func: ast.FunctionDef | ast.AsyncFunctionDef, cls: ast.ClassDef | None, path: Path) -> bool:
    name = func.name
    if cls is not None and (name == "forward" or name.startswith("forward_")):
        return True
    return "criterions" in path.parts or "loss" in name.lower()


def _write_targets(func: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(func):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in targets:
            for sub in ast.walk(t):
                if isinstance(sub, ast.Subscript):
                    ids.add(id(sub))
    return ids


def _annotation_nodes(func: ast.AST) -> set[int]:
    """Subscripts inside type annotations (`Optional[Tensor]`): never tensor indexing."""
    roots = []
    for node in ast.walk(func):
        if isinstance(node, ast.arg) and node.annotation is not None:
            roots.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            roots.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
    return {id(sub) for root in roots for sub in ast.walk(root)}


def candidates(path: Path):
    try:
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return
    lines = source.splitlines()

    def visit(node: ast.AST, cls: ast.ClassDef | None):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                yield from visit(child, child)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if _in_scope(child, cls, path):
                    yield from scan(child)
                else:
                    # nested functions of an out-of-scope function are judged by their own name
                    yield from visit(child, None)
            else:
                yield from visit(child, cls)

    def scan(func):
        writes = _write_targets(func)
        skip = _annotation_nodes(func)
        for node in ast.walk(func):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Subscript) and any(_maybe_mask(e) for e in _index_elements(node.slice)):
                kind = "write" if id(node) in writes else "read"
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "masked_select":
                kind = "masked_select"
            else:
                continue
            code = ast.get_source_segment(source, node) or lines[node.lineno - 1].strip()
            yield node.lineno, node.col_offset, kind, func.name, " ".join(code.split())

    seen = set()
    for item in visit(tree, None):
        if item[:2] not in seen:  # nested functions are scanned twice at most
            seen.add(item[:2])
            yield item


def _findings_at(path: str | None) -> dict:
    """(absolute path, line, column) -> codes of the shape findings starting there."""
    if path is None:
        return {}
    out: dict = {}
    base = os.getcwd()
    for f in json.load(open(path, encoding="utf-8")):
        if f["code"].startswith("DYN1"):
            key = (os.path.normpath(os.path.join(base, f["path"])), f["line"], f["column"] - 1)
            out.setdefault(key, set()).add(f["code"] + (":L" if f.get("confidence") == "likely" else ""))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="+")
    ap.add_argument("--findings", help="dynlint --format json output, run from this directory")
    args = ap.parse_args(argv)
    found = _findings_at(args.findings)
    for root in map(Path, args.roots):
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        for path in files:
            for line, col, kind, func, code in candidates(path):
                row = f"{path}\t{line}\t{col}\t{kind}\t{func}\t{code}"
                if args.findings is not None:
                    codes = found.get((os.path.normpath(os.path.abspath(path)), line, col))
                    row += "\t" + (",".join(sorted(codes)) if codes else "-")
                print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
