"""The op observer: a TorchDispatchMode that sees every aten op a model runs.

For each op it appends a token (op, input shapes, output shapes) to the module
call on top of the tracker's stack -- the raw material of a graph signature --
and it notices data-dependent ops, which it attributes to the innermost line
of user code on the Python stack.

Data-dependent ops are recognised by torch's own tags (`dynamic_output_shape`,
`data_dependent_output`), plus ops that carry no tag but were *observed* to
return different shapes for identical input shapes (torchvision's nms, say).
"""
from __future__ import annotations

import os
import sys
import sysconfig
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from .findings import display_path
from .values import op_signature

SHAPE, SYNC, OBSERVED = "dynamic-shape", "host-sync", "observed-dynamic"
_MASK_DTYPES = (torch.bool, torch.uint8)
_MAX_INPUT_VARIANTS = 16
_MAX_OUTPUT_VARIANTS = 16
_MAX_SEEN_OPS = 200_000


def _internal_roots() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(torch and dynlint dirs, stdlib dirs, site-packages dirs)."""
    own = {os.path.dirname(os.path.realpath(torch.__file__)),
           os.path.dirname(os.path.dirname(os.path.realpath(__file__)))}
    paths = sysconfig.get_paths()
    stdlib = {os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib") if k in paths}
    packages = {os.path.realpath(paths[k]) for k in ("purelib", "platlib") if k in paths}
    return tuple(tuple(p + os.sep for p in group) for group in (own, stdlib, packages))


class SourceLocator:
    """Finds the innermost frame that belongs to user code (not torch, not dynlint, not stdlib)."""

    def __init__(self) -> None:
        self._own, self._stdlib, self._packages = _internal_roots()
        self._cache: dict[str, str | None] = {}

    def user_path(self, filename: str) -> str | None:
        """Absolute path of a user file, None for internal code; cached per filename."""
        try:
            return self._cache[filename]
        except KeyError:
            pass
        path: str | None
        if filename.startswith("<") and not filename.startswith("<ipython"):
            path = None  # <frozen ...>, <string>: nothing a user can edit
        else:
            real = os.path.realpath(filename)
            # site-packages may live inside the stdlib dir (non-venv installs): that is user code.
            internal = real.startswith(self._own) or (
                real.startswith(self._stdlib) and not real.startswith(self._packages))
            path = None if internal else real
        self._cache[filename] = path
        return path

    def locate(self, depth: int = 1) -> tuple[str, int] | None:
        frame = sys._getframe(depth + 1)
        while frame is not None:
            path = self.user_path(frame.f_code.co_filename)
            if path is not None:
                return path, frame.f_lineno
            frame = frame.f_back
        return None


@dataclass
class OpSite:
    """All runs of one data-dependent op at one source line."""

    path: str
    line: int
    op: str
    kind: str
    calls: int = 0
    modules: set = field(default_factory=set)
    phases: set = field(default_factory=set)
    # (module, input signature) -> distinct results seen for it (shapes, or values for host syncs)
    outcomes: dict = field(default_factory=dict)

    @property
    def varied(self) -> bool:
        """Same input shapes, different result: the data decided the shape (or the synced value)."""
        return any(len(v) > 1 for v in self.outcomes.values())

    def varied_in(self, module: str | None) -> bool:
        """Varied in calls made by `module`'s own code: a helper shared by several modules is
        data-dependent only in those where its result changed."""
        return any(len(v) > 1 for (m, _), v in self.outcomes.items() if m == module)

    def add(self, in_sig: Any, result: Any, module: str | None = None) -> None:
        self.calls += 1
        in_sig = (module, in_sig)
        results = self.outcomes.get(in_sig)
        if results is None:
            if len(self.outcomes) >= _MAX_INPUT_VARIANTS:
                return
            results = self.outcomes[in_sig] = set()
        if len(results) < _MAX_OUTPUT_VARIANTS:
            try:
                results.add(result)
            except TypeError:
                results.add(repr(result))


def _out_signature(out: Any) -> tuple:
    if isinstance(out, (tuple, list)):
        return op_signature(tuple(out), {})
    return op_signature((out,), {})


def _classify(func) -> str | None:
    tags = getattr(func, "tags", ())
    if torch.Tag.data_dependent_output in tags:
        return SYNC
    if torch.Tag.dynamic_output_shape in tags:
        # aten.index is tagged because of boolean masks; integer indexing is static.
        return "index" if func.overloadpacket is torch.ops.aten.index else SHAPE
    return None


def _mask_index(args: tuple) -> bool:
    indices = args[1] if len(args) > 1 else ()
    return any(isinstance(i, torch.Tensor) and i.dtype in _MASK_DTYPES for i in indices or ())


class Observer(TorchDispatchMode):
    """Sees every op; `stack` is the tracker's list of open module calls (or any list)."""

    def __init__(self, stack: list, cover_paths: set[str] | None = None, locator: SourceLocator | None = None):
        super().__init__()
        self.stack = stack
        self.paused = 0
        self.phase = ""
        self.locator = locator or SourceLocator()
        self.cover_paths = cover_paths or set()
        self.covered: dict[tuple[str, int], set] = {}
        self.sites: dict[tuple[str, int, str], OpSite] = {}
        self.unattributed = 0
        self.errors = 0
        self._kinds: dict[Any, str | None] = {}
        self._seen: dict[tuple, tuple] = {}
        self.pending: list | None = None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if self.paused:
            return out
        try:
            self._see(func, args, kwargs, out)
        except Exception:  # the observer must never break the user's model
            self.errors += 1
        return out

    def _see(self, func, args, kwargs, out) -> None:
        kind = self._kinds.get(func, 0)
        if kind == 0:
            kind = self._kinds[func] = _classify(func)
        if kind == "index":
            kind = SHAPE if _mask_index(args) else None
        in_sig = op_signature(args, kwargs)
        if kind == SYNC:
            # The token keeps only the type: a synced value changes the graph
            # only through the later ops that consume it, which carry it as a scalar.
            out_tok: Any = type(out).__name__
            result: Any = out
        else:
            out_tok = result = _out_signature(out)
        stack = self.stack
        top = stack[-1] if stack else None
        if top is not None:
            top.tokens.append((func, in_sig, out_tok))
        where = None
        if self.cover_paths:
            where = self.locator.locate(2)
            if where is not None and where[0] in self.cover_paths:
                mods = self.covered.setdefault(where, set())
                if top is not None and len(mods) < 8:
                    mods.add(top.name)
        previous = None
        if kind is None:
            key = (func, in_sig)
            previous = self._seen.get(key)
            if previous is None:
                if len(self._seen) < _MAX_SEEN_OPS:
                    self._seen[key] = out_tok
                return
            if previous == out_tok:
                return
            kind = OBSERVED
        if where is None:
            where = self.locator.locate(2)
        if where is None:
            self.unattributed += 1
            return
        site_key = (where[0], where[1], str(func))
        if kind == SYNC and top is not None:
            # A synced value is data-dependent only if the same call, made again,
            # returns something else: compare the n-th sync at this line within
            # the module call, not syncs of different constants (one per level, say).
            in_sig = (in_sig, top.sites.count(site_key))
        module = top.name if top is not None else None
        if top is not None:
            top.sites.append(site_key)
        if self.pending is not None:
            self.pending.append((site_key, kind, in_sig, result, previous, module, self.phase))
        else:
            self._add(site_key, kind, in_sig, result, previous, module, self.phase)

    def _add(self, site_key, kind, in_sig, result, previous, module, phase) -> None:
        site = self.sites.get(site_key)
        if site is None:
            site = self.sites[site_key] = OpSite(site_key[0], site_key[1], site_key[2], kind)
            if previous is not None:
                site.add(in_sig, previous, module)
                site.calls -= 1
        site.add(in_sig, result, module)
        site.phases.add(phase)
        if module is not None:
            site.modules.add(module)

    def hold(self) -> None:
        """From now on keep what ops show in `pending`: a replay's evidence counts only if it ends well."""
        self.pending = []

    def commit(self) -> None:
        held, self.pending = self.pending or [], None
        for item in held:
            self._add(*item)

    def discard(self) -> None:
        self.pending = None


def user_frame(exc: BaseException, locator=None) -> str:
    """'file.py:LINE in function' of the innermost traceback frame in user code (not torch,
    not dynlint, not the stdlib); the innermost frame of all when none is."""
    locator = locator or SourceLocator()
    last = None
    best = None
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        last = (code.co_filename, tb.tb_lineno, code.co_name)
        if locator.user_path(code.co_filename) is not None:
            best = last
        tb = tb.tb_next
    where = best or last
    if where is None:
        return ""
    return f"{display_path(where[0])}:{where[1]} in {where[2]}"
