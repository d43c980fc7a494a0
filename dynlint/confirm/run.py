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
from .modules import DYNAMIC, INCONCLUSIVE, ModuleVerdict, judge_modules
from .observe import Observer, SourceLocator
from .record import Capturer, record
from .replay import ModuleReplay, generic_replay
from .tracker import (
    CallRecord,
    ModuleStats,
    Tracker,
    class_name,
    module_names,
    module_paths,
)
from .verdicts import CONFIRMED, Verdict, judge, misses

DEFAULT_STEPS = 5
DEFAULT_WARMUP = 1


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
    module_verdicts: list[ModuleVerdict] = field(default_factory=list)
    cleared: list[str] = field(default_factory=list)  # recompiles explained by state, cleared by a replay
    warmup: int = 0
    warmup_rows: list[CallRecord] = field(default_factory=list)
    compiler_warnings: list[str] = field(default_factory=list)
    detects_in_record: bool = True

    @property
    def confirmed(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.verdict == CONFIRMED]

    @property
    def exit_code(self) -> int:
        return 1 if self.confirmed else 0

    def dynamic_modules(self) -> list[str]:
        """Modules dynamic through their own code: an op there gave a result that varied
        for the same input shapes (see modules.py).  Already ordered shallow to deep."""
        return [v.name for v in self.module_verdicts if v.verdict == DYNAMIC]

    def inconclusive_modules(self) -> list[str]:
        return [v.name for v in self.module_verdicts if v.verdict == INCONCLUSIVE]

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
                  limit: int, sites: dict) -> list[str]:
    """Modules worth replaying: captured ones in which a flagged line or a data-dependent op ran.
    Modules that already misbehaved on their own go first; deep ones next (cheaper to replay).
    The choice rests on the observer, not on the backend, so every backend replays the same."""
    flagged = {(f.path, ln) for f in static for ln in range(f.line, f.end_line + 1)}
    ran_in = {m for key, mods in covered.items() if key in flagged for m in mods}
    own_ops = {m for s in sites.values() for m in s.modules}
    suspicious = {r.name for r in rows if r.unexpected and not r.child_recompiled}
    suspicious |= {m for s in sites.values() for m in s.modules if s.varied_in(m)}
    chosen = [n for n in captured if captured[n] and (n in ran_in or n in suspicious or n in own_ops)]
    chosen.sort(key=lambda n: (n not in suspicious, -n.count("."), n))
    return chosen[:limit]


def _replay(backend, names: list[str], modules: dict, captured: dict, observer, seed: int) -> list[ModuleReplay]:
    with torch.random.fork_rng(devices=[]):  # replays reseed torch; the caller's RNG state survives
        return [_replay_one(backend, name, modules[name], captured[name], observer, seed) for name in names]


def _replay_one(backend, name, module, captures, observer, seed) -> ModuleReplay:
    """The eager replay under the op observer, for every backend (the evidence of varying ops
    must not depend on the backend); then the backend's own replay if it has one, on the very
    same perturbed inputs (same generator seed)."""
    observed = generic_replay(backend, module, name, captures, observer, torch.Generator().manual_seed(seed), seed)
    own = backend.replay(module, name, captures, observer, torch.Generator().manual_seed(seed), seed)
    if own is None:
        return observed
    own.errors = list(dict.fromkeys(observed.errors + own.errors))
    return own


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
                seed: int = 0, warmup: int = DEFAULT_WARMUP) -> ConfirmResult:
    """Confirm or clear dynlint's static findings by running `model` on `batches`.

    `paths` are scanned with dynlint's static analyzer unless `findings` are given
    (Finding objects or dicts with path/line/... keys).  Raises ConfirmError for
    bad input and record.ModelError when the model itself raises.
    """
    if not isinstance(model, torch.nn.Module):
        raise ConfirmError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if steps < 1:
        raise ConfirmError("steps must be at least 1")
    if warmup < 0:
        raise ConfirmError("warmup must be 0 or more")
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
    tracker = Tracker(names, chosen.detector(), capturer, paths=module_paths(model), on_return=capturer.on_return)
    observer.stack = tracker.stack
    # Findings in free functions: whichever module ran their lines is captured from the next step
    # on; the capturer's probe of step 0 has already kept its step-0 inputs if an op there ran.
    free = [f for f in static if not any(f in held for held in linked.values())]
    free_lines = {(f.path, ln) for f in free for ln in range(f.line, f.end_line + 1)}

    def step_hook() -> None:
        for key in free_lines & observer.covered.keys():
            capturer.wanted.update(m for m in observer.covered[key] if m is not None)

    timings = {"scan": time.perf_counter() - clock}
    clock = time.perf_counter()
    steps_run = record(model, batches, steps, chosen, tracker, observer, after_step=step_hook, warmup=warmup,
                       capturer=capturer)
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
    to_replay = _pick_replays(static, observer.covered, tracker.records, capturer.kept, max_replays, observer.sites)
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
    verdicts = judge(static, observer.sites, observer.covered, replays)
    classes = {name: class_name(type(module)) for name, module in names.values()}
    module_verdicts, cleared = judge_modules(chosen.name, chosen.detects_in_record, rows, replays, observer.sites,
                                             classes)
    warnings = [w for r in replays for w in r.warnings]
    if warnings:
        distinct = list(dict.fromkeys(warnings))
        notes.append(f"torch.compile printed {len(warnings)} warning(s) ({len(distinct)} distinct), kept off "
                     f"stderr; the first: {distinct[0]}")
    return ConfirmResult(chosen.name, steps_run, static, groups, rows, stats, locations, replays, verdicts,
                         misses(static, observer.sites, scanned), observer.sites, notes, timings,
                         module_verdicts, cleared, warmup, tracker.warmup_records, warnings,
                         chosen.detects_in_record)
