"""`dynlint compiles`: read recompilation records and say whether compilations settle."""
from __future__ import annotations

from .events import CompileEvent, CompileLog, CompilesError
from .read import FORMATS, read
from .report import CompileReport, load_shapes_json, render_text
from .watch import Watch, mark_step, watch


def analyse(paths, input_format: str = "auto", *, warmup: int | None = None, shapes: dict | None = None,
            mark_steps_per_step: int = 1, step_regex: str | None = None) -> CompileReport:
    """Read every file (directories: their *.log files) and judge them together."""
    from .read import expand

    logs = [read(p, input_format, mark_steps_per_step=mark_steps_per_step, step_regex=step_regex)
            for p in expand(list(paths))]
    return CompileReport(logs, warmup=warmup, shapes=shapes)


__all__ = [
    "FORMATS",
    "CompileEvent",
    "CompileLog",
    "CompileReport",
    "CompilesError",
    "Watch",
    "analyse",
    "load_shapes_json",
    "mark_step",
    "read",
    "render_text",
    "watch",
]
