"""Writing a small project (a dict of relative path -> source text) under a test's tmp_path."""
from __future__ import annotations

import ast
import os
import textwrap
from pathlib import Path

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def corpus_function(relpath: str, name: str) -> str:
    """The source of the module-level function `name` of the corpus file `relpath`: a test
    excerpts real code from its unmodified copy instead of pasting it."""
    text = open(os.path.join(CORPUS, relpath), encoding="utf-8").read()
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == name)
    return ast.get_source_segment(text, node) + "\n"


def write_tree(root: Path, files: dict) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text), encoding="utf-8")


def findings(dynlint, root: Path, *args) -> list:
    """`dynlint check ARGS --output-format json` in `root`: sorted (file name, line, code)."""
    import json
    out = dynlint("check", *args, "--output-format", "json", cwd=root)
    return sorted((f["path"].replace("\\", "/").rsplit("/", 1)[-1], f["line"], f["code"])
                  for f in json.loads(out.stdout))


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """The number of the `nth` line of `text` holding `needle`."""
    return [i for i, line in enumerate(text.splitlines(), 1) if needle in line][nth - 1]
