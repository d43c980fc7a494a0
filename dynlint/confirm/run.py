"""`run_confirm`: static scan -> record -> replay -> verdicts, as one call."""
from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import torch

from . import findings as fnd
from .backends import Backend, get_backend
from .findings import ConfirmError, StaticFinding
from .observe import Observer, SourceLocator
from .record import Capturer, record
from .replay import ModuleReplay, generic_replay
from .tracker import CallRecord, ModuleStats, Tracker, class_name, module_names
from .verdicts import CONFIRMED, Verdict, judge, misses

DEFAULT_STEPS = 5


@dataclass
class ConfirmResult:
    backend: str
    steps: int
    findings: list[StaticFinding]
    groups: list[dict]
    rows: list[CallRecord]
    stats: dict[str, ModuleStats]
    locations: dict[str, str]
    replays: list[ModuleReplay]
    verdicts: list[Verdict]
    misses: list[dict]
    sites: dict = field(default_factory=dict)  # (path, line, op) -> OpSite
    notes: list[str] = field(default_factory=list)
    timings: dict = field(default_factory=dict)  # seconds spent in scan / record / replay

    @property
    def confirmed(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.verdict == CONFIRMED]

    @property
    def exit_code(self) -> int:
        return 1 if self.confirmed else 0

    def dynamic_modules(self) -> list[str]:
        """Modules whose graph changed with input shapes already seen, by their own ops or in replay."""
        names = {r.name for r in self.rows if r.unexpected and (r.sites or not r.child_recompiled)}
        names.update(r.name for r in self.replays if r.data_dependent)
        return sorted(names, key=lambda n: (n.count("."), n))

    def verdict_for(self, path: str, line: int) -> Verdict | None:
        path = os.path.realpath(path)
        for v in self.verdicts:
            if v.finding.path == path and v.finding.line <= line <= v.finding.end_line:
                return v
        return None

    def to_dict(self) -> dict:
        from .report import to_dict
        return to_dict(self)


def _pick_replays(static: list[StaticFinding], covered: dict, rows: list[CallRecord], captured: dict,
                  limit: int) -> list[str]:
    """Modules worth replaying: captured ones in which a flagged line ran.
    Modules that already misbehaved on their own go first; deep ones next (cheaper to replay)."""
    flagged = {(f.path, ln) for f in static for ln in range(f.line, f.end_line + 1)}
    ran_in = {m for key, mods in covered.items() if key in flagged for m in mods}
    suspicious = {r.name for r in rows if r.unexpected and (r.sites or not r.child_recompiled)}
    chosen = [n for n in captured if captured[n] and (n in ran_in or n in suspicious)]
    chosen.sort(key=lambda n: (n not in suspicious, -n.count("."), n))
    return chosen[:limit]


def _replay(backend, names: list[str], modules: dict, captured: dict, observer, seed: int) -> list[ModuleReplay]:
    generator = torch.Generator().manual_seed(seed)
    with torch.random.fork_rng(devices=[]):  # replays reseed torch; the caller's RNG state survives
        return [_replay_one(backend, name, modules[name], captured[name], observer, generator, seed)
                for name in names]


def _replay_one(backend, name, module, captures, observer, generator, seed) -> ModuleReplay:
    result = backend.replay(module, name, captures, observer, generator, seed)
    if result is None:
        result = generic_replay(backend, module, name, captures, observer, generator, seed)
    return result


def _table(backend, tracker: Tracker, replays: list[ModuleReplay]) -> tuple[list[CallRecord], dict]:
    """The per-step rows and per-module stats: from the record run when the backend could
    judge single module calls there, else from the replays (in step order)."""
    if backend.detects_in_record:
        return tracker.records, tracker.stats
    rows = sorted((r for rep in replays for r in rep.rows), key=lambda r: r.step)
    stats = tracker.stats
    for rep in replays:
        st = stats.get(rep.name) or ModuleStats(rep.name, rep.cls)
        st.recompiles = sum(r.recompiled for r in rep.rows)
        st.unexpected = sum(1 for r in rep.rows if r.unexpected)
        stats[rep.name] = st
    return rows, stats


def run_confirm(model: torch.nn.Module, batches: Iterable, paths: Iterable[str] = (), *,
                steps: int = DEFAULT_STEPS, backend: str | Backend = "auto", findings: Iterable[Any] | None = None,
                max_captures: int = 4, max_capture_bytes: int = 256 << 20, max_replays: int = 32,
                seed: int = 0) -> ConfirmResult:
    """Confirm or clear dynlint's static findings by running `model` on `batches`.

    `paths` are scanned with dynlint's static analyzer unless `findings` are given
    (Finding objects or dicts with path/line/... keys).  Raises ConfirmError for
    bad input and record.ModelError when the model itself raises.
    """
    if not isinstance(model, torch.nn.Module):
        raise ConfirmError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if steps < 1:
        raise ConfirmError("steps must be at least 1")
    paths = [str(p) for p in paths]
    clock = time.perf_counter()
    static = [fnd.convert(f) for f in findings] if findings is not None else fnd.scan(paths)
    scanned = fnd.python_files(paths) | {f.path for f in static}
    chosen = get_backend(backend)
    notes: list[str] = []
    if not static:
        notes.append("no static findings in the scanned paths: nothing to confirm; "
                     "every data-dependent op listed below is one the linter missed")

    model = chosen.prepare(model)
    names = module_names(model)
    linked = fnd.link_modules(names, static)
    groups = fnd.group(static, linked)
    observer = Observer([], {f.path for f in static}, SourceLocator())
    capturer = Capturer(set(linked), max_captures, max_capture_bytes, observer)
    tracker = Tracker(names, chosen.detector(), capturer)
    observer.stack = tracker.stack
    # Findings in free functions: capture whichever module ran their lines, from the next step on.
    free = [f for f in static if not any(f in held for held in linked.values())]
    free_lines = {(f.path, ln) for f in free for ln in range(f.line, f.end_line + 1)}

    def step_hook() -> None:
        for key in free_lines & observer.covered.keys():
            capturer.wanted.update(m for m in observer.covered[key] if m is not None)

    timings = {"scan": time.perf_counter() - clock}
    clock = time.perf_counter()
    steps_run = record(model, batches, steps, chosen, tracker, observer, after_step=step_hook)
    if steps_run == 0:
        raise ConfirmError("batches is empty: the model never ran")
    if tracker.hook_failures:
        notes.append("modules that refused hooks (not tracked): " + "; ".join(tracker.hook_failures[:5]))
    for name, dropped in capturer.dropped_for_memory.items():
        notes.append(f"{dropped} input capture(s) of {name or '(root)'} dropped: capture memory cap reached")

    timings["record"] = time.perf_counter() - clock
    clock = time.perf_counter()
    for g in groups:  # free functions: linked to whichever module ran their flagged lines
        if not g["modules"]:
            lines = {(f.path, ln) for f in g["findings"] for ln in range(f.line, f.end_line + 1)}
            g["modules"].update(m for key in lines & observer.covered.keys() for m in observer.covered[key] if m)
    to_replay = _pick_replays(static, observer.covered, tracker.records, capturer.kept, max_replays)
    skipped = [n for n in linked if n not in to_replay]
    if skipped:
        notes.append(f"not replayed ({len(skipped)}): flagged lines never ran, no capture, or over the "
                     f"replay limit: {', '.join(n or '(root)' for n in skipped[:8])}"
                     + (" ..." if len(skipped) > 8 else ""))
    modules = {name: module for name, module in names.values()}
    replays = _replay(chosen, to_replay, modules, capturer.kept, observer, seed)
    capturer.kept.clear()  # release the snapshots before reporting
    timings["replay"] = time.perf_counter() - clock

    rows, stats = _table(chosen, tracker, replays)
    locations = {}
    for _, module in names.values():
        cls = type(module)
        locations.setdefault(class_name(cls), fnd.display_path(fnd.class_file(cls) or "?"))
    if observer.errors:
        notes.append(f"the op observer failed on {observer.errors} op(s); results may be incomplete")
    verdicts = judge(static, observer.sites, observer.covered)
    return ConfirmResult(chosen.name, steps_run, static, groups, rows, stats, locations, replays, verdicts,
                         misses(static, observer.sites, scanned), observer.sites, notes, timings)
