"""From runtime evidence to a verdict per static finding, and the linter's misses.

confirmed       a data-dependent op ran on the finding's lines and, for the same
                input shapes, gave different output shapes (or, for a host sync
                such as .item(), different values) -- the graph would change;
ran-but-static  the lines ran, but no data-dependent op there ever changed;
not-exercised   the lines never ran in the recorded steps or the replays;
inconclusive    no change was seen, but a replay of a module that ran the lines raised:
                the evidence is incomplete, and no verdict rests on a broken replay.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .findings import StaticFinding, display_path
from .observe import SYNC, OpSite

CONFIRMED, STATIC, NOT_RUN, INCONCLUSIVE = "confirmed", "ran-but-static", "not-exercised", "inconclusive"


@dataclass
class Verdict:
    finding: StaticFinding
    verdict: str
    evidence: str
    sites: list = field(default_factory=list)
    modules: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"finding": self.finding.to_dict(), "verdict": self.verdict, "evidence": self.evidence,
                "ops": [site_text(s) for s in self.sites], "modules": [m or "(root)" for m in self.modules]}


def short_op(op: str) -> str:
    """'aten.nonzero.default' -> 'nonzero', 'torchvision.nms.default' -> 'torchvision.nms'."""
    parts = op.split(".")
    if parts and parts[-1] in ("default", "Tensor", "Scalar", "self", "int", "dim", "Tensor_mode"):
        parts = parts[:-1]
    if parts and parts[0] == "aten":
        parts = parts[1:]
    return ".".join(parts) or op


def site_text(site: OpSite) -> str:
    return f"{display_path(site.path)}:{site.line} {short_op(site.op)}"


def _describe(site: OpSite) -> str:
    if site.varied:
        n = max(len(v) for v in site.outcomes.values())
        what = "values" if site.kind == SYNC else "output shapes"
        return f"{short_op(site.op)} ran {site.calls}x and gave {n} different {what} for the same input shapes"
    return f"{short_op(site.op)} ran {site.calls}x, always the same result for the same input shapes"


def judge(findings: list[StaticFinding], sites: dict, covered: dict, replays: list = ()) -> list[Verdict]:
    broken = {r.name: r.errors for r in replays if r.errors}
    by_line: dict[tuple[str, int], list[OpSite]] = {}
    for site in sites.values():
        by_line.setdefault((site.path, site.line), []).append(site)
    verdicts = []
    for f in findings:
        lines = range(f.line, f.end_line + 1)
        here = [s for ln in lines for s in by_line.get((f.path, ln), ())]
        modules = sorted({m for s in here for m in s.modules if m is not None}
                         | {m for ln in lines for m in covered.get((f.path, ln), ())})
        changed = [s for s in here if s.varied]
        if changed:
            verdict, evidence = CONFIRMED, "; ".join(_describe(s) for s in changed)
        elif here:
            verdict, evidence = STATIC, "; ".join(_describe(s) for s in here)
        elif any((f.path, ln) in covered for ln in lines):
            verdict, evidence = STATIC, "the line ran, but no data-dependent op ran on it"
        else:
            verdict, evidence = NOT_RUN, "the line never ran in the recorded steps"
        failed = [m for m in modules if m in broken]
        if verdict == STATIC and failed:
            verdict = INCONCLUSIVE
            evidence = (f"no change seen, but the replay of {failed[0] or '(root)'} raised, so the perturbed "
                        f"evidence is missing: {broken[failed[0]][0]}")
        verdicts.append(Verdict(f, verdict, evidence, changed or here, modules))
    return verdicts


def misses(findings: list[StaticFinding], sites: dict, scanned: set[str]) -> list[dict]:
    """Data-dependent ops that ran on lines no finding covers."""
    flagged = {(f.path, ln) for f in findings for ln in range(f.line, f.end_line + 1)}
    out = []
    for site in sites.values():
        if (site.path, site.line) in flagged:
            continue
        out.append({"location": f"{display_path(site.path)}:{site.line}", "op": short_op(site.op),
                    "kind": site.kind, "calls": site.calls, "varied": site.varied,
                    "in_scanned_paths": site.path in scanned, "modules": sorted(m for m in site.modules if m)})
    out.sort(key=lambda m: (not m["in_scanned_paths"], not m["varied"], m["location"]))
    return out
