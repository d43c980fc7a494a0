"""Open recompilation records, detect their format, hand them to the right parser."""
from __future__ import annotations

import os

from . import hpu, torch_logs, torch_trace, xla
from .events import CompileLog, CompilesError

FORMATS = ("auto", "hpu-json", "hpu-text", "torch-trace", "torch-logs", "xla-report")


def expand(paths: list[str]) -> list[str]:
    """Files as given; a directory (a TORCH_TRACE dir) contributes its *.log files, sorted."""
    out = []
    for path in paths:
        if os.path.isdir(path):
            logs = sorted(os.path.join(path, n) for n in os.listdir(path)
                          if n.endswith(".log") and os.path.isfile(os.path.join(path, n)))
            if not logs:
                raise CompilesError(f"{path}: directory holds no .log files (is it a TORCH_TRACE dir?)")
            out.extend(logs)
        else:
            out.append(path)
    return out


def detect(path: str, text: str) -> str:
    head = text.lstrip()[:1]
    if head == "[":
        return "hpu-json"
    if text.lstrip().startswith("Metric name:"):
        return "hpu-text"
    if torch_trace.looks_like(text):
        return "torch-trace"
    if xla.looks_like(text):
        return "xla-report"
    if torch_logs.looks_like(text):
        return "torch-logs"
    raise CompilesError(f"{path}: cannot tell the format (Gaudi metrics JSON/text, TORCH_TRACE, "
                        "TORCH_LOGS=recompiles output, torch_xla metrics report); pass --input-format")


def read(path: str, fmt: str = "auto", *, mark_steps_per_step: int = 1,
         step_regex: str | None = None) -> CompileLog:
    try:
        with open(path, encoding="utf-8", errors="strict") as handle:
            text = handle.read()
    except UnicodeDecodeError as exc:
        raise CompilesError(f"{path}: not a text file ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise CompilesError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not text.strip():
        raise CompilesError(f"{path}: empty file")
    if fmt == "auto":
        fmt = detect(path, text)
    if fmt in ("hpu-json", "hpu-text"):
        return hpu.parse(path, text, fmt, mark_steps_per_step)
    if fmt == "torch-trace":
        return torch_trace.parse(path, text)
    if fmt == "torch-logs":
        return torch_logs.parse(path, text, step_regex)
    if fmt == "xla-report":
        return xla.parse(path, text)
    raise CompilesError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
