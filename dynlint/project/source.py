"""Reading one file into text and a tree, turning every way that can fail into a diagnostic.

Nothing here raises for bad input: a file that cannot be analysed yields a `Finding` with a
DYN9xx code, the parser's message and its line, and the run goes on with the other files.
"""
from __future__ import annotations

import ast
import io
import os
import tokenize

from ..finding import (ENCODING_ERROR, NULL_BYTES, SYNTAX_ERROR, TOO_LARGE, UNREADABLE,
                       Finding, file_diagnostic)

DEFAULT_MAX_BYTES = 5 * 1024 * 1024


class SourceError(Exception):
    def __init__(self, finding: Finding):
        super().__init__(finding.message)
        self.finding = finding


def read_bytes(path: str, display: str, max_bytes: int = DEFAULT_MAX_BYTES):
    """(content, stat) of a file; the stat is taken before reading, for the cache."""
    try:
        st = os.stat(path)
        if not os.path.isfile(path):
            raise SourceError(file_diagnostic(UNREADABLE, display, "not a regular file"))
        if max_bytes and st.st_size > max_bytes:
            raise SourceError(file_diagnostic(
                TOO_LARGE, display,
                f"skipped: {st.st_size / 1e6:.1f} MB is over the {max_bytes / 1e6:.1f} MB limit "
                f"(raise it with --max-file-size)"))
        with open(path, "rb") as fh:
            return fh.read(), st
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise SourceError(file_diagnostic(UNREADABLE, display, f"cannot read file: {reason}")) from None


def decode(data: bytes, display: str) -> str:
    """Decode like the interpreter does: BOM, then a PEP 263 cookie, else UTF-8."""
    if b"\0" in data:
        cut = data.index(b"\0")
        line = data.count(b"\n", 0, cut) + 1
        col = cut - (data.rfind(b"\n", 0, cut) + 1) + 1
        raise SourceError(file_diagnostic(NULL_BYTES, display,
                                          "source contains a NUL byte; not Python source", line, col))
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        line = 2 if data.split(b"\n", 1)[0].startswith(b"#!") else 1
        raise SourceError(file_diagnostic(ENCODING_ERROR, display, f"bad encoding declaration: {exc}",
                                          line)) from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SourceError(file_diagnostic(
            ENCODING_ERROR, display,
            f"cannot decode as {encoding}: byte 0x{data[exc.start]:02x} is not valid "
            f"(declare the file's encoding with a `# -*- coding: ... -*-` line)", line, col)) from None
    except LookupError as exc:
        raise SourceError(file_diagnostic(ENCODING_ERROR, display, str(exc), 1)) from None


def parse(text: str, display: str) -> ast.Module:
    try:
        return ast.parse(text, filename=display)
    except SyntaxError as exc:
        msg = exc.msg or "invalid syntax"
        raise SourceError(file_diagnostic(SYNTAX_ERROR, display, f"SyntaxError: {msg}",
                                          exc.lineno or 1, exc.offset or 1)) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        kind = "too deeply nested to parse" if isinstance(exc, RecursionError) else str(exc)
        raise SourceError(file_diagnostic(SYNTAX_ERROR, display, f"cannot parse: {kind}")) from None
