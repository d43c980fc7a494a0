"""TORCH_LOGS=recompiles (or any TORCH_LOGS output that carries compile ids) from torch.compile.

    [0/1] [__recompiles] Recompiling function inner in /path/model.py:67
    [0/1] [__recompiles]     triggered by the following guard failure(s):
    [0/1] [__recompiles]     - 0/0: tensor 'x' size mismatch at index 0. expected 3, actual 4

A compile id `[F/N]` is the N-th compile of frame F, so seeing 0/3 means 0/0..0/2 happened too
(TORCH_LOGS=recompiles never prints the first compile of a frame).  Steps come from lines that
match --step-regex (e.g. the training loop's own `step 12` prints captured in the same file).
"""
from __future__ import annotations

import re

from .events import CompileEvent, CompileLog, CompilesError, rank_of

_ID = re.compile(r"\[(\d+)/(\d+)(?:_\d+)?\]")
_RECOMPILING = re.compile(r"Recompiling function (\S+) in (\S+)")
_REASON = re.compile(r"^\s*-\s*(\d+/\d+: .*)$")
_LIMIT = re.compile(r"hit config\.(?:recompile_limit|cache_size_limit)")
_TAG = re.compile(r"^\s*\[__\w+\]")
_FUNCTION = re.compile(r"function: '([^']+)' \(([^)]+)\)")


def looks_like(text: str) -> bool:
    return bool(_ID.search(text)) and ("__recompiles" in text or "torch._dynamo" in text or "Recompiling" in text)


def parse(path: str, text: str, step_regex: str | None = None) -> CompileLog:
    log = CompileLog(path, "torch-logs", rank=rank_of(path))
    try:
        step_re = re.compile(step_regex) if step_regex else None
    except re.error as exc:
        raise CompilesError(f"--step-regex: {exc}") from None
    step, saw_step = 0, False
    seen: dict[tuple[int, int], CompileEvent] = {}
    pending_limit = None
    for line in text.splitlines():
        if step_re is not None and step_re.search(line):
            step += 1
            saw_step = True
            continue
        m = _ID.search(line)
        if not m:
            continue
        frame, n = int(m.group(1)), int(m.group(2))
        rest = _TAG.sub("", line[m.end():], count=1)
        if _LIMIT.search(rest):
            pending_limit = f"frame {frame}"
            log.limit_hit.append(pending_limit)
            continue
        if pending_limit is not None and (fm := _FUNCTION.search(rest)):
            log.limit_hit[-1] = f"{fm.group(1)} ({fm.group(2)})"
            pending_limit = None
            continue
        event = seen.get((frame, n))
        if event is None and "hit config" not in line:
            # Compiles of this frame not printed (0/0 under TORCH_LOGS=recompiles): they happened earlier.
            for k in range(n):
                if (frame, k) not in seen:
                    seen[(frame, k)] = CompileEvent(step=0 if k == 0 else step, compile_id=f"{frame}/{k}")
            event = seen[(frame, n)] = CompileEvent(step=step, compile_id=f"{frame}/{n}")
        if event is None:
            continue
        if (rm := _RECOMPILING.search(rest)):
            event.frame = f"{rm.group(1)} ({rm.group(2)})"
        elif (rm := _REASON.match(rest)) and event.reason is None:
            event.reason = rm.group(1)  # the first guard listed is the one against the last graph
    if not seen and not log.limit_hit:
        raise CompilesError(f"{path}: no torch.compile compile ids ([0/1] ...) found; "
                            "was it written with TORCH_LOGS=recompiles?")
    log.events = [seen[k] for k in sorted(seen, key=lambda fk: (seen[fk].step or 0, fk))]
    if saw_step:
        log.steps = max(step, max((e.step for e in log.events), default=0) + 1)
    return log
