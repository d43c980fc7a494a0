"""Gaudi PT_HPU_METRICS_FILE dumps, JSON and text (habana_frameworks.torch.hpu.metrics).

JSON: an array written incrementally (`[`, objects joined by `,\n`, `]` at exit), each object
{metric_name, triggered_by, generated_on, statistics}.  A crashed run leaves no `]` and maybe half
an object: we read every complete object and say so.  Text: blocks of `Metric name:`,
`Triggered by:`, `Generated on:`, `Statistics:` and tab-indented `name: value` lines.
graph_compilation statistics are cumulative (TotalNumber, TotalTime in microseconds), so compiles
per step are differences between consecutive `mark_step` dumps.
"""
from __future__ import annotations

import ast
import json
from datetime import datetime

from .events import CompileEvent, CompileLog, CompilesError, rank_of

METRIC = "graph_compilation"


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def read_json_records(path: str, text: str, notes: list[str]) -> list[dict]:
    stripped = text.strip()
    if not stripped.startswith("["):
        raise CompilesError(f"{path}:1: not a metrics JSON array (expected '[')")
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError:
        data = None
    if data is not None:
        if not isinstance(data, list):
            raise CompilesError(f"{path}:1: not a metrics JSON array")
        return data
    decoder = json.JSONDecoder()
    records, pos = [], text.index("[") + 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text):
            notes.append(f"{path}: no closing ']' (the run did not exit cleanly); read {len(records)} records")
            return records
        if text[pos] == "]":
            rest = text[pos + 1:].strip()
            if rest:
                raise CompilesError(f"{path}:{_line_of(text, pos + 1)}: unexpected text after the closing ']'")
            return records
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            tail = text[pos:]
            if "\n" not in tail.strip():  # the last record, cut off mid-write by a crash
                notes.append(f"{path}:{_line_of(text, pos)}: last record truncated (crashed run?); "
                             f"read {len(records)} complete records")
                return records
            raise CompilesError(f"{path}:{exc.lineno}: malformed metrics JSON: {exc.msg}") from None
        records.append(obj)
        pos = end


def read_text_records(path: str, text: str) -> list[dict]:
    records: list[dict] = []
    current: dict | None = None
    in_stats = False
    heads = {"Metric name": "metric_name", "Triggered by": "triggered_by", "Generated on": "generated_on"}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line.strip():
            in_stats = False
            continue
        key, sep, value = line.strip().partition(":")
        if raw[:1] in ("\t", " ") and in_stats and sep and current is not None:
            current["statistics"][key.strip()] = _value(value.strip())
        elif key in heads and sep:
            if key == "Metric name":
                current = {"metric_name": value.strip(), "statistics": {}}
                records.append(current)
            elif current is None:
                raise CompilesError(f"{path}:{lineno}: '{key}:' before any 'Metric name:'")
            else:
                current[heads[key]] = value.strip()
            in_stats = False
        elif line.strip() == "Statistics:" and current is not None:
            in_stats = True
        else:
            raise CompilesError(f"{path}:{lineno}: not a metrics text line: {line.strip()[:60]!r}")
    return records


def _value(text: str):
    try:  # numbers, and the repr of dicts/lists the text writer prints (FallbackOps, recipe)
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _time(record: dict) -> float | None:
    value = record.get("generated_on")
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value).timestamp()
    except ValueError:
        return None


def parse(path: str, text: str, fmt: str, mark_steps_per_step: int = 1) -> CompileLog:
    log = CompileLog(path, fmt, rank=rank_of(path))
    records = read_json_records(path, text, log.notes) if fmt == "hpu-json" else read_text_records(path, text)
    if not records:
        raise CompilesError(f"{path}: no metric records (was the device ever acquired?)")
    for i, r in enumerate(records):
        if not isinstance(r, dict) or "metric_name" not in r or not isinstance(r.get("statistics", {}), dict):
            raise CompilesError(f"{path}: record {i + 1} is not a metric object with metric_name and statistics")
    times = [t for t in map(_time, records) if t is not None]
    log.start, log.end = (min(times), max(times)) if times else (None, None)
    gc = [r for r in records if r["metric_name"] == METRIC]
    if not gc:
        log.notes.append(f"{path}: no {METRIC} records")
        return log
    if not any(r.get("triggered_by") == "process_exit" for r in records):
        log.notes.append(f"{path}: no process_exit dump: the run ended early or is still running")
    marked = any(r.get("triggered_by") == "mark_step" for r in gc)
    number = time_total = 0
    marks = 0
    for r in gc:
        stats = r["statistics"]
        try:
            new_number, new_time = int(stats.get("TotalNumber", 0)), float(stats.get("TotalTime", 0))
        except (TypeError, ValueError):
            raise CompilesError(f"{path}: {METRIC} TotalNumber/TotalTime are not numbers: {stats}") from None
        if new_number < number:  # a counter reset (metric reset() or a new process appended)
            number = time_total = 0
        if new_number > number:
            step = marks // mark_steps_per_step if marked else None
            log.events.append(CompileEvent(step=step, time=_time(r), count=new_number - number,
                                           seconds=(new_time - time_total) / 1e6))
        number, time_total = new_number, new_time
        if r.get("triggered_by") == "mark_step":
            marks += 1
    if marked:
        log.steps = max(1, -(-marks // mark_steps_per_step))
        if log.events and log.events[-1].step is not None and log.events[-1].step >= log.steps:
            log.steps = log.events[-1].step + 1  # compiles after the last mark_step (eval, save...)
    else:
        log.notes.append(f"{path}: no mark_step dumps, so no steps: set "
                         "PT_HPU_METRICS_DUMP_TRIGGERS=process_exit,metric_change,mark_step; judging by time")
    return log
