"""Static findings as confirm mode needs them, and their link to live modules.

Findings come from dynlint's scanner (`dynlint.api.scan`), from a JSON file of
an earlier scan, or from the caller.  A module is *flagged* when a class in its
MRO is defined in a finding's file and the finding's scope lies inside that
class ("InnerNet.forward" lies inside InnerNet).  Findings in free functions
are linked to modules at run time: whichever module was running when the
finding's line executed.
"""
from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

_SKIP_DIRS = {".git", "__pycache__", ".tox", ".venv", "venv", "node_modules", ".mypy_cache"}


class ConfirmError(Exception):
    """A problem with what the user gave us; the CLI maps it to exit code 2."""


@dataclass(frozen=True)
class StaticFinding:
    path: str  # absolute, symlinks resolved: it is compared with code object filenames
    line: int
    end_line: int
    column: int
    code: str
    name: str
    message: str
    severity: str
    scope: str

    @property
    def where(self) -> str:
        return f"{display_path(self.path)}:{self.line}:{self.column}"

    def to_dict(self) -> dict:
        data = asdict(self)
        data["path"] = display_path(self.path)
        return data


def display_path(path: str) -> str:
    """Installed packages from their import root (even when the virtualenv sits inside the
    working directory); other files relative to the working directory when inside it."""
    for marker in (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep):
        if marker in path:
            return path.split(marker, 1)[1]
    try:
        rel = os.path.relpath(path)
    except ValueError:
        rel = ".."
    return path if rel.startswith("..") else rel


def convert(obj: Any) -> StaticFinding:
    """Accept the core's Finding dataclass, or a dict with the same keys."""
    get = obj.get if isinstance(obj, dict) else (lambda k, d=None: getattr(obj, k, d))
    path = get("path")
    line = get("line")
    if path is None or line is None:
        raise ConfirmError(f"a finding needs at least 'path' and 'line': {obj!r}")
    line = int(line)
    end_line = get("end_line") or line
    return StaticFinding(
        path=os.path.realpath(str(path)), line=line, end_line=max(int(end_line), line),
        column=int(get("column") or 1), code=str(get("code") or ""), name=str(get("name") or ""),
        message=str(get("message") or ""), severity=str(get("severity") or ""),
        scope=str(get("scope") or "<module>"))


def scan(paths: Iterable[str]) -> list[StaticFinding]:
    paths = [str(p) for p in paths]
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        raise ConfirmError(f"no such file or directory: {', '.join(missing)}")
    try:
        from dynlint.api import scan as static_scan
    except ImportError as exc:
        raise ConfirmError(f"the static scanner (dynlint.api.scan) cannot be imported: {exc}") from exc
    return [convert(f) for f in static_scan(paths) if not is_file_diagnostic(f)]


def is_file_diagnostic(finding: Any) -> bool:
    """DYN9xx findings say a file could not be analysed (syntax error, ...): nothing to confirm."""
    code = finding.get("code", "") if isinstance(finding, dict) else getattr(finding, "code", "")
    return str(code).startswith("DYN9")


def read_findings_file(path: str) -> list[StaticFinding]:
    """Findings saved as JSON: a list of objects, or an object with a "findings" list."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        raise ConfirmError(f"cannot read findings from {path}: {exc}") from exc
    if isinstance(data, dict):
        data = data.get("findings", [])
    if not isinstance(data, list):
        raise ConfirmError(f"{path}: expected a list of findings")
    return [convert(f) for f in data if not is_file_diagnostic(f)]


def python_files(paths: Iterable[str]) -> set[str]:
    """Every .py file under `paths`, resolved; a data-dependent op outside them is not the linter's miss."""
    files: set[str] = set()
    for p in paths:
        if os.path.isfile(p):
            files.add(os.path.realpath(p))
            continue
        for root, dirs, names in os.walk(p):
            dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
            files.update(os.path.realpath(os.path.join(root, n)) for n in names if n.endswith((".py", ".pyi")))
    return files


_class_files: dict[type, str | None] = {}


def class_file(cls: type) -> str | None:
    try:
        return _class_files[cls]
    except KeyError:
        pass
    mod = sys.modules.get(cls.__module__)
    path = getattr(mod, "__file__", None)
    result = os.path.realpath(path) if path else None
    _class_files[cls] = result
    return result


def in_class(scope: str, qualname: str) -> bool:
    return scope == qualname or scope.startswith(qualname + ".")


def link_modules(names: dict, findings: list[StaticFinding]) -> dict[str, list[StaticFinding]]:
    """Module name -> findings held by (a class in the MRO of) that module's class."""
    by_file: dict[str, list[StaticFinding]] = {}
    for f in findings:
        by_file.setdefault(f.path, []).append(f)
    linked: dict[str, list[StaticFinding]] = {}
    for name, module in names.values():
        held = []
        for cls in type(module).__mro__:
            path = class_file(cls)
            for f in by_file.get(path, ()):
                if in_class(f.scope, cls.__qualname__) and f not in held:
                    held.append(f)
        if held:
            linked[name] = held
    return linked


def group(findings: list[StaticFinding], linked: dict[str, list[StaticFinding]]) -> list[dict]:
    """Findings grouped by enclosing class (with its module instances) or function."""
    owners: dict[StaticFinding, set[str]] = {}
    for name, held in linked.items():
        for f in held:
            owners.setdefault(f, set()).add(name)
    groups: dict[tuple, dict] = {}
    for f in findings:
        mods = owners.get(f)
        head = f.scope.split(".")[0]
        key = (f.path, head)
        g = groups.get(key)
        if g is None:
            if mods:
                kind = "class"
            elif head == "<module>":
                kind = "module-level"
            else:  # a free function, or a method of a class this model does not instantiate
                kind = "function" if "." not in f.scope else "class-not-in-model"
            g = groups[key] = {"scope": head, "path": display_path(f.path), "kind": kind,
                               "modules": set(), "findings": []}
        g["findings"].append(f)
        if mods:
            g["kind"] = "class"
            g["modules"].update(mods)
    return list(groups.values())
