"""Replay of one flagged module with the inputs captured while recording.

Three passes through a fresh graph cache:
  1. as captured          -- warms the cache, as the real run did;
  2. as captured, again   -- identical data must hit the cache; a compile here
                             means the graph is not even a function of the data;
  3. perturbed values     -- same shapes and dtypes, different numbers; a compile
                             here, for input shapes the cache has seen, proves the
                             module's graph depends on tensor values.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from .observe import user_frame
from .tracker import CallRecord, Tracker, class_name, module_names
from .values import perturb

PASSES = ("as-captured", "as-captured-again", "perturbed")


@dataclass
class Capture:
    step: int
    args: tuple
    kwargs: dict
    in_sig: Any
    nbytes: int
    new_in: bool = True  # first time the record run saw this input shape for this module


@dataclass
class ModuleReplay:
    name: str
    cls: str
    captures: int
    compiles: dict = field(default_factory=dict)  # pass -> compiles per capture
    seen_shape_compiles: dict = field(default_factory=dict)  # pass -> compiles with a known input shape
    errors: list = field(default_factory=list)
    reasons: list = field(default_factory=list)  # backend-specific explanations (compile: guard failures, graph breaks)
    rows: list = field(default_factory=list)  # CallRecords of pass 1, for backends without a record-time table
    warnings: list = field(default_factory=list)  # what the backend printed (torch.compile warnings), captured

    @property
    def inconclusive(self) -> bool:
        """A replay raised: the inputs we made were not valid for this module, so no verdict
        rests on that replay (its ops are discarded); the others still count."""
        return bool(self.errors)

    @property
    def data_dependent(self) -> bool:
        """A compile for input shapes already in the cache, in any pass: captures of different
        steps, the same capture again, or perturbed values -- the data changed the graph."""
        return any(self.seen_shape_compiles.values())

    @property
    def nondeterministic(self) -> bool:
        return bool(self.seen_shape_compiles.get("as-captured-again"))


def _call(module: torch.nn.Module, cap_args: tuple, cap_kwargs: dict, seed: int) -> None:
    # The same seed for every call, so that random ops inside the module
    # (dropout, samplers) cannot pass for data dependence.
    torch.manual_seed(seed)
    with torch.no_grad():
        module(*cap_args, **cap_kwargs)


def pass_inputs(captures: list[Capture], generator: torch.Generator):
    """Yield (pass, capture, args, kwargs) in replay order."""
    for label in PASSES:
        for cap in captures:
            if label == "perturbed":
                args, kwargs = perturb((cap.args, cap.kwargs), generator)
            else:
                args, kwargs = cap.args, cap.kwargs
            yield label, cap, args, kwargs


def error_text(label: str, cap: Capture, exc: BaseException) -> str:
    """One readable line: the exception's first line and where in user code it was raised."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    first = lines[0] if lines else ""
    if len(first) > 300:
        first = first[:297] + "..."
    at = user_frame(exc)
    return f"{label} replay of step {cap.step} raised {type(exc).__name__}: {first}".strip() + (
        f" (at {at})" if at else "")


def generic_replay(backend, module: torch.nn.Module, name: str, captures: list[Capture], observer,
                   generator: torch.Generator, seed: int = 0) -> ModuleReplay:
    """Replay through a Tracker watching only `module`, under the op observer: cheap, and the
    backend's detector decides.  The ops of a call that raised are discarded."""
    result = ModuleReplay(name, class_name(type(module)), len(captures))
    # Its children are tracked too, under their full names: an op in a child's code must be
    # the child's, not the replayed module's own (only this module's compiles are counted).
    names = {key: (f"{name}.{sub}" if name and sub else name or sub, mod)
             for key, (sub, mod) in module_names(module).items()}
    tracker = Tracker(names, backend.detector())
    observer.stack = tracker.stack
    with tracker:
        for label, cap, args, kwargs in pass_inputs(captures, generator):
            observer.phase = f"replay:{label}"
            tracker.step = cap.step
            before = len(tracker.records)
            observer.hold()
            try:
                with observer:
                    _call(module, args, kwargs, seed)
                backend.after_step()
            except Exception as exc:
                observer.discard()
                result.errors.append(error_text(label, cap, exc))
                result.compiles.setdefault(label, []).append(0)
                continue
            observer.commit()
            new: list[CallRecord] = [r for r in tracker.records[before:] if r.name == name]
            compiles = sum(r.recompiled for r in new)
            result.compiles.setdefault(label, []).append(compiles)
            seen_shape = sum(r.recompiled for r in new if not r.new_in)
            result.seen_shape_compiles[label] = result.seen_shape_compiles.get(label, 0) + seen_shape
            if label == "as-captured":
                result.rows.extend(new)
    return result
