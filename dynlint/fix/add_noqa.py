"""`dynlint check --add-noqa`: a `# noqa: CODE` on every flagged line, so a big repository can
adopt dynlint today and burn the list down later. Idempotent: a second run finds nothing to add.
"""
from __future__ import annotations

from ..engine.noqa import add_directives
from ..project import source as sourcelib
from ..project import notebook
from .apply import atomic_write, read_file_bytes


def add_noqa(findings) -> tuple[int, list[str]]:
    """(directives added, messages). File diagnostics (DYN9xx) and DYN100 are not suppressible
    by a line comment and are left out."""
    by_path: dict[str, dict] = {}
    for f in findings:
        if f.code.startswith("DYN9") or f.code == "DYN100":
            continue
        key = (f.cell, f.line)
        by_path.setdefault(f.path, {}).setdefault(key, set()).add(f.code)
    added, messages = 0, []
    for path, wanted in sorted(by_path.items()):
        try:
            data = read_file_bytes(path)
            if path.endswith(".ipynb"):
                new, n, skipped = notebook.edit_cells(
                    data, path, lambda cell, text: add_directives(
                        text, {line: codes for (c, line), codes in wanted.items() if c == cell}))
            else:
                text = sourcelib.decode(data, path)
                text, n, skipped = add_directives(text, {line: c for (_, line), c in wanted.items()})
                new = text.encode(_encoding(data)) if n else data
        except (OSError, sourcelib.SourceError, ValueError) as exc:
            messages.append(f"{path}: cannot add noqa: {exc}")
            continue
        for line in skipped:
            messages.append(f"{path}:{line}: no `# noqa` added: the line ends inside a string "
                            "or with a backslash")
        if n and new != data:
            atomic_write(path, new)
            added += n
    return added, messages


def _encoding(data: bytes) -> str:
    import io
    import tokenize
    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]
