"""Output formats: text, json, sarif (2.1.0, for GitHub code scanning), github annotations."""
from __future__ import annotations

import json
from dataclasses import asdict

from .. import __version__

FORMATS = ("text", "json", "sarif", "github")
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def render(findings, fmt: str, rules, show_fixes: bool = False) -> str:
    if fmt == "json":
        return json.dumps([_json(f) for f in findings], indent=2) + "\n"
    if fmt == "sarif":
        return json.dumps(sarif(findings, rules), indent=2) + "\n"
    if fmt == "github":
        return "".join(_github(f) + "\n" for f in findings)
    return "".join(_text(f, show_fixes) for f in findings)


def _json(f) -> dict:
    d = {k: getattr(f, k) for k in ("path", "line", "column", "end_line", "end_column", "code",
                                    "name", "message", "severity")}
    d["scope"] = f.scope
    d["fix"] = None
    if f.fix is not None:
        d["fix"] = {
            "applicability": f.fix.applicability,
            "message": f.fix.description,
            "edits": [asdict(e) for e in f.fix.edits],
            "imports": list(f.fix.imports),
        }
    return d


def _text(f, show_fixes: bool) -> str:
    line = f"{f.path}:{f.line}:{f.column}: {f.code} {f.message}\n"
    if show_fixes and f.fix is not None:
        line += f"    fix ({f.fix.applicability}): {f.fix.description}\n"
        for e in f.fix.edits:
            for i, text in enumerate(e.content.splitlines() or [""]):
                line += f"    {'+' if i == 0 else ' '} {text}\n"
    return line


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def _github(f) -> str:
    level = {"error": "error", "warning": "warning"}.get(f.severity, "notice")
    props = (f"file={_escape_prop(f.path)},line={f.line},col={f.column},"
             f"endLine={f.end_line},endColumn={f.end_column},"
             f"title={_escape_prop(f.code + ' ' + f.name)}")
    return f"::{level} {props}::{_escape_data(f.code + ' ' + f.message)}"


def sarif(findings, rules) -> dict:
    by_code = {r.code: r for r in rules}
    used = sorted({f.code for f in findings} | set(by_code))
    descriptors = []
    index = {}
    for code in used:
        index[code] = len(descriptors)
        r = by_code.get(code)
        if r is not None:
            descriptors.append({
                "id": code, "name": r.name,
                "shortDescription": {"text": r.summary},
                "fullDescription": {"text": r.why},
                "help": {"text": f"{r.summary}\n\n{r.why}",
                         "markdown": f"**{r.summary}**\n\n{r.why}\n\nSee `dynlint rule {code}`."},
                "defaultConfiguration": {"level": _SARIF_LEVEL.get(r.severity, "warning")},
                "properties": {"tags": ["performance", "dynamic-shapes"]},
            })
        else:
            name = next((f.name for f in findings if f.code == code), code)
            descriptors.append({"id": code, "name": name,
                                "shortDescription": {"text": f"dynlint: {name}"},
                                "defaultConfiguration": {"level": "error"}})
    results = []
    for f in findings:
        region = {"startLine": f.line, "startColumn": f.column,
                  "endLine": max(f.end_line, f.line), "endColumn": max(f.end_column, 1)}
        if region["endLine"] == region["startLine"] and region["endColumn"] < region["startColumn"]:
            region["endColumn"] = region["startColumn"]
        results.append({
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": _SARIF_LEVEL.get(f.severity, "warning"),
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": f.path.replace("\\", "/"), "uriBaseId": "%SRCROOT%"},
                "region": region,
            }}],
            "partialFingerprints": {"dynlint/v1": f"{f.code}:{f.path}:{f.scope}:{f.message}"},
        })
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "dynlint", "version": __version__, "semanticVersion": __version__,
                # informationUri is optional: no project web address is published yet
                "rules": descriptors,
            }},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    }


def _issues(n: int) -> str:
    return f"{n} issue" if n == 1 else f"{n} issues"


def summary(findings, fixed: int = 0, fixable_safe: int = 0, fixable_unsafe: int = 0) -> str:
    n = len(findings)
    if n == 0 and not fixed:
        return "All checks passed!\n"
    lines = [f"Found {_issues(n)}." if not fixed else
             f"Found {_issues(n + fixed)} ({fixed} fixed, {n} remaining)."]
    if n and (fixable_safe or fixable_unsafe):
        hint = f"[*] {fixable_safe} fixable with `--fix`"
        if fixable_unsafe:
            hint += f" ({fixable_unsafe} more with `--unsafe-fixes`)"
        lines.append(hint + ".")
    return "\n".join(lines) + "\n"


def statistics(findings) -> str:
    counts: dict[tuple, int] = {}
    for f in findings:
        counts[(f.code, f.name)] = counts.get((f.code, f.name), 0) + 1
    return "".join(f"{n:6d}  {code}  {name}\n" for (code, name), n in
                   sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
