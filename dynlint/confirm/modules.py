"""Which modules are dynamic through their own code, and why; or why we cannot tell.

dynamic       an op in the module's own code (its forward, or a free function it
              called, not a child module) gave different output shapes, or a host
              read gave different values, for the same input shapes -- in the record
              run or in a replay that ran to the end;
inconclusive  the backend saw a recompilation with an already-seen input shape that
              no child accounts for, but no op of the module's own code changed its
              result (Python state, a cache filled on an earlier call, a guard on an
              attribute ...), and no clean replay settled it; or the module's replay
              raised, so no verdict can rest on it.

A module that recompiled only because a child did is neither: the child is named.
The backend's recompilations corroborate the verdict; where they do not (a data-
dependent op that never cost a recompilation, say) the reasons say so.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .verdicts import short_op, site_text

DYNAMIC, INCONCLUSIVE = "dynamic", "inconclusive"


@dataclass
class ModuleVerdict:
    name: str
    cls: str
    verdict: str
    reasons: list = field(default_factory=list)
    ops: list = field(default_factory=list)  # "file:line op" of the varied ops in its own code

    def to_dict(self) -> dict:
        return {"module": self.name or "(root)", "class": self.cls, "verdict": self.verdict,
                "reasons": self.reasons, "ops": self.ops}


def _steps(steps: list[int]) -> str:
    uniq = sorted(set(steps))
    return ("step " if len(uniq) == 1 else "steps ") + ", ".join(str(s) for s in uniq)


def judge_modules(backend: str, detects_in_record: bool, rows: list, replays: list, sites: dict,
                  classes: dict[str, str]) -> tuple[list[ModuleVerdict], list[str]]:
    """Module verdicts, and notes on modules cleared by a clean replay."""
    own: dict[str, list] = {}
    for site in sites.values():
        for m in site.modules:
            if m is not None and site.varied_in(m):
                own.setdefault(m, []).append(site)
    seen_shape = {}  # name -> steps where it recompiled with a seen input shape, no child accounting for it
    for r in rows:
        if r.unexpected and not r.child_recompiled:
            seen_shape.setdefault(r.name, []).append(r.step)
    replay_of = {r.name: r for r in replays}
    names = set(own) | set(seen_shape) | {r.name for r in replays if r.data_dependent or r.errors}
    verdicts, cleared = [], []
    for name in sorted(names, key=lambda n: (n.count("."), n)):
        rep = replay_of.get(name)
        reasons: list[str] = []
        cls = classes.get(name) or (rep.cls if rep else "")
        if name in own:
            ops = sorted({site_text(s) for s in own[name]})
            reasons.append("its own code ran data-dependent ops whose result changed for the same input shapes: "
                           + ", ".join(f"{site_text(s)} ({_what(s)})" for s in own[name][:4]))
            reasons.append(_corroboration(backend, detects_in_record, name, rows, rep))
            if rep is not None and rep.errors:
                reasons.append(f"{len(rep.errors)} replay(s) raised and were left out: {rep.errors[0]}")
            verdicts.append(ModuleVerdict(name, cls, DYNAMIC, reasons, ops))
            continue
        if rep is not None and rep.errors:
            reasons.append(f"its replay raised, so no verdict rests on it: {rep.errors[0]}")
        children = _dynamic_child(name, own)
        if name in seen_shape and children and not detects_in_record:
            # Rows from compiled replays cannot tell a child's recompiles from the module's own.
            cleared.append(f"{name or '(root)'}: recompiled with a seen input shape at {_steps(seen_shape[name])} "
                           f"through its dynamic child module(s) {', '.join(children[:3])}")
            continue
        if name in seen_shape:
            if rep is not None and not rep.errors and not rep.data_dependent:
                cleared.append(f"{name or '(root)'} recompiled with a seen input shape at {_steps(seen_shape[name])}, "
                               "but no op of its own varied and its replays (same and perturbed values) never "
                               "recompiled: state set by an earlier call, not data")
                continue
            reasons.append(f"recompiled with a seen input shape at {_steps(seen_shape[name])} although no child "
                           "recompiled, yet no op of its own code changed its result: Python state or control "
                           "flow (a cache filled on an earlier call?) rather than data; try --warmup 2")
        elif rep is not None and rep.data_dependent and children:
            # A compiled module includes its children: their data-dependent ops recompile it too.
            cleared.append(f"{name or '(root)'}: its {backend} replay recompiled with a seen input shape only "
                           f"through dynamic child module(s) {', '.join(children[:3])}")
            continue
        elif rep is not None and rep.data_dependent:
            reasons.append(f"its {backend} replay recompiled with a seen input shape, yet no op of its own code "
                           "changed its result: " + (rep.reasons[0] if rep.reasons else "no reason given"))
        if reasons:
            verdicts.append(ModuleVerdict(name, cls, INCONCLUSIVE, reasons))
    return verdicts, cleared


def _dynamic_child(name: str, own: dict) -> list[str]:
    prefix = name + "." if name else ""
    return sorted(m or "(root)" for m in own if m != name and m.startswith(prefix))


def _what(site) -> str:
    n = max(len(v) for v in site.outcomes.values())
    return f"{n} different {'values' if site.kind == 'host-sync' else 'output shapes'}"


def _corroboration(backend: str, detects_in_record: bool, name: str, rows: list, rep) -> str:
    if detects_in_record:
        steps = [r.step for r in rows if r.name == name and r.unexpected]
        if steps:
            return f"{backend}: its graph recompiled with a seen input shape at {_steps(steps)}"
        if rep is not None and rep.data_dependent:
            return f"{backend}: its replay recompiled with a seen input shape"
        return (f"{backend}: no recompilation with a seen input shape was observed (every step brought a new "
                "input shape, or the changing result never reached the graph)")
    if rep is None:
        return f"{backend}: not replayed (no input captured), so no compiled evidence either way"
    if rep.data_dependent:
        return f"{backend}: its compiled replay recompiled with a seen input shape"
    why = "; ".join(rep.reasons[:2]) or "no recompile or graph break reported"
    return f"{backend}: its compiled replay did not recompile with a seen input shape ({why})"


__all__ = ["DYNAMIC", "INCONCLUSIVE", "ModuleVerdict", "judge_modules", "short_op"]
