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
from dataclasses import dataclass, field
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


def module_paths(root: torch.nn.Module) -> dict[int, list[str]]:
    """id(module) -> every dotted path it is reachable by (one per owner attribute): an instance
    shared by several owners (one activation used by every block) has several paths."""
    paths: dict[int, list[str]] = {id(root): [""]}
    todo = [("", root)]
    while todo:
        prefix, mod = todo.pop()
        for child_name, child in mod._modules.items():
            if child is None:
                continue
            name = f"{prefix}.{child_name}" if prefix else child_name
            known = paths.get(id(child))
            if known is None:
                paths[id(child)] = [name]
                todo.append((name, child))
            elif name not in known and len(known) < 1000:
                known.append(name)
    return paths


def class_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class Frame:
    __slots__ = ("capture", "child_recompiled", "detail", "in_sig", "module", "name", "path", "sites", "state", "tokens")

    def __init__(self, name: str, module: torch.nn.Module, in_sig: Any, path: str | None = None):
        self.name = name
        self.path = name if path is None else path  # the owner path of this call (shared modules)
        self.module = module
        self.in_sig = in_sig
        self.tokens: list = []
        self.child_recompiled = False
        self.sites: list = []
        self.state: Any = None  # detector scratch space; emulate keeps the graph signature here
        self.detail = ""
        self.capture: Any = None  # a tentative input snapshot (see record.Capturer)


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
    paths: dict = field(default_factory=dict)  # owner path -> calls, for a module shared by several owners


class Detector:
    """Backend hook into each module call; `end` returns the number of compilations."""

    def begin(self, frame: Frame) -> None:
        pass

    def end(self, frame: Frame, out_sig: Any) -> int:
        return 0

    def reset(self) -> None:
        """Forget the graphs compiled so far (after the warm-up), where the backend can."""


class Tracker:
    """Runs hooks on the modules in `names` and turns their calls into CallRecords."""

    def __init__(self, names: dict[int, tuple[str, torch.nn.Module]], detector: Detector,
                 on_call: Callable[[str, torch.nn.Module, tuple, dict, Any], None] | None = None,
                 paths: dict[int, list[str]] | None = None, on_return: Callable[[Frame], None] | None = None):
        self.names = names
        self.paths = {k: v for k, v in (paths or {}).items() if len(v) > 1}  # shared modules only
        self.on_return = on_return
        self.first_step: dict[str, dict] = {}  # name -> input signature -> step it was first seen
        self.warmup_records: list[CallRecord] = []
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
        capture = None
        if self.on_call is not None:
            capture = self.on_call(name, module, args, kwargs, self)
        path = None
        shared = self.paths.get(id(module))
        if shared is not None:
            owner = self.stack[-1].path if self.stack else ""
            path = next((p for p in shared if p.rpartition(".")[0] == owner), shared[0])
        frame = Frame(name, module, signature((args, kwargs)), path)
        frame.capture = capture
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
        if self.on_return is not None:
            self.on_return(frame)
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
        self.first_step.setdefault(name, {}).setdefault(frame.in_sig, self.step)
        stats.calls += 1
        if id(module) in self.paths:
            stats.paths[frame.path] = stats.paths.get(frame.path, 0) + 1
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

    def end_warmup(self) -> None:
        """The warm-up steps are over: keep their rows apart and start from a clean slate, so that
        state a model sets on its first call (caches, lazy init) does not pass for dynamicity."""
        self.warmup_records = self.records
        self.records = []
        self.stats.clear()
        self._seen_in.clear()
        self._seen_out.clear()
        self.first_step.clear()
        self.detector.reset()
