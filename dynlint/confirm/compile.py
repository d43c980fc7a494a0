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
import warnings
from contextlib import contextmanager

import torch

from .backend_base import Backend
from .replay import ModuleReplay, error_text, pass_inputs
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


class _Warnings(logging.Handler):
    """torch.compile's own warnings (Dynamo, Inductor, FX), kept for a summary instead of stderr."""

    LOGGERS = ("torch._dynamo", "torch._inductor", "torch.fx", "torch._functorch")

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.messages.append(_first_lines(record.getMessage()))
        except Exception:
            pass


@contextmanager
def _quiet_compiler():
    handler = _Warnings()
    saved = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for name in handler.LOGGERS:
                logger = logging.getLogger(name)
                # torch installs its own stderr handlers on these loggers: set them aside too.
                saved.append((logger, logger.propagate, list(logger.handlers)))
                logger.handlers = [handler]
                logger.propagate = False
            yield handler
        finally:
            for logger, propagate, handlers in saved:
                logger.handlers = handlers
                logger.propagate = propagate
            handler.messages.extend(f"{w.category.__name__}: {_first_lines(str(w.message))}" for w in caught)


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
            with dynamo.config.patch(**patches), _dynamo_reports() as logs, _quiet_compiler() as noise:
                compiled = torch.compile(module, backend=counting_backend, dynamic=False)
                for label, cap, args, kwargs in pass_inputs(captures, generator):
                    before, n_logs = graphs[0], len(logs.messages)
                    try:
                        torch.manual_seed(seed)
                        with torch.no_grad():
                            out = compiled(*args, **kwargs)
                    except Exception as exc:
                        result.errors.append(error_text(label, cap, exc))
                        result.compiles.setdefault(label, []).append(0)
                        if _compiler_failure(exc):
                            # Dynamo cannot trace this module: every other replay would fail alike.
                            result.errors.append(f"torch.compile cannot compile {name or '(root)'}; its other "
                                                 "compiled replays were skipped")
                            break
                        continue  # no verdict rests on a replay that raised
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
                        # New or seen as the record run saw it: a capture kept from a later step
                        # is not a new shape when step 0 already had it.
                        row_new_in = cap.new_in and new_in
                        result.rows.append(CallRecord(cap.step, name, result.cls, row_new_in, new_out,
                                                      compiles, False, (), "; ".join(fresh[:3])))
            result.warnings.extend(noise.messages)
        finally:
            dynamo.reset()
        return result



def _compiler_failure(exc: BaseException) -> bool:
    """The compiler failed (Dynamo/Inductor), as opposed to the module raising on its input."""
    return type(exc).__module__.startswith(("torch._dynamo", "torch._inductor", "torch._subclasses"))
