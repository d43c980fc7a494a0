"""The small interface every recompilation detector implements, and backend selection.

A backend answers one question per module call -- how many graph compilations
did this call cause? -- through a `Detector`, and may replace the generic
replay loop when it cannot observe single module calls (torch.compile).
"""
from __future__ import annotations

import importlib
from typing import Any

import torch

from .tracker import Detector
from .values import map_tensors

BACKENDS = ("auto", "emulate", "compile", "hpu")


class Backend:
    name = "base"
    device: str | None = None
    # True when the record run itself can tell which module call recompiled.
    detects_in_record = True

    def detector(self) -> Detector:
        """A detector with an empty graph cache."""
        raise NotImplementedError

    def prepare(self, model: torch.nn.Module) -> torch.nn.Module:
        return model if self.device is None else model.to(self.device)

    def to_device(self, obj: Any) -> Any:
        if self.device is None:
            return obj
        return map_tensors(obj, lambda t: t.to(self.device))

    def after_step(self) -> None:
        pass

    def replay(self, module, name, captures, observer, generator, seed: int = 0):
        """Replay one module; None means: use the generic tracker-based loop (replay.py)."""
        return


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
