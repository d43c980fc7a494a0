"""Positions and edits in LSP terms: 0-based lines, columns counted in UTF-16 code units."""
from __future__ import annotations

import re

from lsprotocol import types

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def utf16_column(line: str, column: int) -> int:
    """LSP column of the 0-based character `column` in `line` (astral characters count 2)."""
    prefix = line[:column]
    return column + sum(1 for ch in prefix if ord(ch) > 0xFFFF)


def _position(lines, line: int, column: int) -> types.Position:
    """Position of a finding's 1-based (line, column)."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return types.Position(line=max(line - 1, 0), character=utf16_column(text, max(column - 1, 0)))


def finding_range(finding, lines) -> types.Range:
    return types.Range(start=_position(lines, finding.line, finding.column),
                       end=_position(lines, finding.end_line, finding.end_column))


def whole_document_edit(old: str, new: str) -> types.TextEdit:
    """Replace the document: a fix may also add an import at the top of the module."""
    lines = old.split("\n")
    end = types.Position(line=len(lines) - 1, character=utf16_column(lines[-1], len(lines[-1])))
    return types.TextEdit(range=types.Range(start=types.Position(line=0, character=0), end=end),
                          new_text=new)


def noqa_edit(text: str, finding) -> types.TextEdit | None:
    """`# noqa: CODE` at the end of the finding's first line, added to an existing noqa list."""
    lines = text.splitlines()
    if not 0 < finding.line <= len(lines):
        return None
    line = lines[finding.line - 1]
    at = types.Position(line=finding.line - 1, character=utf16_column(line, len(line)))
    match = _NOQA.search(line)
    if match and match.group("codes") is None:
        return None                         # a blanket noqa already suppresses everything
    if match:
        codes = re.split(r"[,\s]+", match.group("codes"))
        if finding.code in codes:
            return None
        start = types.Position(line=finding.line - 1, character=utf16_column(line, match.start()))
        end = types.Position(line=finding.line - 1, character=utf16_column(line, match.end()))
        return types.TextEdit(range=types.Range(start=start, end=end),
                              new_text=f"# noqa: {', '.join([*codes, finding.code])}")
    return types.TextEdit(range=types.Range(start=at, end=at),
                          new_text=f"  # noqa: {finding.code}")
