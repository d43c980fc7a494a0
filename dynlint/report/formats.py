"""Output formats: full (the default, as ruff's), concise (= text), json, json-lines, sarif (2.1.0,
for GitHub code scanning), github annotations; gitlab, junit and pylint in ci_formats.py."""
from __future__ import annotations

import json
from dataclasses import asdict

from .. import __version__
from ..project.config import OUTPUT_FORMATS as FORMATS  # noqa: F401  (re-exported)
from .locate import fixable, location  # noqa: F401  (re-exported)

_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def render(findings, fmt: str, rules, show_fixes: bool = False, unsafe: bool = False) -> str:
    if fmt == "json":
        return json.dumps([_json(f) for f in findings], indent=2) + "\n"
    if fmt == "json-lines":
        return "".join(json.dumps(_json(f)) + "\n" for f in findings)
    if fmt == "sarif":
        return json.dumps(sarif(findings, rules), indent=2) + "\n"
    if fmt == "github":
        return "".join(_github(f) + "\n" for f in findings)
    if fmt in ("gitlab", "junit", "pylint", "full"):
        from . import ci_formats
        return ci_formats.render(findings, fmt, unsafe)
    return "".join(_text(f, show_fixes, unsafe) for f in findings)


def _json(f) -> dict:
    d = {k: getattr(f, k) for k in ("path", "line", "column", "end_line", "end_column", "code",
                                    "name", "message", "severity")}
    d["cell"] = f.cell
    d["scope"] = f.scope
    d["confidence"] = f.confidence
    d["fix"] = None
    if f.fix is not None:
        d["fix"] = {
            "applicability": f.fix.applicability,
            "message": f.fix.description,
            "edits": [{k: v for k, v in asdict(e).items()} for e in f.fix.edits],
            "imports": list(f.fix.imports),
        }
    return d


def _text(f, show_fixes: bool, unsafe: bool = False) -> str:
    mark = "[*] " if fixable(f, unsafe) else ""
    line = f"{location(f)}: {f.code} {mark}{f.message}\n"
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
                # The rule's own documentation (its YAML file: what, why, example, fix safety).
                "helpUri": _rule_uri(r),
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
            "partialFingerprints": {"dynlint/v2": fingerprint(f)},
        })
        results[-1]["properties"] = {"confidence": f.confidence}
        if f.cell is not None:
            results[-1]["properties"]["cell"] = f.cell
        elif f.fix is not None and f.fix.applicability != "display-only" and not f.fix.imports:
            results[-1]["fixes"] = [_sarif_fix(f)]
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


def _rule_uri(rule) -> str:
    from pathlib import Path
    try:
        return Path(rule.path).resolve().as_uri()
    except (ValueError, OSError):
        return ""


def fingerprint(f) -> str:
    from .ci_formats import fingerprint as fp
    return fp(f)


def _sarif_fix(f) -> dict:
    return {"description": {"text": f"{f.fix.description} ({f.fix.applicability})"},
            "artifactChanges": [{
                "artifactLocation": {"uri": f.path.replace("\\", "/"), "uriBaseId": "%SRCROOT%"},
                "replacements": [{
                    "deletedRegion": {"startLine": e.line, "startColumn": e.column,
                                      "endLine": e.end_line, "endColumn": e.end_column},
                    "insertedContent": {"text": e.content}} for e in f.fix.edits],
            }]}


def _issues(n: int) -> str:
    return f"{n} issue" if n == 1 else f"{n} issues"


def _fixes(n: int, word: str = "fix") -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}es"


def summary(findings, fixed: int = 0, fixable_safe: int = 0, fixable_unsafe: int = 0) -> str:
    """ruff's closing lines. `fixable_safe` counts what `--fix` would apply with the current
    options (unsafe ones included under --unsafe-fixes); `fixable_unsafe` what it would need."""
    n = len(findings)
    if n == 0 and not fixed:
        return "All checks passed!\n"
    lines = [f"Found {_issues(n)}." if not fixed else
             f"Found {_issues(n + fixed)} ({fixed} fixed, {n} remaining)."]
    hidden = (f"{fixable_unsafe} unsafe {'fix' if fixable_unsafe == 1 else 'fixes'} available "
              f"with `--fix --unsafe-fixes`")
    if n and fixable_safe:
        lines.append(f"[*] {fixable_safe} fixable with `--fix`" +
                     (f" ({hidden})" if fixable_unsafe else "") + ".")
    elif n and fixable_unsafe:
        lines.append(hidden[0].upper() + hidden[1:] + ".")
    return "\n".join(lines) + "\n"


def diff_summary(would_fix: int, hidden_unsafe: int) -> str:
    """The count line closing `--diff`, as ruff words it."""
    extra = (f"{hidden_unsafe} additional {'fix' if hidden_unsafe == 1 else 'fixes'} available "
             f"with `--unsafe-fixes`")
    if would_fix:
        head = f"Would fix {'1 issue' if would_fix == 1 else f'{would_fix} issues'}"
        return head + (f" ({extra})" if hidden_unsafe else "") + ".\n"
    if hidden_unsafe:
        return (f"No issues would be fixed ({hidden_unsafe} "
                f"{'fix' if hidden_unsafe == 1 else 'fixes'} available with `--unsafe-fixes`).\n")
    return "No issues would be fixed.\n"


def statistics(findings, fmt: str = "text", unsafe: bool = False) -> str:
    counts: dict[tuple, list] = {}
    for f in findings:
        c = counts.setdefault((f.code, f.name), [0, 0])
        c[0] += 1
        c[1] += fixable(f, unsafe)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1][0], kv[0]))
    if fmt in ("json", "json-lines"):
        doc = [{"code": code, "name": name, "count": n, "fixable": k > 0, "fixable_count": k}
               for (code, name), (n, k) in rows]
        if fmt == "json-lines":
            return "".join(json.dumps(d) + "\n" for d in doc)
        return json.dumps(doc, indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(code) for (code, _), _ in rows)
    out = [f"{'count':>6}  {'fixable':>7}  {'code':{width}}  name\n"]
    out += [f"{n:6d}  {k:7d}  {code:{width}}  {name}\n" for (code, name), (n, k) in rows]
    out.append(f"{sum(n for _, (n, _) in rows):6d}  {sum(k for _, (_, k) in rows):7d}  "
               f"total\n")
    return "".join(out)
