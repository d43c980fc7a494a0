"""Emulated lazy-mode graph cache, for any device.

A lazy-mode runtime (Gaudi, XLA) compiles the op sequence a module call
produces and caches it under that sequence's shapes.  The observer already
records, per call, every op with its input and output shapes; the hash of that
sequence is the call's graph signature, and an unseen signature is a compile.
A child's signature is one token of its parent, so a child that recompiles
makes its parent's signature new too, as on the real device.
"""
from __future__ import annotations

from typing import Any

from .backend_base import Backend
from .tracker import Detector, Frame


class EmulateDetector(Detector):
    def __init__(self) -> None:
        self.cache: dict[str, set[int]] = {}

    def end(self, frame: Frame, out_sig: Any) -> int:
        sig = hash((frame.in_sig, tuple(frame.tokens)))
        frame.state = sig
        seen = self.cache.setdefault(frame.name, set())
        if sig in seen:
            return 0
        seen.add(sig)
        return 1

    def reset(self) -> None:
        self.cache.clear()


class EmulateBackend(Backend):
    name = "emulate"

    def detector(self) -> Detector:
        return EmulateDetector()
