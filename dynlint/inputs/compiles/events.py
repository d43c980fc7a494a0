"""What every recompilation-record parser produces: compile events, placed on steps when the
record has step markers."""
from __future__ import annotations

import re
from dataclasses import dataclass, field


class CompilesError(Exception):
    """An unreadable or malformed record; the message names the file (and line); the CLI exits 2."""


@dataclass
class CompileEvent:
    step: int | None = None  # training step, when the record has step markers
    time: float | None = None  # POSIX seconds, when known
    count: int = 1  # a cumulative counter can rise by more than one between two dumps
    seconds: float | None = None  # compile time
    frame: str | None = None  # compiled function: "forward (model.py:12)", or a graph hash
    compile_id: str | None = None  # torch.compile's "frame/compile", e.g. "0/3"
    reason: str | None = None  # why it recompiled (guard failure), when the record says


@dataclass
class CompileLog:
    source: str
    format: str
    rank: int | None = None
    events: list[CompileEvent] = field(default_factory=list)
    steps: int | None = None  # steps observed; None: the record has no step markers
    start: float | None = None  # time span of the record, for time-based judgement
    end: float | None = None
    mark_steps: int | None = None  # graph executions counted by the record (XLA MarkStep), if any
    limit_hit: list[str] = field(default_factory=list)  # functions that gave up recompiling
    notes: list[str] = field(default_factory=list)

    @property
    def compiles(self) -> int:
        return sum(e.count for e in self.events)


_RANK_PATTERNS = (re.compile(r"-rank(\d+)"), re.compile(r"rank_(\d+)"), re.compile(r"\brank(\d+)\b"))


def rank_of(path: str) -> int | None:
    """Rank from a file name: Gaudi's `metrics-rank3.json(.1)`, torch's `..._rank_3_...log`."""
    name = path.rsplit("/", 1)[-1]
    for pattern in _RANK_PATTERNS:
        m = pattern.search(name)
        if m:
            return int(m.group(1))
    return None


_ID_PREFIX = re.compile(r"^\s*\d+/\d+(?:_\d+)?:\s*")
_NUMBERS = re.compile(r"\b(expected|actual)\s+-?\d+")


def reason_kind(reason: str) -> str:
    """A guard failure without its compile id and values, so equal causes count together."""
    first = reason.strip().splitlines()[0] if reason.strip() else reason
    return _NUMBERS.sub(r"\1 N", _ID_PREFIX.sub("", first)).strip()
