"""Per-step compile counts and the verdict: settled, settled after warm-up, not settled."""
from __future__ import annotations

import io
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .events import CompileLog, CompilesError, reason_kind

SETTLED, WARMED, NOT_SETTLED, UNKNOWN = "settled", "settled after warm-up", "not settled", "unknown"


def judge_steps(counts: list[int], warmup: int | None = None) -> tuple[str, str]:
    """Verdict from compiles per step.

    With a warm-up W, any compile at step >= W means not settled.  Without one, a run has settled
    when the steps after its last compile are at least as many as the steps up to it (and at
    least two): compiles stopped, and stayed stopped for as long again."""
    total = sum(counts)
    if total == 0:
        return SETTLED, "no compiles"
    compiling = [i for i, c in enumerate(counts) if c]
    first, last = compiling[0], compiling[-1]
    if warmup is not None:
        late = sum(counts[warmup:])
        if late:
            return NOT_SETTLED, f"{late} compiles after the warm-up of {warmup} steps (last at step {last})"
        return (SETTLED, "every compile in the first compiling step") if first == last else \
            (WARMED, f"compiles stopped at step {last}, within the warm-up of {warmup} steps")
    quiet = len(counts) - 1 - last
    if first == last and quiet >= 1:
        return SETTLED, f"every compile in step {first}"
    if quiet >= max(2, last + 1):
        return WARMED, f"last compile at step {last}, then {quiet} steps without one"
    if len(counts) < 3:
        return UNKNOWN, f"only {len(counts)} steps recorded"
    return NOT_SETTLED, (f"compiles in {len(compiling)} of {len(counts)} steps, the last at step {last}; "
                         f"{quiet} quiet steps after it")


def judge_times(log_events, start, end) -> tuple[str, str]:
    times = [e.time for e in log_events if e.time is not None]
    if not times or start is None or end is None or end <= start:
        return UNKNOWN, "no steps and no usable timestamps"
    share = (max(times) - start) / (end - start)
    if share <= 0.5:
        return WARMED, f"last compile {share:.0%} into the recorded run time (no steps: judged by time)"
    return NOT_SETTLED, f"last compile {share:.0%} into the recorded run time (no steps: judged by time)"


def judge_stepless(log: CompileLog) -> tuple[str, str]:
    if log.mark_steps and log.mark_steps > 2 and log.compiles >= max(3, log.mark_steps / 2):
        # totals only: compiles in at least every other step cannot have settled
        return NOT_SETTLED, f"{log.compiles} compiles during {log.mark_steps} steps"
    ids = [e.compile_id for e in log.events if e.compile_id]
    if ids and all(i.split("/")[1].split("_")[0] == "0" for i in ids):
        return SETTLED, "each compiled function compiled once (no recompiles)"
    if ids:
        return UNKNOWN, ("recompiles, but no step markers: call dynlint.compiles.mark_step() after each "
                         "training step (or use dynlint.compiles.watch())")
    if log.format.startswith("hpu"):
        return judge_times(log.events, log.start, log.end)
    return UNKNOWN, "no step markers"


@dataclass
class CompileReport:
    logs: list[CompileLog]
    warmup: int | None = None
    shapes: dict | None = None  # a `dynlint shapes --format json` result
    extra_notes: list[str] = field(default_factory=list)

    def per_step(self) -> list[int]:
        steps = max((log.steps or 0 for log in self.logs), default=0)
        counts = [0] * steps
        for log in self.logs:
            if log.steps is None:
                continue
            for e in log.events:
                if e.step is not None and e.step < steps:
                    counts[e.step] += e.count
        return counts

    def _warmup(self) -> int | None:
        if self.warmup is not None:
            return self.warmup
        if self.shapes:  # every input shape has been seen by then: later compiles are not the data's
            step_all = (self.shapes.get("saturation") or {}).get("step_all")
            if step_all is not None:
                return step_all + 1
        return None

    def verdict(self) -> tuple[str, str]:
        limits = [f for log in self.logs for f in log.limit_hit]
        if limits:
            return NOT_SETTLED, (f"hit the recompile limit in {', '.join(sorted(set(limits)))}: "
                                 "it now runs uncompiled")
        stepped = [log for log in self.logs if log.steps is not None]
        if stepped:
            return judge_steps(self.per_step(), self._warmup())
        verdicts = [judge_stepless(log) for log in self.logs]
        for wanted in (NOT_SETTLED, UNKNOWN, WARMED, SETTLED):
            for v in verdicts:
                if v[0] == wanted:
                    return v
        return UNKNOWN, "no records"

    def joined(self, counts: list[int]) -> tuple[list[dict], list[int]]:
        new_shapes = Counter()
        if self.shapes:
            for row in self.shapes.get("shapes", []):
                new_shapes[row.get("first_step")] += 1
        rows, unexplained = [], []
        for i, c in enumerate(counts):
            row = {"step": i, "compiles": c}
            if self.shapes:
                row["new_input_shapes"] = new_shapes.get(i, 0)
                if c and not row["new_input_shapes"] and i > 0:
                    unexplained.append(i)
            rows.append(row)
        return rows, unexplained

    def to_dict(self) -> dict:
        counts = self.per_step()
        verdict, why = self.verdict()
        steps, unexplained = self.joined(counts)
        seconds = [e.seconds for log in self.logs for e in log.events if e.seconds is not None]
        reasons: dict[str, list] = defaultdict(list)
        functions: Counter = Counter()
        for log in self.logs:
            for e in log.events:
                if e.reason:
                    reasons[reason_kind(e.reason)].append(e.reason)
                if e.frame:
                    functions[e.frame] += e.count
        out = {
            "compiles": sum(log.compiles for log in self.logs),
            "steps": steps,
            "settled": {SETTLED: True, WARMED: True, NOT_SETTLED: False}.get(verdict),
            "verdict": verdict,
            "why": why,
            "warmup": self._warmup(),
            "last_compile_step": max((i for i, c in enumerate(counts) if c), default=None),
            "compile_seconds": round(sum(seconds), 6) if seconds else None,
            "reasons": [{"reason": k, "count": len(v), "example": v[0]}
                        for k, v in sorted(reasons.items(), key=lambda kv: (-len(kv[1]), kv[0]))],
            "functions": [{"function": f, "compiles": n} for f, n in functions.most_common()],
            "recompile_limit_hit": sorted({f for log in self.logs for f in log.limit_hit}),
            "files": [self._file(log) for log in self.logs],
            "notes": [n for log in self.logs for n in log.notes] + self.extra_notes,
        }
        if self.shapes:
            out["compiles_without_new_input_shape"] = unexplained
            if unexplained:
                out["notes"].append(
                    f"steps {', '.join(map(str, unexplained[:10]))} compiled with no new input shape: the "
                    "model's own shapes change (data-dependent ops); run `dynlint confirm` to find them")
        return out

    def _file(self, log: CompileLog) -> dict:
        own = CompileReport([log], self.warmup, self.shapes).verdict() if len(self.logs) > 1 else None
        return {"path": log.source, "format": log.format, "rank": log.rank, "compiles": log.compiles,
                "steps": log.steps, **({"verdict": own[0]} if own else {})}


def render_text(d: dict, top: int = 30) -> str:
    out = io.StringIO()
    cumulative = 0
    compiling = [r for r in d["steps"] if r["compiles"]]
    if d["steps"]:
        shown = d["steps"] if len(d["steps"]) <= top else compiling[:top]
        out.write("step  compiles  cumulative" + ("  new input shapes" if "new_input_shapes" in d["steps"][0] else "") + "\n")
        for row in d["steps"]:
            cumulative += row["compiles"]
            if row in shown:
                extra = f"  {row['new_input_shapes']:>16}" if "new_input_shapes" in row else ""
                out.write(f"{row['step']:>4}  {row['compiles']:>8}  {cumulative:>10}{extra}\n")
        if len(shown) < len(d["steps"]):
            out.write(f"({len(d['steps'])} steps; only steps with compiles shown, first {top})\n")
    total_time = f", {d['compile_seconds']:.2f} s compiling" if d["compile_seconds"] else ""
    out.write(f"\n{d['compiles']} compiles in {len(d['steps']) or 'unknown'} steps{total_time}: "
              f"{d['verdict']} ({d['why']})\n")
    if d["reasons"]:
        out.write("\nrecompile reasons:\n")
        for r in d["reasons"][:10]:
            out.write(f"  {r['count']:>4} x {r['reason']}\n")
    if d["functions"]:
        out.write("\ncompiled functions:\n")
        for f in d["functions"][:10]:
            out.write(f"  {f['compiles']:>4} x {f['function']}\n")
    if len(d["files"]) > 1:
        out.write("\nfiles:\n")
        for f in d["files"]:
            rank = f" rank {f['rank']}" if f["rank"] is not None else ""
            out.write(f"  {f['path']} ({f['format']}{rank}): {f['compiles']} compiles"
                      + (f", {f['verdict']}" if "verdict" in f else "") + "\n")
    for note in d["notes"]:
        out.write(f"note: {note}\n")
    return out.getvalue()


def load_shapes_json(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise CompilesError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise CompilesError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("shapes"), list):
        raise CompilesError(f"{path}: not a `dynlint shapes --format json` result (no 'shapes' list)")
    return data
