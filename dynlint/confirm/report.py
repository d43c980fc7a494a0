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
import textwrap

from .verdicts import CONFIRMED, INCONCLUSIVE, NOT_RUN, STATIC, site_text

STEP_COLUMNS = ["Step", "Recompiling modules", "New in", "New out", "Class", "Location", "Comment",
                "Data-dependent ops"]
SUMMARY_COLUMNS = ["Module", "Class", "Recompiles", "Recompiles with a seen input shape", "Calls", "Input shapes",
                   "Paths"]
VERDICT_COLUMNS = ["Verdict", "Location", "Code", "Scope", "Evidence"]


MAX_TEXT_ROWS = 40
MAX_IDLE_VERDICTS = 10


def module_label(name: str | None) -> str:
    return name if name else "(root)"


def paths_text(stats) -> str:
    """'a.act x12, b.act x12' for a module shared by several owners; '' otherwise."""
    return ", ".join(f"{module_label(p)} x{n}" for p, n in sorted(stats.paths.items())) if stats.paths else ""


def comment(record, sites: dict | None = None) -> str:
    if record.new_in:
        return "recompiled: input shape not seen before"
    text = "input shape seen before, yet recompiled"
    if record.new_out:
        text += ", with a new output shape"
    sites = sites or {}
    if any(k in sites and sites[k].varied_in(record.name) for k in record.sites) or (
            not record.sites and any(s.varied_in(record.name) for s in sites.values())):
        return text + ": data-dependent ops in its own code"
    if record.child_recompiled:
        return text + ": because a child module recompiled" + (
            " (its own data-dependent ops gave the same result every time)" if record.sites else "")
    if record.sites or any(record.name in s.modules for s in sites.values()):
        return text + ": its data-dependent ops gave the same results; state or control flow?"
    return text + ": no data-dependent op of its own; state or control flow?"


def step_rows(result) -> list[list]:
    rows = []
    sites = result.sites
    for r in result.rows:
        # Backends without a record-time table (compile) have no per-call ops: the module's own.
        keys = [k for k in dict.fromkeys(r.sites or (k for k, s in sites.items() if r.name in s.modules))
                if k in sites]
        varied = [site_text(sites[k]) for k in keys if sites[k].varied_in(r.name)]
        constant = len(keys) - len(varied)
        ops = "; ".join(dict.fromkeys(varied)) + (
            f"{'; ' if varied else ''}{constant} that never changed" if constant else "")
        text = comment(r, sites) + (f" ({r.detail})" if r.detail else "")
        rows.append([r.step, module_label(r.name), r.new_in, r.new_out, r.cls, result.locations.get(r.cls, ""),
                     text, ops])
    return rows


def summary_rows(result) -> list[list]:
    """Modules that recompiled with a seen input shape first, then the rest."""
    stats = [s for s in result.stats.values() if s.recompiles]
    stats.sort(key=lambda s: (-s.unexpected, -s.recompiles, s.name))
    return [[module_label(s.name), s.cls, s.recompiles, s.unexpected, s.calls, s.input_shapes, paths_text(s)]
            for s in stats]


def verdict_rows(result) -> list[list]:
    order = {CONFIRMED: 0, INCONCLUSIVE: 1, STATIC: 2, NOT_RUN: 3}
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
        "warmup_steps": result.warmup,
        "warmup_recompiles": len(result.warmup_rows),
        "dynamic_modules": [module_label(n) for n in result.dynamic_modules()],
        "inconclusive_modules": [module_label(n) for n in result.inconclusive_modules()],
        "module_verdicts": [v.to_dict() for v in result.module_verdicts],
        "cleared_modules": result.cleared,
        "nothing_compiled": nothing_compiled(result),
        "per_step": [dict(zip(STEP_COLUMNS, row)) for row in step_rows(result)],
        "summary": [dict(zip(SUMMARY_COLUMNS, row)) for row in summary_rows(result)],
        "verdicts": [v.to_dict() for v in result.verdicts],
        "misses": [{**m, "modules": [module_label(n) for n in m["modules"]]} for m in result.misses],
        "groups": [{"scope": g["scope"], "path": g["path"], "kind": g["kind"],
                    "modules": sorted(module_label(n) for n in g["modules"]),
                    "findings": [f.where for f in g["findings"]]} for g in result.groups],
        "replays": [{"module": module_label(r.name), "class": r.cls, "captures": r.captures,
                     "compiles": r.compiles, "compiles_with_seen_input_shape": r.seen_shape_compiles,
                     "data_dependent": r.data_dependent, "inconclusive": r.inconclusive, "errors": r.errors,
                     "reasons": r.reasons}
                    for r in result.replays],
        "notes": result.notes,
        "compiler_warnings": list(dict.fromkeys(result.compiler_warnings)),
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


def nothing_compiled(result) -> str:
    """Why the per-step table is empty, in words ('' when it is not)."""
    if result.rows:
        return ""
    if result.detects_in_record:
        return (f"no module recompiled after the warm-up ({result.steps} step(s)): every graph was already "
                "in the cache" if result.warmup else "no module recompiled")
    if not result.replays:
        return (f"nothing was compiled: the {result.backend} backend compiles only the modules it replays, and "
                "none was replayed (no flagged line and no data-dependent op ran in a module whose inputs "
                "were captured)")
    names = ", ".join(module_label(r.name) for r in result.replays[:6])
    return (f"the {result.backend} backend replayed {len(result.replays)} module(s) ({names}) and none "
            "compiled on its first capture's step; see Replays")


def _table(header: list[str], rows: list[list], max_width: int = 60) -> str:
    """A plain-text table; long cells wrap onto more lines rather than being cut."""
    def cell(v) -> list[str]:
        return textwrap.wrap(str(v), max_width, break_on_hyphens=False) or [""]

    cells = [[cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(ln) for r in cells for ln in r[i]]) for i, h in enumerate(header)]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip(), "  ".join("-" * w for w in widths)]
    for r in cells:
        for k in range(max(len(c) for c in r)):
            out.append("  ".join((c[k] if k < len(c) else "").ljust(w) for c, w in zip(r, widths)).rstrip())
    return "\n".join(out)


def _wrapped(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, 110, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False) or [indent]


def render_text(result) -> str:
    parts = [f"dynlint confirm: backend {result.backend}, {result.steps} step(s) recorded"
             + (f" after {result.warmup} warm-up run(s) of batch 0" if result.warmup else "")
             + f", {len(result.findings)} static finding(s)"]
    for note in result.notes:
        parts.extend(_wrapped(f"note: {note}", ""))
    if result.warmup:
        parts.append(f"warm-up: {len(result.warmup_rows)} module compile(s) in the warm-up, not counted "
                     "(state set on a first call, such as cached anchors, is not data dependence)")
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
    if shown:
        parts.append(_table(STEP_COLUMNS[:4] + STEP_COLUMNS[6:], [r[:4] + r[6:] for r in shown], 70))
    elif not rows:
        parts.append(f"({nothing_compiled(result)})")
    parts.append("")
    parts.append("Recompilations per module")
    srows = summary_rows(result)
    first = [r for r in srows if r[3]]
    rest = [r for r in srows if not r[3]]
    if first:
        parts.append(_table(SUMMARY_COLUMNS[:6], [r[:6] for r in first[:MAX_TEXT_ROWS]]))
    if len(first) > MAX_TEXT_ROWS:
        parts.append(f"... and {len(first) - MAX_TEXT_ROWS} more modules that recompiled with a seen input shape")
    if rest:
        total = sum(r[2] for r in rest)
        parts.append(f"{len(rest)} {'other ' if first else ''}module(s) recompiled only for new input shapes "
                     f"({total} recompiles in all); --out and --format json list them")
    if not srows:
        parts.append(f"({nothing_compiled(result) or 'no module recompiled'})")
    shared = [s for s in result.stats.values() if len(s.paths) > 1]
    if shared:
        parts.append("Shared modules (one instance under several owners; counts are per path):")
        for s in sorted(shared, key=lambda s: -s.calls)[:10]:
            parts.extend(_wrapped(f"{module_label(s.name)} ({s.cls}, {s.calls} calls): {paths_text(s)}", "  "))
    if result.replays:
        parts.append("")
        parts.append("Replays (compiles per pass: as captured / again / perturbed)")
        for r in result.replays:
            counts = " / ".join(str(sum(r.compiles.get(p, []))) for p in ("as-captured", "as-captured-again",
                                                                            "perturbed"))
            tag = "DATA-DEPENDENT" if r.data_dependent else ("INCONCLUSIVE" if r.inconclusive else "static")
            parts.append(f"  {module_label(r.name)} ({r.cls}): {counts} -> {tag}")
            for err in r.errors:
                parts.extend(_wrapped(f"error: {err}", "    "))
            for reason in r.reasons[:5]:
                parts.extend(_wrapped(reason, "    "))
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
    for v in result.module_verdicts:
        parts.append(f"  {v.verdict:<12} {module_label(v.name)} ({v.cls})")
        for reason in v.reasons:
            parts.extend(_wrapped(reason, "      "))
    for text in result.cleared:
        parts.extend(_wrapped(f"cleared: {text}", "  "))
    parts.append("")
    parts.append("Verdicts")
    if result.verdicts:
        idle = 0
        for verdict, where, code, scope, evidence in verdict_rows(result):
            if verdict == NOT_RUN:
                idle += 1
                if idle > MAX_IDLE_VERDICTS:
                    continue
            parts.extend(_wrapped(f"{verdict:<15} {where} {code} ({scope}): {evidence}", "  "))
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
    counts = {k: sum(1 for v in result.verdicts if v.verdict == k)
              for k in (CONFIRMED, INCONCLUSIVE, STATIC, NOT_RUN)}
    parts.append("")
    parts.append(f"{counts[CONFIRMED]} confirmed, {counts[INCONCLUSIVE]} inconclusive, {counts[STATIC]} ran but "
                 f"static, {counts[NOT_RUN]} not exercised")
    return "\n".join(parts) + "\n"
