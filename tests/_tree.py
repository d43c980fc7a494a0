"""Writing a small project (a dict of relative path -> source text) under a test's tmp_path."""
from __future__ import annotations

import textwrap
from pathlib import Path


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
