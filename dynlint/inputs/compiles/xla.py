"""torch_xla metrics reports (`torch_xla.debug.metrics.metrics_report()` text).

    Metric: CompileTime
      TotalSamples: 202
      Accumulator: 06m09s401ms746.001us
      ...
    Counter: UncachedCompile
      Value: 202
    Counter: MarkStep
      Value: 210

Compiles are UncachedCompile (else CompileTime's TotalSamples).  A file holding several reports
(printed every step, or every N steps) gives per-report differences: one report = one step.
"""
from __future__ import annotations

import re

from .events import CompileEvent, CompileLog, CompilesError, rank_of

_HEAD = re.compile(r"^(Metric|Counter): (\S+)\s*$")
_FIELD = re.compile(r"^\s+(\w+): (.*)$")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(d|h|m|s|ms|us|ns)")
_UNIT = {"d": 86400, "h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def looks_like(text: str) -> bool:
    return bool(re.search(r"^(Metric|Counter): \w+", text, re.MULTILINE)) and "TotalSamples" in text or \
        bool(re.search(r"^Counter: (UncachedCompile|CachedCompile|MarkStep)", text, re.MULTILINE))


def duration_seconds(text: str) -> float | None:
    parts = _DURATION.findall(text.replace(" ", ""))
    if not parts:
        return None
    return sum(float(v) * _UNIT[u] for v, u in parts)


def _snapshots(path: str, text: str) -> list[dict]:
    snaps: list[dict] = [{}]
    current = None
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if (m := _HEAD.match(line)):
            key = f"{m.group(1)}:{m.group(2)}"
            if key in snaps[-1]:  # the same name again: a new report begins
                snaps.append({})
            current = snaps[-1][key] = {}
        elif (m := _FIELD.match(line)) and current is not None:
            current[m.group(1)] = m.group(2).strip()
        elif current is None:
            continue  # text before the first report (the program's own prints)
        else:
            current = None  # a line of something else ends the block
    snaps = [s for s in snaps if s]
    if not snaps:
        raise CompilesError(f"{path}: no 'Metric:'/'Counter:' blocks of a torch_xla metrics report")
    return snaps


def _int(block: dict | None, field: str, path: str) -> int | None:
    if not block or field not in block:
        return None
    try:
        return int(float(block[field]))
    except ValueError:
        raise CompilesError(f"{path}: {field} is not a number: {block[field]!r}") from None


def parse(path: str, text: str) -> CompileLog:
    log = CompileLog(path, "xla-report", rank=rank_of(path))
    snaps = _snapshots(path, text)
    previous_compiles = previous_time = 0
    for i, snap in enumerate(snaps):
        compiles = _int(snap.get("Counter:UncachedCompile"), "Value", path)
        if compiles is None:
            compiles = _int(snap.get("Metric:CompileTime"), "TotalSamples", path)
        if compiles is None:
            raise CompilesError(f"{path}: report {i + 1} has neither UncachedCompile nor CompileTime")
        block = snap.get("Metric:CompileTime") or {}
        total = duration_seconds(block.get("Accumulator", block.get("Counter", ""))) or 0.0
        if compiles > previous_compiles:
            log.events.append(CompileEvent(step=i if len(snaps) > 1 else None,
                                           count=compiles - previous_compiles,
                                           seconds=(total - previous_time) if total else None))
        previous_compiles, previous_time = compiles, total
    if len(snaps) > 1:
        log.steps = len(snaps)
        log.notes.append(f"{path}: {len(snaps)} reports, read as one report per step")
    else:
        marks = _int(snaps[0].get("Counter:MarkStep"), "Value", path)
        log.mark_steps = marks
        log.notes.append(f"{path}: one report: totals only ({marks if marks is not None else '?'} MarkStep)")
    return log
