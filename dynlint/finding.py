"""Findings are plain data: reporting, fixing, flake8 and confirm all read the same objects."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    """Replace the text between two 1-based (line, column) positions (end exclusive)."""
    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    applicability: str          # safe | unsafe | display-only
    description: str
    edits: tuple[Edit, ...]
    imports: tuple[str, ...] = ()
    text_only: bool = False     # plain text edits (comments), applied without libcst


@dataclass(frozen=True)
class Finding:
    path: str
    line: int                   # 1-based
    column: int                 # 1-based, in characters
    end_line: int
    end_column: int
    code: str
    name: str
    message: str
    severity: str = "error"
    scope: str = "<module>"     # enclosing function, e.g. "InnerNet.forward"
    fix: Fix | None = None
    cell: int | None = None     # notebooks: 1-based cell number; line/column are in that cell
    # "certain": the code proves what the rule needs; "likely": some of it rests on names
    # alone (`*_mask`, `keep`, `valid` used as an index), the weak evidence of issue 9.
    confidence: str = "certain"

    @property
    def sort_key(self):
        return (self.path, self.line, self.column, self.code)



# Diagnostics about files that could not be analysed, with their own codes.
SYNTAX_ERROR = ("DYN901", "syntax-error")
ENCODING_ERROR = ("DYN902", "encoding-error")
NULL_BYTES = ("DYN903", "null-bytes")
TOO_LARGE = ("DYN904", "file-too-large")
UNREADABLE = ("DYN905", "unreadable-file")
INTERNAL_ERROR = ("DYN999", "internal-error")
INVALID_NOTEBOOK = ("DYN906", "invalid-notebook")
FILE_DIAGNOSTICS = (SYNTAX_ERROR, ENCODING_ERROR, NULL_BYTES, TOO_LARGE, UNREADABLE,
                    INVALID_NOTEBOOK, INTERNAL_ERROR)


def file_diagnostic(kind, path: str, message: str, line: int = 1, column: int = 1) -> Finding:
    code, name = kind
    return Finding(path, max(line, 1), max(column, 1), max(line, 1), max(column, 1),
                   code, name, message, "error")


def internal_error(exc: BaseException, path: str) -> Finding:
    """DYN999 for a bug in dynlint while analysing one file: named, located, not a crash."""
    import os
    import traceback
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    at = f" at {os.path.basename(where.filename)}:{where.lineno}" if where else ""
    return file_diagnostic(INTERNAL_ERROR, path,
                           f"internal error ({type(exc).__name__}: {exc}){at}; please report it")
