"""Finding the files to check.

Directories are walked without following symlinks (so loops cannot trap the walk), skipping
virtualenvs (a `pyvenv.cfg`), what the governing settings exclude (`exclude`,
`extend-exclude`, each relative to its config file) and, inside a git repository, what the
`.gitignore` files and `.git/info/exclude` ignore. Each entry is judged by the settings of
the directory that holds it. Files named on the command line are always checked, unless
`--force-exclude` (then `exclude`/`extend-exclude` apply to them too, as in ruff).
"""
from __future__ import annotations

import os
from pathlib import Path

from ..finding import UNREADABLE, Finding, file_diagnostic
from .config import DEFAULT_EXCLUDE  # noqa: F401  (re-exported: older imports use it here)
from .globs import Patterns, gitignore_for

SUFFIXES = (".py", ".pyi", ".ipynb")


def display_path(path: str, root: Path) -> str:
    try:
        return os.path.relpath(path, root) if os.path.isabs(path) else os.path.normpath(path)
    except ValueError:             # another drive on Windows
        return path


def force_excluded(path: str, settings) -> bool:
    """Whether `--force-exclude` drops a path named on the command line."""
    return settings.exclusions().excludes(path, is_dir=os.path.isdir(path))


def discover(paths, resolver, force_exclude: bool = False):
    """Return (files, diagnostics) for the command-line `paths`."""
    files: list[str] = []
    diags: list[Finding] = []
    for arg in paths:
        if not os.path.lexists(arg):
            diags.append(file_diagnostic(UNREADABLE, os.path.normpath(arg), "no such file or directory"))
            continue
        settings = resolver.settings_for(os.path.dirname(os.path.abspath(arg)) or "/")
        if (force_exclude or settings.force_exclude) and force_excluded(arg, settings):
            continue
        if os.path.isdir(arg):
            _walk(arg, resolver, files, diags)
        else:
            files.append(os.path.normpath(arg))
    seen = set()
    unique = []
    for f in files:
        key = os.path.abspath(f)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return sorted(unique), diags


def _walk(top: str, resolver, out: list, diags: list) -> None:
    def onerror(err: OSError):
        where = os.path.normpath(err.filename or top)
        diags.append(file_diagnostic(UNREADABLE, where, f"cannot list directory: {err.strerror}"))

    ignored: dict[str, Patterns] = {}          # directory -> .gitignore patterns in force there
    floor = _named_although_excluded(top, resolver)
    for dirpath, dirnames, filenames in os.walk(top, onerror=onerror):
        if dirpath != top and os.path.exists(os.path.join(dirpath, "pyvenv.cfg")):
            dirnames[:] = []
            continue
        settings = resolver.settings_for_dir(dirpath)
        excluded = settings.exclusions()
        git = None
        if settings.respect_gitignore:
            parent = ignored.get(os.path.dirname(os.path.abspath(dirpath)))
            git = ignored[os.path.abspath(dirpath)] = gitignore_for(dirpath, parent)

        def skip(path, is_dir):
            if git is not None and git.excludes(path, is_dir, floor):
                return True
            # With a `!pattern`, an excluded directory may still hold included files: go in.
            return excluded.excludes(path, is_dir, floor) and not (is_dir and excluded.negated)

        dirnames[:] = sorted(d for d in dirnames if not skip(os.path.join(dirpath, d), True))
        for name in filenames:
            if name.endswith(SUFFIXES):
                full = os.path.join(dirpath, name)
                if not skip(full, False):
                    out.append(os.path.normpath(full))


def _named_although_excluded(top: str, resolver) -> str | None:
    """`top` (absolute) when the walk would have skipped it: a directory named on the command line
    is checked even inside a virtualenv, `site-packages` or a git-ignored folder (as in ruff)."""
    top = os.path.abspath(top)
    parent = os.path.dirname(top)
    if parent == top:
        return None
    settings = resolver.settings_for_dir(parent)
    if settings.exclusions().excludes(top, True):
        return top
    if settings.respect_gitignore and gitignore_for(parent, None).excludes(top, True):
        return top
    return None
