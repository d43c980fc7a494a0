"""A copy of the package's sources, as a fresh clone would hold them, for install tests.

Installing from a copy keeps `pip install .` from writing build/ and egg-info into the shared
working tree, and tests what is on disk now (committed or not) in CI and locally alike.
"""
from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Everything a build or a pre-commit hook install reads; optional files are copied if present.
PACKAGE_PATHS = ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "setup.cfg", "setup.py",
                 ".pre-commit-hooks.yaml", "dynlint", "rules")


def snapshot(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".dynlint_cache")
    for name in PACKAGE_PATHS:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=skip)
        elif src.is_file():
            shutil.copy2(src, dest / name)
    return dest
