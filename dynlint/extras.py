"""Optional dependencies: which extra installs what, and the one-line message when missing.

The static checker needs none of them; each feature that does imports its dependency
through `require`, so a missing one is a usage error (exit 2) that names the extra to
install, never a traceback.
"""
from __future__ import annotations

import importlib

# module -> the extra that installs it (see docs/installation.md)
EXTRAS = {"torch": "confirm"}


class MissingExtra(Exception):
    pass


def require(module: str, feature: str):
    """Import `module` for `feature`, or raise MissingExtra with an install command."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = (exc.name or "").split(".")[0]
        if top != module.split(".")[0]:
            raise                      # the module is there; something it imports is not
        raise MissingExtra(missing_message(module, feature)) from None


def missing_message(module: str, feature: str) -> str:
    extra = EXTRAS.get(module.split(".")[0])
    how = f"pip install 'dynlint[{extra}]'" if extra else f"pip install {module}"
    return f"{feature} needs {module}, which is not installed: {how}"
