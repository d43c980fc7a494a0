"""One file's analysis result as JSON, for the cache (never pickle: a cache file is data
that anyone able to write the directory controls, and unpickling it would run their code)."""
from __future__ import annotations

import dataclasses

from .engine.match import FileFacts
from .finding import Edit, Finding, Fix


def finding_to_json(f: Finding) -> dict:
    return dataclasses.asdict(f)


def finding_from_json(d: dict) -> Finding:
    d = dict(d)
    fix = d.pop("fix", None)
    if fix is not None:
        fix = Fix(fix["applicability"], fix["description"],
                  tuple(Edit(**e) for e in fix["edits"]), tuple(fix.get("imports", ())))
    return Finding(**d, fix=fix)


def result_to_json(result) -> dict:
    found, facts = result
    out = {"findings": [finding_to_json(f) for f in found]}
    if facts is not None:
        out["facts"] = {
            "module": facts.module,
            "exports": {name: [is_model, sorted(refs)] for name, (is_model, refs) in facts.exports.items()},
            "model_refs": sorted(facts.model_refs),
            "conditional": [[func, finding_to_json(f)] for func, f in facts.conditional],
        }
    return out


def result_from_json(data: dict):
    """The (findings, facts) pair; raises (KeyError, TypeError, ValueError) if malformed."""
    found = [finding_from_json(d) for d in data["findings"]]
    raw = data.get("facts")
    facts = None
    if raw is not None:
        facts = FileFacts(raw["module"],
                          {name: (bool(m), frozenset(refs)) for name, (m, refs) in raw["exports"].items()},
                          frozenset(raw["model_refs"]),
                          [(func, finding_from_json(f)) for func, f in raw["conditional"]])
    return found, facts
