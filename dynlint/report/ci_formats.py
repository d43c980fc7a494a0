"""Formats other tools read: GitLab code quality, JUnit XML, pylint's parseable lines, and
`full` (the source line with a caret underline and the fix as a diff, like ruff's default)."""
from __future__ import annotations

import hashlib
import json

from . import snippets
from .locate import fixable, location

_GITLAB_SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def render(findings, fmt: str, unsafe: bool = False) -> str:
    if fmt == "gitlab":
        return json.dumps([_gitlab(f) for f in findings], indent=2) + "\n"
    if fmt == "junit":
        return junit(findings)
    if fmt == "pylint":
        # pylint's `{path}:{line}: [{msg_id}({symbol}), ] {msg}`: read by many CI parsers.
        return "".join(f"{f.path}:{f.line}: [{f.code}({f.name})] {f.message}\n" for f in findings)
    return full(findings, unsafe)


def fingerprint(f) -> str:
    """Stable when lines move and when the flagged expression itself is edited: the code, the
    enclosing function, and the flagged line's text around the flagged span, without spaces."""
    text = source_line(f)
    end = f.end_column if f.end_line == f.line else len(text) + 1
    context = "".join((text[:f.column - 1] + "\u2026" + text[end - 1:]).split())
    key = f"{f.code}\0{f.path}\0{f.cell}\0{f.scope}\0{context}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _gitlab(f) -> dict:
    return {
        "description": f"{f.code} {f.message}",
        "check_name": f.code,
        "fingerprint": fingerprint(f),
        "severity": _GITLAB_SEVERITY.get(f.severity, "minor"),
        "location": {"path": f.path, "lines": {"begin": f.line, "end": max(f.end_line, f.line)}},
    }


def junit(findings) -> str:
    from xml.etree import ElementTree as ET      # ~8 ms that the other formats do not need
    suites = ET.Element("testsuites", name="dynlint", tests=str(len(findings)),
                        failures=str(len(findings)))
    by_path: dict[str, list] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    for path, fs in by_path.items():
        suite = ET.SubElement(suites, "testsuite", name=path, tests=str(len(fs)),
                              failures=str(len(fs)))
        for f in fs:
            case = ET.SubElement(suite, "testcase", name=f"{f.code} {f.name}",
                                 classname=path, file=f.path, line=str(f.line))
            failure = ET.SubElement(case, "failure", message=f.message, type=f.severity)
            failure.text = f"{location(f)}: {f.code} {f.message}"
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


# -- full -------------------------------------------------------------------------------------
_TEXT: dict = {}


def _lines(f, cut: bool = True):
    """The file's lines (a list, or the `snippets.Lines` cut when it was analysed)."""
    if cut and f.cell is None:
        kept = snippets.known(f.path)
        if kept is not None:
            return kept
    key = (f.path, f.cell)
    if key not in _TEXT:
        try:
            with open(f.path, "rb") as fh:
                data = fh.read()
            if f.cell is not None:
                raw = json.loads(data.decode("utf-8-sig"))
                src = raw["cells"][f.cell - 1].get("source", "")
                text = "".join(src) if isinstance(src, list) else src
            else:
                from ..project.source import decode
                text = decode(data, f.path)
            _TEXT[key] = snippets.split(text)
        except Exception:           # gone, unreadable, not a notebook any more: no snippet
            _TEXT[key] = []
    return _TEXT[key]


def source_line(f) -> str:
    lines = _lines(f)
    return lines[f.line - 1] if 0 < f.line <= len(lines) else ""


def full(findings, unsafe: bool = False) -> str:
    out = []
    for f in findings:
        try:
            out.append(_full(f, _lines(f), unsafe))
        except KeyError:            # a line the analysis did not keep: read the file
            out.append(_full(f, _lines(f, cut=False), unsafe))
    return "".join(out)


def _full(f, lines, unsafe: bool) -> str:
    out = []
    mark = " [*]" if fixable(f, unsafe) else ""
    out.append(f"{f.code}{mark} {f.message}\n --> {location(f)}\n")
    if 0 < f.line <= len(lines):
        text = lines[f.line - 1]
        width = len(str(f.line))
        end = f.end_column if f.end_line == f.line and f.end_column > f.column else len(text) + 1
        out.append(f"{'':{width}} |\n{f.line} | {text}\n"
                   f"{'':{width}} | {' ' * (f.column - 1)}{'^' * max(end - f.column, 1)}\n")
    if f.fix is not None:
        out.append(f"help: {f.fix.description or 'apply the suggested fix'}\n")
        out.append(_fix_diff(f, lines))
        if f.fix.applicability == "unsafe":
            out.append("note: this is an unsafe fix: callers may see another shape\n")
        elif f.fix.applicability == "display-only":
            out.append("note: this is a display-only suggestion: --fix does not apply it\n")
    out.append("\n")
    return "".join(out)


def _fix_diff(f, lines) -> str:
    """The fix as `-`/`+` lines (the edits applied to the lines they touch)."""
    edits = [e for e in f.fix.edits if 0 < e.line <= e.end_line <= len(lines)]
    if not edits or len(edits) != len(f.fix.edits):
        return "".join(f"  + {ln}\n" for e in f.fix.edits for ln in e.content.splitlines())
    first, last = min(e.line for e in edits), max(e.end_line for e in edits)
    old = lines[first - 1:last]
    text = "\n".join(old)
    offsets = [0]
    for ln in old:
        offsets.append(offsets[-1] + len(ln) + 1)
    for e in sorted(edits, key=lambda e: (e.line, e.column), reverse=True):
        a = offsets[e.line - first] + e.column - 1
        b = offsets[e.end_line - first] + e.end_column - 1
        text = text[:a] + e.content + text[b:]
    new = text.split("\n")
    import difflib                               # only when a fix is shown
    body = [ln for ln in difflib.unified_diff(old, new, lineterm="", n=0)][2:]
    return "".join(f"  {ln[0]} {ln[1:]}\n" for ln in body if not ln.startswith("@@"))
