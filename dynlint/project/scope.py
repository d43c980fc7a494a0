"""Which project a file belongs to: what the cross-file step sees besides the files named.

pre-commit passes only the changed files, yet a helper's verdict depends on who calls it in
the rest of the repository. A file's project is the nearest enclosing directory holding
`pyproject.toml`, `setup.py`, `setup.cfg` or `.git`. Installed code is the exception: a file
below a place the default excludes skip (`site-packages`, a virtualenv, `build/`...) belongs
to its top-level package (the highest directory of the `__init__.py` chain above it), so
`dynlint check .venv/.../site-packages/torchvision/ops/boxes.py` means torchvision, never the
whole virtualenv nor a checkout that happens to hold it. A loose module there has no project.
"""
from __future__ import annotations

import fnmatch
import functools
import os

from .config import DEFAULT_EXCLUDE
from .discover import discover

MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def module_name(path: str) -> tuple[str, bool]:
    """Dotted module name from the package directories (`__init__.py`) above a file."""
    path = os.path.abspath(path)
    directory, filename = os.path.split(path)
    stem = filename.rsplit(".", 1)[0]
    is_package = stem == "__init__"
    parts = [] if is_package else [stem]
    while _in_package(directory):
        directory, pkg = os.path.split(directory)
        parts.append(pkg)
        if not pkg:
            break
    return ".".join(reversed(parts)) or stem, is_package


def _in_package(directory: str) -> bool:
    """A package directory: a regular one (`__init__.py`), or a directory without one inside
    a regular package, which Python imports as a namespace package below its parent (PEP 420:
    `captum/testing/helpers/basic.py` with `captum/__init__.py`, `testing/` bare, is
    `captum.testing.helpers.basic`). A bare directory elsewhere names nothing."""
    if os.path.isfile(os.path.join(directory, "__init__.py")):
        return True
    parent = os.path.dirname(directory)
    return parent != directory and os.path.isdir(directory) and \
        os.path.isfile(os.path.join(parent, "__init__.py"))


def project_root(path: str) -> str | None:
    """The absolute directory of `path`'s project (a file or a directory), or None."""
    path = os.path.abspath(path)
    return _root_from(path if os.path.isdir(path) else os.path.dirname(path))


@functools.lru_cache(maxsize=4096)
def _root_from(start: str) -> str | None:
    directory = start
    while True:
        if _installed_place(directory):
            return _top_package(start)
        if any(os.path.exists(os.path.join(directory, m)) for m in MARKERS):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _installed_place(directory: str) -> bool:
    """A directory the default excludes skip, or a virtualenv."""
    name = os.path.basename(directory)
    return any(fnmatch.fnmatchcase(name, p) for p in DEFAULT_EXCLUDE) or \
        os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def _top_package(directory: str) -> str | None:
    if not _in_package(directory):
        return None
    while True:
        parent = os.path.dirname(directory)
        if parent == directory or not _in_package(parent):
            return directory
        directory = parent


def _covers(directory: str, root: str) -> bool:
    return root == directory or root.startswith(directory.rstrip(os.sep) + os.sep)


def unnamed_files(paths, named, resolver) -> list[str]:
    """Absolute paths of the files of the projects of `paths` that `named` (absolute paths of the
    files being checked) leaves out, found as `dynlint check ROOT` finds them (its excludes,
    its .gitignore). A directory named at or above its project's root covers the project."""
    roots, covered = [], set()
    for p in paths:
        if p == "-" or not os.path.exists(p):
            continue
        root = project_root(p)
        if root is None:
            continue
        if os.path.isdir(p) and _covers(os.path.abspath(p), root):
            covered.add(root)
        elif root not in roots:
            roots.append(root)
    out: list[str] = []
    seen = set(named)
    for root in roots:
        if root in covered:
            continue
        files, _ = discover([root], resolver)
        for f in files:
            f = os.path.abspath(f)
            if f not in seen:
                seen.add(f)
                out.append(f)
    return out
