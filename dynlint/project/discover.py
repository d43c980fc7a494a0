"""Finding the files to check.

Directories are walked without following symlinks (so loops cannot trap the walk), skipping
virtualenvs (a `pyvenv.cfg`), what the governing settings exclude (`exclude`,
`extend-exclude`, each relative to its config file) and, inside a git repository, what the
`.gitignore` files and `.git/info/exclude` ignore. Each entry is judged by the settings of
the directory that holds it. Files named on the command line are always checked, unless
`--force-exclude` (then `exclude`/`extend-exclude` apply to them too, as in ruff).
"""
from __future__ import annotations

import functools
import os
from pathlib import Path

from ..finding import UNREADABLE, Finding, file_diagnostic
from .config import DEFAULT_EXCLUDE  # noqa: F401  (re-exported: older imports use it here)
from .globs import Patterns, gitignore_for

SUFFIXES = (".py", ".pyi", ".ipynb")


def display_path(path: str, root: Path) -> str:
    try:
        if not os.path.isabs(path):
            return os.path.normpath(path)
        directory, name = os.path.split(path)
        root = os.fspath(root)
        if not name or not os.path.isabs(root) or (root + os.sep).startswith(path + os.sep):
            return os.path.relpath(path, root)
        # The relpath of a directory once for all its files (it costs ~10 µs a call).
        rel = _relative_dir(directory, root)
        return name if rel == os.curdir else os.path.join(rel, name)
    except ValueError:             # another drive on Windows
        return path


@functools.lru_cache(maxsize=1024)
def _relative_dir(directory: str, root) -> str:
    return os.path.relpath(directory, root)


def force_excluded(path: str, settings) -> bool:
    """Whether `--force-exclude` drops a path named on the command line."""
    return settings.exclusions().excludes(path, is_dir=os.path.isdir(path))


def discover(paths, resolver, force_exclude: bool = False):
    """Return (files, diagnostics) for the command-line `paths`."""
    files: list[str] = []
    diags: list[Finding] = []
    paths = list(paths)
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
    if len(paths) == 1:
        return sorted(files), diags         # one walk never yields a file twice
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
        # The listing says which of the files looked for exist: most directories have none.
        names = _Listing(dirnames, filenames)
        if dirpath != top and "pyvenv.cfg" in names and \
                os.path.exists(os.path.join(dirpath, "pyvenv.cfg")):
            dirnames[:] = []
            continue
        here = os.path.abspath(dirpath)
        settings = resolver.settings_for_dir(here)
        excluded = settings.exclusions().in_directory(here, floor)
        negated = settings.exclusions().negated
        git = None
        if settings.respect_gitignore:
            parent = ignored.get(os.path.dirname(here))
            patterns = ignored[here] = gitignore_for(here, parent, names)
            git = patterns.in_directory(here, floor)

        def skip(name, is_dir):
            if git is not None and git(name, is_dir):
                return True
            # With a `!pattern`, an excluded directory may still hold included files: go in.
            return excluded(name, is_dir) and not (is_dir and negated)

        dirnames[:] = sorted(d for d in dirnames if not skip(d, True))
        prefix = _prefix(dirpath)
        for name in filenames:
            if name.endswith(SUFFIXES) and not skip(name, False):
                out.append(prefix + name)


class _Listing:
    """`name in listing`: whether os.walk listed `name` in a directory."""
    __slots__ = ("dirnames", "filenames")

    def __init__(self, dirnames, filenames):
        self.dirnames, self.filenames = dirnames, filenames

    def __contains__(self, name) -> bool:
        return name in self.filenames or name in self.dirnames


def _prefix(dirpath: str) -> str:
    """What makes `prefix + name` equal to `os.path.normpath(os.path.join(dirpath, name))`."""
    norm = os.path.normpath(dirpath)
    if norm == os.curdir:
        return ""
    return norm if norm.endswith(os.sep) else norm + os.sep


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
