"""In-process recompilation watch: `with watch() as w: ... w.step()` then `w.report()`.

Counts compiles per training step from the live counters of whichever compiler runs: Gaudi's
`graph_compilation` metric (a `metric_localcontext`, so only this block counts), torch.compile's
compilation metrics (with recompile reasons), or torch_xla's UncachedCompile counter.  Each
`step()` also writes a step marker into a TORCH_TRACE log when one is being written, so the trace
read later by `dynlint compiles` has steps too.
"""
from __future__ import annotations

import contextlib
import importlib.util
import json

from .events import CompileEvent, CompileLog, CompilesError
from .report import CompileReport
from .torch_trace import STEP_ARTIFACT

BACKENDS = ("auto", "hpu", "dynamo", "xla")


def mark_step(step: int | None = None) -> None:
    """Write a step marker into the TORCH_TRACE log (a no-op when TORCH_TRACE is not set)."""
    try:
        from torch._logging import trace_structured
    except ImportError:
        return
    trace_structured("artifact", metadata_fn=lambda: {"name": STEP_ARTIFACT, "encoding": "json"},
                     payload_fn=lambda: json.dumps({"step": step}))


class _Dynamo:
    name = "dynamo"

    def __init__(self):
        from torch._dynamo import utils

        self._utils = utils
        self._last = None  # the newest CompilationMetrics seen; the deque is bounded, so track by identity
        self._skip_existing()

    def _skip_existing(self):
        seen = self._utils.get_compilation_metrics()
        self._last = seen[-1] if seen else None

    def poll(self) -> tuple[list[CompileEvent], list[str]]:
        records = self._utils.get_compilation_metrics()
        start = 0
        if self._last is not None:
            for i in range(len(records) - 1, -1, -1):
                if records[i] is self._last:
                    start = i + 1
                    break
        new = records[start:]
        if new:
            self._last = new[-1]
        events, limits = [], []
        for m in new:
            where = f"{m.co_name} ({m.co_filename}:{m.co_firstlineno})" if m.co_name else None
            if m.fail_type:
                if "recompile limit" in str(m.fail_reason) or "recompile_limit" in str(m.fail_reason):
                    limits.append(where or str(m.compile_id))
                continue
            events.append(CompileEvent(seconds=m.entire_frame_compile_time_s, frame=where,
                                       compile_id=str(m.compile_id), reason=m.recompile_reason))
        return events, limits


class _Counter:
    """A cumulative compile counter: HPU graph_compilation or XLA UncachedCompile."""

    def __init__(self, name, read):
        self.name, self._read = name, read
        self._seen = read()

    def poll(self):
        now = self._read()
        delta, self._seen = now - self._seen, now
        return ([CompileEvent(count=delta)] if delta > 0 else []), []


def _hpu_available() -> bool:
    if importlib.util.find_spec("habana_frameworks") is None:
        return False
    try:
        import habana_frameworks.torch.hpu as hthpu
        return bool(hthpu.is_available())
    except Exception:  # noqa: BLE001 - a broken install is as good as none here
        return False


class Watch(contextlib.AbstractContextManager):
    def __init__(self, backend: str = "auto", warmup: int | None = None):
        if backend not in BACKENDS:
            raise CompilesError(f"watch(backend=...) must be one of {', '.join(BACKENDS)}")
        self.backend, self.warmup = backend, warmup
        self._source = None
        self._exit = contextlib.ExitStack()
        self.log = CompileLog("<watch>", "watch", steps=0)

    def __enter__(self):
        backend = self.backend
        if backend == "auto":
            if _hpu_available():
                backend = "hpu"
            elif importlib.util.find_spec("torch_xla") is not None:
                backend = "xla"
            else:
                backend = "dynamo"
        if backend == "hpu":
            from habana_frameworks.torch.hpu.metrics import metric_localcontext
            metric = self._exit.enter_context(metric_localcontext("graph_compilation"))
            self._source = _Counter("hpu", lambda: int(dict(metric.stats())["TotalNumber"]))
        elif backend == "xla":
            import torch_xla.debug.metrics as met
            self._source = _Counter("xla", lambda: int(met.counter_value("UncachedCompile") or 0))
        else:
            self._source = _Dynamo()
        self.log.format = f"watch:{self._source.name}"
        return self

    def step(self) -> int:
        """End of a training step: returns the compiles that happened during it."""
        events, limits = self._source.poll()
        for e in events:
            e.step = self.log.steps
        self.log.events.extend(events)
        self.log.limit_hit.extend(limits)
        mark_step(self.log.steps)
        self.log.steps += 1
        return sum(e.count for e in events)

    def __exit__(self, *exc):
        events, limits = self._source.poll() if self._source else ([], [])
        if events:  # compiles after the last step() call: an unfinished step
            for e in events:
                e.step = self.log.steps
            self.log.events.extend(events)
            self.log.steps += 1
        self.log.limit_hit.extend(limits)
        self._exit.close()
        return False

    def report(self) -> CompileReport:
        return CompileReport([self.log], warmup=self.warmup)


def watch(backend: str = "auto", warmup: int | None = None) -> Watch:
    """Count compiles per step in this process; see the module docstring."""
    return Watch(backend, warmup)
