"""Backend selection: `auto` (hpu when habana_frameworks imports, else emulate), emulate,
compile or hpu. The interface they implement is in backend_base.py."""
from __future__ import annotations

import importlib

from .backend_base import Backend

BACKENDS = ("auto", "emulate", "compile", "hpu")

__all__ = ["BACKENDS", "Backend", "get_backend", "habana_available"]


def habana_available() -> bool:
    try:
        importlib.import_module("habana_frameworks.torch")
    except Exception:  # ImportError, or a broken install raising anything else
        return False
    return True


def get_backend(name: str | Backend) -> Backend:
    if isinstance(name, Backend):
        return name
    if name == "auto":
        name = "hpu" if habana_available() else "emulate"
    if name == "emulate":
        from .emulate import EmulateBackend
        return EmulateBackend()
    if name == "compile":
        from .compile import CompileBackend
        return CompileBackend()
    if name == "hpu":
        from .hpu import HpuBackend
        return HpuBackend()
    raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
