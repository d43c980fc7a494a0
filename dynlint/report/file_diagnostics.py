"""Documentation for the file diagnostics (DYN9xx): files dynlint could not analyse.

They are not YAML rules (no pattern produces them) but they are listed by `dynlint rules`,
explained by `dynlint rule DYN901` and selected or ignored like rules.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..finding import (ENCODING_ERROR, INTERNAL_ERROR, NULL_BYTES, SYNTAX_ERROR, TOO_LARGE,
                       UNREADABLE)


@dataclass(frozen=True)
class FileDiagnostic:
    code: str
    name: str
    summary: str
    why: str
    example: str = ""
    alternative: str = ""
    default: bool = True
    severity: str = "error"
    fix_safety: str = "none"
    fixes: tuple = ()
    noqa: bool = False
    path: str = "dynlint/report/file_diagnostics.py"


_WHY = ("dynlint reports every file it could not analyse, so that a file silently skipped is "
        "never mistaken for a clean one. The run goes on with the other files.")

FILE_DIAGNOSTICS = [
    FileDiagnostic(*SYNTAX_ERROR, "A file that does not parse as Python (the message and "
                   "position are the parser's).", _WHY, 'print "hello"', 'print("hello")'),
    FileDiagnostic(*ENCODING_ERROR, "A file that cannot be decoded: bytes that are not valid "
                   "UTF-8 without a coding declaration, or an unknown declared encoding.", _WHY,
                   "s = 'caf\\xe9'   # saved as latin-1, no coding line",
                   "# -*- coding: latin-1 -*-\ns = 'caf\\xe9'"),
    FileDiagnostic(*NULL_BYTES, "A file containing a NUL byte, so it is not Python source "
                   "(often a binary file with a .py name).", _WHY),
    FileDiagnostic(*TOO_LARGE, "A file bigger than `max-file-size` (default 5 MB), skipped "
                   "(usually generated code); raise the limit with --max-file-size or the "
                   "`max-file-size` setting, 0 for no limit.", _WHY),
    FileDiagnostic(*UNREADABLE, "A path that does not exist, or a file or directory that "
                   "cannot be read (permissions, a broken symlink).", _WHY),
    FileDiagnostic(*INTERNAL_ERROR, "A bug in dynlint while analysing this file; the message "
                   "says where. Please report it.", _WHY),
]
