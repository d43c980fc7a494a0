"""Module-call tracking: which submodule runs, with which input shapes, and did it recompile.

Hooks go on every submodule (pre-hook with kwargs, post-hook that also runs
when forward raises).  Each call becomes a Frame on an explicit stack; no
recursion is involved anywhere, so a model 1000 modules deep is fine.  Whether
a call "recompiled" is the backend detector's decision (see backends.py).
"""
from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from .values import signature


def module_names(root: torch.nn.Module) -> dict[int, tuple[str, torch.nn.Module]]:
    """id(module) -> (dotted name, module), root named ''.  Iterative: nn.Module.named_modules
    recurses through nested generators, which a very deep model can exhaust."""
    names: dict[int, tuple[str, torch.nn.Module]] = {id(root): ("", root)}
    todo = [("", root)]
    while todo:
        prefix, mod = todo.pop()
        for child_name, child in mod._modules.items():
            if child is None or id(child) in names:
                continue
            name = f"{prefix}.{child_name}" if prefix else child_name
            names[id(child)] = (name, child)
            todo.append((name, child))
    return names


def class_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class Frame:
    __slots__ = ("child_recompiled", "detail", "in_sig", "module", "name", "sites", "state", "tokens")

    def __init__(self, name: str, module: torch.nn.Module, in_sig: Any):
        self.name = name
        self.module = module
        self.in_sig = in_sig
        self.tokens: list = []
        self.child_recompiled = False
        self.sites: list = []
        self.state: Any = None  # detector scratch space; emulate keeps the graph signature here
        self.detail = ""


@dataclass
class CallRecord:
    step: int
    name: str
    cls: str
    new_in: bool
    new_out: bool
    recompiled: int  # compilations attributed to this call (1 for emulate)
    child_recompiled: bool
    sites: tuple = ()
    detail: str = ""

    @property
    def unexpected(self) -> bool:
        """Recompiled although this input shape had been seen: the seeds' interesting case."""
        return bool(self.recompiled) and not self.new_in


@dataclass
class ModuleStats:
    name: str
    cls: str
    calls: int = 0
    recompiles: int = 0
    unexpected: int = 0
    input_shapes: int = 0  # distinct input shape signatures seen


class Detector:
    """Backend hook into each module call; `end` returns the number of compilations."""

    def begin(self, frame: Frame) -> None:
        pass

    def end(self, frame: Frame, out_sig: Any) -> int:
        return 0


class Tracker:
    """Runs hooks on the modules in `names` and turns their calls into CallRecords."""

    def __init__(self, names: dict[int, tuple[str, torch.nn.Module]], detector: Detector,
                 on_call: Callable[[str, torch.nn.Module, tuple, dict, Any], None] | None = None):
        self.names = names
        self.detector = detector
        self.on_call = on_call
        self.stack: list[Frame] = []
        self.step = 0
        self.records: list[CallRecord] = []
        self.stats: dict[str, ModuleStats] = {}
        self._seen_in: dict[str, set] = {}
        self._seen_out: dict[str, set] = {}
        self._handles: list = []
        self.hook_failures: list[str] = []
        self.failed_in: str | None = None  # innermost module whose forward raised

    def __enter__(self) -> Tracker:
        for name, module in self.names.values():
            try:
                self._handles.append(module.register_forward_pre_hook(
                    functools.partial(self._pre, name), with_kwargs=True))
                self._handles.append(module.register_forward_hook(
                    functools.partial(self._post, name), with_kwargs=True, always_call=True))
            except Exception as exc:  # e.g. scripted modules refuse Python hooks
                self.hook_failures.append(f"{name or '(root)'}: {exc}")
        return self

    def __exit__(self, *exc) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self.stack.clear()

    def _pre(self, name: str, module: torch.nn.Module, args: tuple, kwargs: dict) -> None:
        if self.on_call is not None:
            self.on_call(name, module, args, kwargs, self)
        frame = Frame(name, module, signature((args, kwargs)))
        self.stack.append(frame)
        self.detector.begin(frame)

    def _post(self, name: str, module: torch.nn.Module, args: tuple, kwargs: dict, output: Any) -> None:
        stack = self.stack
        # Unwind to this module's frame: a frame left open means a child's hook never ran.
        while stack and stack[-1].module is not module:
            stack.pop()
        if not stack:
            return
        frame = stack.pop()
        if sys.exc_info()[1] is not None:
            if self.failed_in is None:
                self.failed_in = name
            return  # forward raised: there is no graph to speak of
        out_sig = signature(output)
        compiled = self.detector.end(frame, out_sig)
        cls = class_name(type(module))
        stats = self.stats.get(name)
        if stats is None:
            stats = self.stats[name] = ModuleStats(name, cls)
        seen_in = self._seen_in.setdefault(name, set())
        seen_out = self._seen_out.setdefault(name, set())
        new_in = frame.in_sig not in seen_in
        new_out = out_sig not in seen_out
        seen_in.add(frame.in_sig)
        seen_out.add(out_sig)
        stats.calls += 1
        stats.input_shapes = len(seen_in)
        if stack:
            parent = stack[-1]
            parent.tokens.append(("call", name, frame.state))
            if compiled:
                parent.child_recompiled = True
        if compiled:
            stats.recompiles += compiled
            record = CallRecord(self.step, name, cls, new_in, new_out, compiled, frame.child_recompiled,
                                tuple(dict.fromkeys(frame.sites)), frame.detail)
            if record.unexpected:
                stats.unexpected += 1
            self.records.append(record)
