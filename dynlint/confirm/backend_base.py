"""The small interface every recompilation detector implements.

A backend answers one question per module call -- how many graph compilations
did this call cause? -- through a `Detector`, and may replace the generic
replay loop when it cannot observe single module calls (torch.compile).
Backends subclass this; `backends.py` chooses one (kept apart so that the
backends and the chooser do not import each other).
"""
from __future__ import annotations

from typing import Any

import torch

from .tracker import Detector
from .values import map_tensors

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
