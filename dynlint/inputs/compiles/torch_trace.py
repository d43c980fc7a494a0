"""torch.compile structured traces (TORCH_TRACE=dir, the input of tlparse).

Each line is a glog prefix and a JSON envelope (`V1123 14:34:08.691000 10040 file.py:2022] {...}`),
optionally followed by tab-indented payload lines.  One `compilation_metrics` envelope is written
per compiled frame with its compile id, code location, time and `recompile_reason`; a failed
attempt has `fail_type`/`fail_reason` (hitting the recompile limit is one: the function then runs
eagerly, uncompiled, which is worse than settled).  `dynlint.compiles.mark_step()` (and
`watch().step()`) write a `dynlint_step` artifact, which is how a trace learns about steps.
"""
from __future__ import annotations

import json
import re

from .events import CompileEvent, CompileLog, CompilesError, rank_of

STEP_ARTIFACT = "dynlint_step"
_PREFIX = re.compile(r"^[IWEVD](\d{4}) (\d\d:\d\d:\d\d\.\d+) +\d+ [^\]]*\] ")
_TORCH_DIRS = ("/torch/", "\\torch\\")


def looks_like(text: str) -> bool:
    head = text[:4000]
    return bool(_PREFIX.match(head)) and '] {"' in head


def _user_frame(stack: list, strings: dict) -> str | None:
    # The innermost frame outside torch is the call that triggered the compile.
    for frame in reversed(stack or []):
        name = strings.get(frame.get("filename"), str(frame.get("filename")))
        if not any(d in name for d in _TORCH_DIRS):
            return f"{name}:{frame.get('line')}"
    return None


def parse(path: str, text: str) -> CompileLog:
    log = CompileLog(path, "torch-trace", rank=rank_of(path))
    strings: dict = {}
    callers: dict[str, str] = {}
    step = 0
    saw_marker = False
    lines = text.splitlines()
    parsed = 0
    for lineno, line in enumerate(lines, 1):
        if not line or line[0] == "\t":
            continue  # payload lines belong to the envelope above
        m = _PREFIX.match(line)
        if not m:
            raise CompilesError(f"{path}:{lineno}: not a TORCH_TRACE line: {line[:60]!r}")
        try:
            envelope = json.loads(line[m.end():])
        except json.JSONDecodeError as exc:
            if lineno == len(lines):  # the writer was killed mid-line
                log.notes.append(f"{path}:{lineno}: last line truncated")
                break
            raise CompilesError(f"{path}:{lineno}: malformed TORCH_TRACE envelope: {exc.msg}") from None
        parsed += 1
        if "str" in envelope and isinstance(envelope["str"], list) and len(envelope["str"]) == 2:
            strings[envelope["str"][1]] = envelope["str"][0]
        elif "dynamo_start" in envelope:
            cid = f"{envelope.get('frame_id')}/{envelope.get('frame_compile_id')}"
            caller = _user_frame(envelope["dynamo_start"].get("stack"), strings)
            if caller:
                callers[cid] = caller
        elif "artifact" in envelope and envelope["artifact"].get("name") == STEP_ARTIFACT:
            step += 1
            saw_marker = True
        elif "compilation_metrics" in envelope:
            _compile(log, envelope["compilation_metrics"], step, callers)
    if not parsed:
        raise CompilesError(f"{path}: empty TORCH_TRACE log")
    if saw_marker:
        last = max((e.step for e in log.events), default=0)
        log.steps = max(step, last + 1)
    times = [e.time for e in log.events if e.time is not None]
    log.start, log.end = (min(times), max(times)) if times else (None, None)
    return log


def _compile(log: CompileLog, metrics: dict, step: int, callers: dict) -> None:
    cid = str(metrics.get("compile_id") or "?")
    fail = metrics.get("fail_type")
    where = None
    if metrics.get("co_name"):
        where = f"{metrics['co_name']} ({metrics.get('co_filename')}:{metrics.get('co_firstlineno')})"
    key = cid.split("_")[0]
    caller = callers.get(key)
    if where and caller and any(d in str(metrics.get("co_filename")) for d in _TORCH_DIRS):
        where = None  # torch's own wrapper (compiled nn.Module): the caller says more
    frame = f"{where}, called from {caller}" if where and caller else where or (caller and f"called from {caller}")
    if fail:
        reason = str(metrics.get("fail_reason") or fail)
        if "recompile limit" in reason or "cache_size_limit" in reason or "recompile_limit" in reason:
            log.limit_hit.append(frame or f"frame {cid.split('/')[0]}")
        else:
            log.notes.append(f"compile {cid} failed: {fail}: {reason.splitlines()[0]}")
        return
    start = metrics.get("start_time")
    log.events.append(CompileEvent(step=step, time=float(start) if isinstance(start, (int, float)) else None,
                                   seconds=metrics.get("entire_frame_compile_time_s"), frame=frame,
                                   compile_id=cid, reason=metrics.get("recompile_reason")))

