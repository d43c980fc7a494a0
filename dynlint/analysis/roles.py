"""Where a function runs, as the scopes pre-pass decides it (see `scopes/`).

An enum rather than strings repeated across the analysis and the engine: a misspelt role is
an AttributeError, not a silently different set.
"""
from __future__ import annotations

import enum


class Role(enum.Enum):
    MODEL = "model"         # runs inside the step: reached from forward, a loss, a decode loop...
    NEUTRAL = "neutral"     # reached from nothing in the file: library code, judged in scope
    COLD = "cold"           # construction, data, tests, I/O: never inside the step

    def __str__(self) -> str:
        return self.value


ALL_ROLES = frozenset(Role)
