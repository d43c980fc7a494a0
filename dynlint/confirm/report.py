"""Tables, text, CSV and JSON for a ConfirmResult.

The per-step table follows the columns of Intel's detect_recompilation_auto_model
report (Step, Recompiling modules, New in, New out, Class, Location, Comment),
with one more column naming the data-dependent ops that ran in that call.
"""
from __future__ import annotations

import csv
import io
import json
import os

from .verdicts import CONFIRMED, NOT_RUN, STATIC, site_text

STEP_COLUMNS = ["Step", "Recompiling modules", "New in", "New out", "Class", "Location", "Comment",
                "Data-dependent ops"]
SUMMARY_COLUMNS = ["Module", "Class", "Recompiles", "Recompiles with a seen input shape", "Calls", "Input shapes"]
VERDICT_COLUMNS = ["Verdict", "Location", "Code", "Scope", "Evidence"]


MAX_TEXT_ROWS = 40
MAX_IDLE_VERDICTS = 10


def module_label(name: str) -> str:
    return name if name else "(root)"


def comment(record) -> str:
    if record.new_in:
        return "recompiled: input shape not seen before"
    text = "input shape seen before, yet recompiled"
    if record.new_out:
        text += ", with a new output shape"
    if record.sites:
        return text + ": data-dependent ops in its own code"
    if record.child_recompiled:
        return text + ": maybe only because a child module recompiled"
    return text + ": maybe data-dependent ops"


def step_rows(result) -> list[list]:
    rows = []
    sites = result.sites
    for r in result.rows:
        ops = "; ".join(dict.fromkeys(site_text(sites[k]) for k in r.sites if k in sites))
        text = comment(r) + (f" ({r.detail})" if r.detail else "")
        rows.append([r.step, module_label(r.name), r.new_in, r.new_out, r.cls, result.locations.get(r.cls, ""),
                     text, ops])
    return rows


def summary_rows(result) -> list[list]:
    stats = [s for s in result.stats.values() if s.recompiles]
    stats.sort(key=lambda s: (-s.unexpected, -s.recompiles, s.name))
    return [[module_label(s.name), s.cls, s.recompiles, s.unexpected, s.calls, s.input_shapes] for s in stats]


def verdict_rows(result) -> list[list]:
    order = {CONFIRMED: 0, STATIC: 1, NOT_RUN: 2}
    vs = sorted(result.verdicts, key=lambda v: (order[v.verdict], v.finding.path, v.finding.line))
    return [[v.verdict, v.finding.where, v.finding.code, v.finding.scope, v.evidence] for v in vs]


def to_csv(header: list[str], rows: list[list]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


def to_dict(result) -> dict:
    return {
        "backend": result.backend,
        "steps": result.steps,
        "exit_code": result.exit_code,
        "dynamic_modules": result.dynamic_modules(),
        "per_step": [dict(zip(STEP_COLUMNS, row)) for row in step_rows(result)],
        "summary": [dict(zip(SUMMARY_COLUMNS, row)) for row in summary_rows(result)],
        "verdicts": [v.to_dict() for v in result.verdicts],
        "misses": result.misses,
        "groups": [{"scope": g["scope"], "path": g["path"], "kind": g["kind"], "modules": sorted(g["modules"]),
                    "findings": [f.where for f in g["findings"]]} for g in result.groups],
        "replays": [{"module": module_label(r.name), "class": r.cls, "captures": r.captures,
                     "compiles": r.compiles, "compiles_with_seen_input_shape": r.seen_shape_compiles,
                     "data_dependent": r.data_dependent, "errors": r.errors, "reasons": r.reasons}
                    for r in result.replays],
        "notes": result.notes,
        "timings_seconds": {k: round(v, 3) for k, v in result.timings.items()},
    }


def write_outputs(result, out_dir: str) -> list[str]:
    os.makedirs(out_dir, exist_ok=True)
    files = {
        "recompiles_per_step.csv": to_csv(STEP_COLUMNS, step_rows(result)),
        "recompiles_summary.csv": to_csv(SUMMARY_COLUMNS, summary_rows(result)),
        "verdicts.csv": to_csv(VERDICT_COLUMNS, verdict_rows(result)),
        "confirm.json": json.dumps(to_dict(result), indent=2, default=str) + "\n",
    }
    written = []
    for fname, text in files.items():
        path = os.path.join(out_dir, fname)
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        written.append(path)
    return written


def _table(header: list[str], rows: list[list], max_width: int = 60) -> str:
    def cell(v) -> str:
        s = str(v)
        return s if len(s) <= max_width else s[: max_width - 3] + "..."

    cells = [[cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in cells]
    return "\n".join(out)


def render_text(result) -> str:
    parts = [f"dynlint confirm: backend {result.backend}, {result.steps} step(s) recorded, "
             f"{len(result.findings)} static finding(s)"]
    for note in result.notes:
        parts.append(f"note: {note}")
    parts.append("")
    parts.append("Recompilations per step")
    rows = step_rows(result)
    shown = rows
    if len(rows) > MAX_TEXT_ROWS:
        # Big models recompile every module on the first step; what matters are the others.
        shown = [r for r in rows if r[2] is False]
        per_step: dict = {}
        for r in rows:
            if r[2] is not False:
                per_step[r[0]] = per_step.get(r[0], 0) + 1
        counts = ", ".join(f"{n} in step {step}" for step, n in per_step.items())
        parts.append(f"({len(rows) - len(shown)} recompiles for new input shapes ({counts}) are left out here; "
                     "--out and --format json have every row)")
    parts.append(_table(STEP_COLUMNS[:4] + STEP_COLUMNS[6:], [r[:4] + r[6:] for r in shown], 90)
                 if shown else "(none)")
    parts.append("")
    parts.append("Recompilations per module")
    srows = summary_rows(result)
    parts.append(_table(SUMMARY_COLUMNS, srows[:MAX_TEXT_ROWS]) if srows else "(none)")
    if len(srows) > MAX_TEXT_ROWS:
        parts.append(f"... and {len(srows) - MAX_TEXT_ROWS} more modules")
    if result.replays:
        parts.append("")
        parts.append("Replays (compiles per pass: as captured / again / perturbed)")
        for r in result.replays:
            counts = " / ".join(str(sum(r.compiles.get(p, []))) for p in ("as-captured", "as-captured-again",
                                                                            "perturbed"))
            tag = "DATA-DEPENDENT" if r.data_dependent else "static"
            parts.append(f"  {module_label(r.name)} ({r.cls}): {counts} -> {tag}")
            for err in r.errors[:3]:
                parts.append(f"    error: {err}")
            for reason in r.reasons[:5]:
                parts.append(f"    {reason}")
    linked = [g for g in result.groups if g["modules"]]
    if linked:
        parts.append("")
        parts.append("Flagged code and the modules that ran it")
        for g in linked:
            mods = sorted(g["modules"], key=lambda n: (n.count("."), n))
            more = f" (+{len(mods) - 5} more)" if len(mods) > 5 else ""
            parts.append(f"  {g['scope']} ({g['path']}, {len(g['findings'])} finding(s)): "
                         f"{', '.join(module_label(m) for m in mods[:5])}{more}")
    dyn = result.dynamic_modules()
    parts.append("")
    parts.append("Dynamic modules: " + (", ".join(module_label(n) for n in dyn) if dyn else "none"))
    parts.append("")
    parts.append("Verdicts")
    if result.verdicts:
        idle = 0
        for verdict, where, code, scope, evidence in verdict_rows(result):
            if verdict == NOT_RUN:
                idle += 1
                if idle > MAX_IDLE_VERDICTS:
                    continue
            parts.append(f"  {verdict:<15} {where} {code} ({scope}): {evidence}")
        if idle > MAX_IDLE_VERDICTS:
            parts.append(f"  ... and {idle - MAX_IDLE_VERDICTS} more not exercised")
    else:
        parts.append("  (no static findings)")
    parts.append("")
    parts.append("Data-dependent ops with no static finding")
    if result.misses:
        for m in result.misses:
            scope = "" if m["in_scanned_paths"] else " [outside the scanned paths]"
            change = "changed" if m["varied"] else "never changed"
            parts.append(f"  {m['location']} {m['op']} ({m['kind']}, {m['calls']} call(s), {change}){scope}")
    else:
        parts.append("  (none)")
    counts = {k: sum(1 for v in result.verdicts if v.verdict == k) for k in (CONFIRMED, STATIC, NOT_RUN)}
    parts.append("")
    parts.append(f"{counts[CONFIRMED]} confirmed, {counts[STATIC]} ran but static, {counts[NOT_RUN]} not exercised")
    return "\n".join(parts) + "\n"
