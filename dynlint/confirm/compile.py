"""torch.compile as the detector: real Dynamo recompilations and graph breaks.

Shapes are forced static (dynamic=False, automatic dynamic shapes off), as a
lazy-mode device sees them.  The compiler backend is a counter that returns
the captured graph unchanged: we want the number of graphs, not fast code.
Dynamo cannot report per-submodule compiles inside one compiled model, so
this backend has no record-time table; its table comes from replaying each
flagged module (compiled on its own) in step order.
"""
from __future__ import annotations

import logging
import os
import re
from contextlib import contextmanager

import torch

from .backends import Backend
from .replay import ModuleReplay, pass_inputs
from .tracker import CallRecord, Detector, class_name
from .values import signature

_LOGGERS = {
    "torch._dynamo.guards.__recompiles": "recompile",
    "torch._dynamo.symbolic_convert.__graph_breaks": "graph break",
}


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        kind = _LOGGERS.get(record.name, record.name)
        try:
            text = record.getMessage()
        except Exception:
            return
        self.messages.append(f"{kind}: {_first_lines(text)}")


_SITE = re.compile(r"[^\s'\"]*[/\\\\]site-packages[/\\\\]")


def _first_lines(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    keep = [ln for ln in lines if not ln.startswith(("For more details", "Hint:", "Developer debug"))]
    # Paths as the rest of the report shows them: installed packages from their import root.
    text = " | ".join(keep[:4]).replace(os.getcwd() + os.sep, "")
    return _SITE.sub("", text)


@contextmanager
def _dynamo_reports():
    """Route Dynamo's recompile and graph-break logs to us, and only to us."""
    from torch._logging import _internal

    # Private helpers; older torch lacks them, and then the user's log settings are reset.
    get_state = getattr(_internal, "_get_log_state", None)
    saved_state = get_state() if get_state else None
    handler = _Collect()
    saved = []
    try:
        torch._logging.set_logs(recompiles=True, graph_breaks=True)
        for name in _LOGGERS:
            logger = logging.getLogger(name)
            saved.append((logger, logger.propagate))
            logger.addHandler(handler)
            logger.propagate = False
        yield handler
    finally:
        for logger, propagate in saved:
            logger.removeHandler(handler)
            logger.propagate = propagate
        if saved_state is not None and hasattr(_internal, "_set_log_state"):
            _internal._set_log_state(saved_state)
            _internal._init_logs()  # re-applies the user's logger levels from the restored state
        else:
            torch._logging.set_logs()


class CompileBackend(Backend):
    name = "compile"
    detects_in_record = False

    def detector(self) -> Detector:
        return Detector()  # the record run is plain eager under this backend

    def replay(self, module, name, captures, observer, generator, seed: int = 0) -> ModuleReplay:
        import torch._dynamo as dynamo

        result = ModuleReplay(name, class_name(type(module)), len(captures))
        graphs = [0]

        def counting_backend(gm, example_inputs):
            graphs[0] += 1
            return gm.forward

        seen_in: set = set()
        seen_out: set = set()
        dynamo.reset()
        patches = dict(automatic_dynamic_shapes=False, assume_static_by_default=True)
        for key in ("recompile_limit", "cache_size_limit"):
            if hasattr(dynamo.config, key):
                patches[key] = 1024
                break
        try:
            with dynamo.config.patch(**patches), _dynamo_reports() as logs:
                compiled = torch.compile(module, backend=counting_backend, dynamic=False)
                for label, cap, args, kwargs in pass_inputs(captures, generator):
                    before, n_logs = graphs[0], len(logs.messages)
                    out = None
                    try:
                        torch.manual_seed(seed)
                        with torch.no_grad():
                            out = compiled(*args, **kwargs)
                    except Exception as exc:
                        result.errors.append(f"{label} replay of step {cap.step} raised {type(exc).__name__}: {exc}")
                    compiles = graphs[0] - before
                    in_sig = signature((args, kwargs))
                    new_in = in_sig not in seen_in
                    out_sig = signature(out)
                    new_out = out_sig not in seen_out
                    seen_in.add(in_sig)
                    seen_out.add(out_sig)
                    result.compiles.setdefault(label, []).append(compiles)
                    if compiles and not new_in:
                        result.seen_shape_compiles[label] = result.seen_shape_compiles.get(label, 0) + compiles
                    fresh = logs.messages[n_logs:]
                    for msg in fresh:
                        if msg not in result.reasons and len(result.reasons) < 50:
                            result.reasons.append(msg)
                    if label == "as-captured" and compiles:
                        result.rows.append(CallRecord(cap.step, name, result.cls, new_in, new_out, compiles,
                                                      False, (), "; ".join(fresh[:3])))
        finally:
            dynamo.reset()
        return result
