"""Finding the files to check."""
from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from ..finding import UNREADABLE, Finding, file_diagnostic

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".tox", ".nox", "__pycache__", "build",
    "dist", "site-packages", "dist-packages", ".eggs", "*.egg-info", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".dynlint_cache", "node_modules", "__pypackages__",
    ".ipynb_checkpoints", ".direnv", "_build", "buck-out",
)
SUFFIXES = (".py", ".pyi", ".ipynb")


def display_path(path: str, root: Path) -> str:
    try:
        return os.path.relpath(path, root) if os.path.isabs(path) else os.path.normpath(path)
    except ValueError:             # another drive on Windows
        return path


def is_excluded(path: str, patterns, root: Path, whole: bool = False) -> bool:
    """A pattern without `/` matches a file or directory name (`build`, `*.egg-info`); one
    with `/` matches the path relative to the project root (`tests/fixtures/*`). The walk
    checks each name as it descends; `whole` checks every component (for --force-exclude)."""
    absolute = os.path.abspath(path)
    rel = None
    try:
        candidate = os.path.relpath(absolute, root)
        if not candidate.startswith(".."):
            rel = candidate.replace(os.sep, "/")
    except ValueError:
        pass
    names = (rel.split("/") if rel else absolute.split(os.sep)) if whole else [os.path.basename(absolute)]
    for pat in patterns:
        pat = pat.rstrip("/")
        if "/" in pat:
            if rel is not None and (fnmatch.fnmatchcase(rel, pat) or fnmatch.fnmatchcase(rel, pat + "/*")):
                return True
        elif any(fnmatch.fnmatchcase(n, pat) for n in names):
            return True
    return False


def discover(paths, exclude, root: Path, force_exclude: bool = False):
    """Return (files, diagnostics). Directories are walked without following symlinks, so
    symlink loops cannot trap the walk; virtualenvs (a `pyvenv.cfg`) are skipped."""
    files: list[str] = []
    diags: list[Finding] = []
    for arg in paths:
        if not os.path.lexists(arg):
            diags.append(file_diagnostic(UNREADABLE, os.path.normpath(arg), "no such file or directory"))
            continue
        if os.path.isdir(arg):
            if force_exclude and is_excluded(arg, exclude, root, whole=True):
                continue
            _walk(arg, exclude, root, files, diags)
        elif not (force_exclude and is_excluded(arg, exclude, root, whole=True)):
            files.append(os.path.normpath(arg))
    seen = set()
    unique = []
    for f in files:
        key = os.path.abspath(f)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return sorted(unique), diags


def _walk(top: str, exclude, root: Path, out: list, diags: list) -> None:
    def onerror(err: OSError):
        where = os.path.normpath(err.filename or top)
        diags.append(file_diagnostic(UNREADABLE, where, f"cannot list directory: {err.strerror}"))

    # Name patterns are the common case; test them with one compiled regex per walk.
    name_re = re.compile("|".join(fnmatch.translate(p.rstrip("/")) for p in exclude if "/" not in p)
                         or r"(?!x)x")
    path_patterns = [p for p in exclude if "/" in p]

    def skip(path, name):
        return bool(name_re.match(name)) or (
            bool(path_patterns) and is_excluded(path, path_patterns, root))

    for dirpath, dirnames, filenames in os.walk(top, onerror=onerror):
        if dirpath != top and os.path.exists(os.path.join(dirpath, "pyvenv.cfg")):
            dirnames[:] = []
            continue
        dirnames[:] = sorted(d for d in dirnames if not skip(os.path.join(dirpath, d), d))
        for name in filenames:
            if name.endswith(SUFFIXES):
                full = os.path.join(dirpath, name)
                if not skip(full, name):
                    out.append(os.path.normpath(full))
