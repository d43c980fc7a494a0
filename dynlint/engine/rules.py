"""Loading and validating YAML rule files.

A rule file holds everything about one rule; see rules/README.md for the schema. Errors name
the file, the line and the field, and abort the run with exit code 2 (a broken rule must not
silently turn into "no findings").
"""
from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .patterns import Pattern, PatternError, compile_pattern
from .predicates import REGISTRY
from ..analysis.roles import ALL_ROLES, Role

CODE_RE = re.compile(r"^[A-Z]{2,}[0-9]{3}$")
NAME_RE = re.compile(r"^[a-z][a-z0-9-]*$")
SEVERITIES = ("error", "warning", "info")
APPLICABILITIES = ("safe", "unsafe", "display-only")
POSITIONS = ("truth_test", "formatted", "chained_comparison")


class RuleError(Exception):
    def __init__(self, path, line, where, message):
        self.path, self.line, self.where, self.message = str(path), line, where, message
        loc = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{loc}: {where}: {message}" if where else f"{loc}: {message}")


@dataclass(frozen=True)
class PredCall:
    name: str
    args: tuple
    negate: bool
    fn: object
    text: str

    def __call__(self, ctx, node) -> bool:
        return bool(self.fn(ctx, node, *self.args)) != self.negate


@dataclass
class MatchSpec:
    patterns: list[Pattern]
    where: dict[str, list[PredCall]]
    when: list[PredCall]
    position: str | None = None
    report: str | None = None       # metavariable to point at instead of the whole match

    @property
    def roles(self) -> frozenset:
        """Function roles where this entry can match, read from its `when` conditions."""
        names = {(p.name, p.negate) for p in self.when}
        if ("in_model_code", False) in names:
            return frozenset({Role.MODEL})
        if ("in_step_code", False) in names:
            return frozenset({Role.MODEL, Role.NEUTRAL})
        if ("in_cold_code", True) in names:
            return frozenset({Role.MODEL, Role.NEUTRAL})
        return ALL_ROLES


@dataclass
class FixSpec:
    applicability: str
    description: str
    patterns: list[Pattern]
    where: dict[str, list[PredCall]]
    when: list[PredCall]
    replace: str
    imports: list[str]
    build: str = ""          # a named builder (dynlint/fix/builders.py) instead of `replace`


@dataclass
class Rule:
    code: str
    name: str
    severity: str
    default: bool
    summary: str
    why: str
    message: str
    matches: list[MatchSpec]
    fixes: list[FixSpec] = field(default_factory=list)
    example: str = ""
    alternative: str = ""
    requires_text: tuple[str, ...] = ()
    aten: tuple[str, ...] = ()
    examples: dict = field(default_factory=dict)
    path: str = ""
    builtin: str = ""
    targets: tuple[str, ...] = ()       # on by default for these targets too (`target = ["hpu"]`)

    def needed_roles(self) -> frozenset:
        """Function roles where this rule can match, read from its `when` conditions."""
        return frozenset().union(*(spec.roles for spec in self.matches))

    @property
    def fix_safety(self) -> str:
        if self.builtin == "unused-noqa":
            return "safe"
        kinds = {f.applicability for f in self.fixes}
        for k in APPLICABILITIES:
            if k in kinds:
                return k
        return "none"


# -- YAML with line numbers ------------------------------------------------------------------
class _LineDict(dict):
    lines: dict


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):   # C parser when built
    pass


def _construct_mapping(loader, node):
    loader.flatten_mapping(node)
    d = _LineDict()
    d.lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in d:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        d[key] = loader.construct_object(value_node, deep=True)
        d.lines[key] = key_node.start_mark.line + 1
    d.lines["__self__"] = node.start_mark.line + 1
    return d


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _line(mapping, key=None):
    lines = getattr(mapping, "lines", {})
    return lines.get(key) or lines.get("__self__")


# -- parsing ----------------------------------------------------------------------------------
_TOP_FIELDS = {"code", "name", "severity", "default", "summary", "why", "message", "match",
               "fixes", "examples", "example", "alternative", "requires_text", "aten", "builtin",
               "targets"}
# Checks the engine implements itself (no patterns): a rule file names one with `builtin:`.
BUILTINS = ("unused-noqa",)
# Without a `severity`, a rule takes its family's: DYN1xx data-dependent shapes are errors,
# DYN2xx host reads (a sync) warnings, DYN3xx suggestions info.
FAMILY_SEVERITY = {"1": "error", "2": "warning", "3": "info"}


def load_rule_file(path: Path) -> Rule:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleError(path, None, "", f"cannot read rule file: {exc}") from None
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise RuleError(path, line, "", f"invalid YAML: {problem}") from None
    if not isinstance(data, dict):
        raise RuleError(path, 1, "", "a rule file must be a mapping of fields")
    return _parse_rule(path, data)


def _parse_rule(path, d) -> Rule:
    def fail(key, msg, mapping=d):
        raise RuleError(path, _line(mapping, key), key, msg)

    unknown = set(d) - _TOP_FIELDS
    if unknown:
        key = sorted(unknown)[0]
        fail(key, f"unknown field (known: {', '.join(sorted(_TOP_FIELDS))})")
    builtin = d.get("builtin", "")
    if builtin and builtin not in BUILTINS:
        fail("builtin", f"must be one of {', '.join(BUILTINS)}, got {builtin!r}")
    for key in ("code", "name", "summary", "why", "message") + (() if builtin else ("match",)):
        if key not in d:
            raise RuleError(path, 1, key, "required field is missing")
    code, name = d["code"], d["name"]
    if not isinstance(code, str) or not CODE_RE.match(code):
        fail("code", f"must look like DYN123, got {code!r}")
    if not isinstance(name, str) or not NAME_RE.match(name):
        fail("name", f"must be lowercase-with-dashes, got {name!r}")
    digits = re.sub(r"^[A-Z]+", "", str(code))
    severity = d.get("severity", FAMILY_SEVERITY.get(digits[:1], "error"))
    if severity not in SEVERITIES:
        fail("severity", f"must be one of {', '.join(SEVERITIES)}, got {severity!r}")
    default = d.get("default", True)
    if not isinstance(default, bool):
        fail("default", f"must be on/off (true/false), got {default!r}")
    for key in ("summary", "why", "message", "example", "alternative"):
        if key in d and not isinstance(d[key], str):
            fail(key, "must be a string")
    matches_raw = d.get("match", [])
    if isinstance(matches_raw, dict):
        matches_raw = [matches_raw]
    if not isinstance(matches_raw, list) or not (matches_raw or builtin):
        fail("match", "must be a non-empty list of {pattern, where, when} entries")
    matches = [_parse_match(path, m, f"match[{i}]", d) for i, m in enumerate(matches_raw)]
    fixes_raw = d.get("fixes") or []
    if not isinstance(fixes_raw, list):
        fail("fixes", "must be a list")
    fixes = [_parse_fix(path, f, f"fixes[{i}]", d) for i, f in enumerate(fixes_raw)]
    examples = d.get("examples") or {}
    _check_examples(path, examples, d)
    rule = Rule(
        code=code, name=name, severity=severity, default=default,
        summary=d["summary"].strip(), why=d["why"].strip(), message=d["message"].strip(),
        matches=matches, fixes=fixes, example=d.get("example", "").rstrip(),
        alternative=d.get("alternative", "").rstrip(),
        requires_text=tuple(_str_list(path, d, "requires_text")),
        aten=tuple(_str_list(path, d, "aten")), examples=examples, path=str(path),
        builtin=builtin, targets=tuple(t.lower() for t in _str_list(path, d, "targets")),
    )
    _check_message(path, rule, d)
    return rule


def _str_list(path, d, key):
    v = d.get(key, [])
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        raise RuleError(path, _line(d, key), key, "must be a string or a list of strings")
    return v


def _parse_patterns(path, m, where_label, parent):
    raw = m.get("pattern", m.get("patterns"))
    if raw is None:
        raise RuleError(path, _line(m), where_label, "needs a `pattern` (or `patterns` list)")
    raw = [raw] if isinstance(raw, str) else raw
    if not isinstance(raw, list) or not raw or not all(isinstance(p, str) for p in raw):
        raise RuleError(path, _line(m, "pattern") or _line(m, "patterns"), where_label,
                        "pattern must be a string or a list of strings")
    out = []
    for p in raw:
        try:
            out.append(compile_pattern(p))
        except PatternError as exc:
            raise RuleError(path, _line(m, "pattern") or _line(m, "patterns"),
                            f"{where_label}.pattern", str(exc)) from None
    return out


def _parse_conditions(path, m, where_label, patterns):
    metavars = set().union(*(p.metavars for p in patterns))
    where_raw = m.get("where") or {}
    if not isinstance(where_raw, dict):
        raise RuleError(path, _line(m, "where"), f"{where_label}.where",
                        "must map metavariables to predicates")
    where = {}
    for var, preds in where_raw.items():
        var_name = str(var).lstrip("$")
        if var_name not in metavars:
            raise RuleError(path, _line(where_raw, var), f"{where_label}.where.{var}",
                            f"no metavariable ${var_name} in the pattern "
                            f"(have: {', '.join('$' + v for v in sorted(metavars)) or 'none'})")
        where[var_name] = _parse_preds(path, preds, _line(where_raw, var),
                                       f"{where_label}.where.{var}")
    when = _parse_preds(path, m.get("when") or [], _line(m, "when"), f"{where_label}.when")
    return where, when


def _parse_match(path, m, label, parent) -> MatchSpec:
    if not isinstance(m, dict):
        raise RuleError(path, _line(parent, "match"), label, "must be a mapping")
    unknown = set(m) - {"pattern", "patterns", "where", "when", "position", "report"}
    if unknown:
        key = sorted(unknown)[0]
        raise RuleError(path, _line(m, key), f"{label}.{key}", "unknown field")
    patterns = _parse_patterns(path, m, label, parent)
    where, when = _parse_conditions(path, m, label, patterns)
    position = m.get("position")
    if position is not None and position not in POSITIONS:
        raise RuleError(path, _line(m, "position"), f"{label}.position",
                        f"must be one of {', '.join(POSITIONS)}")
    report = m.get("report")
    if report is not None:
        report = str(report).lstrip("$")
        if not all(report in p.metavars for p in patterns):
            raise RuleError(path, _line(m, "report"), f"{label}.report",
                            f"${report} is not a metavariable of every pattern")
    for p in patterns:
        if p.root is None:
            raise RuleError(path, _line(m, "pattern"), f"{label}.pattern",
                            "detection patterns must be one expression or statement")
    return MatchSpec(patterns, where, when, position, report)


def _parse_fix(path, f, label, parent) -> FixSpec:
    if not isinstance(f, dict):
        raise RuleError(path, _line(parent, "fixes"), label, "must be a mapping")
    allowed = {"applicability", "description", "pattern", "patterns", "where", "when",
               "replace", "imports", "build"}
    unknown = set(f) - allowed
    if unknown:
        key = sorted(unknown)[0]
        raise RuleError(path, _line(f, key), f"{label}.{key}", "unknown field")
    app = f.get("applicability")
    if app not in APPLICABILITIES:
        raise RuleError(path, _line(f, "applicability") or _line(f), f"{label}.applicability",
                        f"must be one of {', '.join(APPLICABILITIES)}, got {app!r}")
    patterns = _parse_patterns(path, f, label, parent)
    where, when = _parse_conditions(path, f, label, patterns)
    # A builder (named Python code in dynlint/fix/builders.py, checked there, since the
    # engine sits below the fixer) writes the replacement when a template cannot, e.g. a
    # loop whose body is kept as it is.
    build = f.get("build", "")
    if not isinstance(build, str) or build and not re.fullmatch(r"[a-z_]+", build):
        raise RuleError(path, _line(f, "build"), f"{label}.build", "must be a builder name")
    if build:
        f = dict(f, replace=f.get("replace", "pass"))
    replace = f.get("replace")
    if not isinstance(replace, str):
        raise RuleError(path, _line(f, "replace") or _line(f), f"{label}.replace",
                        "must be a string of Python code")
    try:
        ast.parse(re.sub(r"\$([A-Za-z_]\w*)", r"__dl_\1", replace.strip()))
    except SyntaxError as exc:
        raise RuleError(path, _line(f, "replace"), f"{label}.replace",
                        f"does not parse: {exc.msg}") from None
    used = set(re.findall(r"\$([A-Za-z_]\w*)", replace))
    known = set().union(*(p.metavars for p in patterns))
    if used - known:
        raise RuleError(path, _line(f, "replace"), f"{label}.replace",
                        f"uses ${sorted(used - known)[0]} which the pattern does not bind")
    imports = f.get("imports") or []
    if isinstance(imports, str):
        imports = [imports]
    return FixSpec(app, str(f.get("description", "")).strip(), patterns, where, when,
                   replace.strip("\n"), list(imports), build)


def _parse_preds(path, raw, line, label) -> list[PredCall]:
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        raise RuleError(path, line, label, "must be a predicate or a list of predicates")
    return [_parse_pred(path, str(p), line, label) for p in raw]


def _parse_pred(path, text, line, label) -> PredCall:
    try:
        expr = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise RuleError(path, line, label, f"cannot read predicate {text!r}") from None
    negate = False
    if type(expr) is ast.UnaryOp and type(expr.op) is ast.Not:
        negate, expr = True, expr.operand
    args: list = []
    if type(expr) is ast.Call:
        for a in expr.args:
            if type(a) is ast.Constant:
                args.append(a.value)
            elif type(a) is ast.Name:
                args.append(a.id)
            else:
                raise RuleError(path, line, label, f"predicate arguments must be literals: {text!r}")
        expr = expr.func
    if type(expr) is not ast.Name:
        raise RuleError(path, line, label, f"cannot read predicate {text!r}")
    pred = REGISTRY.get(expr.id)
    if pred is None:
        raise RuleError(path, line, label,
                        f"unknown predicate {expr.id!r} (known: {', '.join(sorted(REGISTRY))})")
    if pred.arity >= 0 and len(args) != pred.arity:
        raise RuleError(path, line, label,
                        f"predicate {expr.id!r} takes {pred.arity} argument(s), got {len(args)}")
    for a in args:
        if expr.id in ("any_arg", "arg") and isinstance(a, str) and a not in REGISTRY:
            raise RuleError(path, line, label, f"unknown predicate {a!r} in {text!r}")
    return PredCall(expr.id, tuple(args), negate, pred.fn, text.strip())


_PIN_FIELDS = frozenset({"code", "line", "column", "message", "confidence"})


def flag_examples(rule) -> list[tuple[str, dict]]:
    """A rule's flag examples as (code, pins): pins hold the `line`/`column`/`message` an
    example expects (empty for a plain code string)."""
    out = []
    for item in rule.examples.get("flag", []):
        if isinstance(item, str):
            out.append((item, {}))
        else:
            out.append((item["code"], {k: v for k, v in item.items() if k != "code"}))
    return out


def _check_examples(path, ex, parent):
    if not isinstance(ex, dict):
        raise RuleError(path, _line(parent, "examples"), "examples", "must be a mapping")
    unknown = set(ex) - {"flag", "pass", "fix"}
    if unknown:
        key = sorted(unknown)[0]
        raise RuleError(path, _line(ex, key), f"examples.{key}", "unknown field (flag, pass, fix)")
    v = ex.get("pass", [])
    if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
        raise RuleError(path, _line(ex, "pass"), "examples.pass", "must be a list of code strings")
    flags = ex.get("flag", [])
    if not isinstance(flags, list):
        raise RuleError(path, _line(ex, "flag"), "examples.flag", "must be a list")
    for i, item in enumerate(flags):
        if isinstance(item, str):
            continue
        # A pinned example, as Fixit's `Invalid`: the code plus where and what is reported.
        if not isinstance(item, dict) or not isinstance(item.get("code"), str) \
                or set(item) - _PIN_FIELDS \
                or not all(isinstance(item[k], int) for k in ("line", "column") if k in item) \
                or not isinstance(item.get("message", ""), str) \
                or item.get("confidence", "certain") not in ("certain", "likely"):
            raise RuleError(path, _line(ex, "flag"), f"examples.flag[{i}]",
                            "must be a code string or {code, line, column, message, confidence}")
    for i, item in enumerate(ex.get("fix", []) or []):
        if not isinstance(item, dict) or not {"before", "after"} <= set(item):
            raise RuleError(path, _line(ex, "fix"), f"examples.fix[{i}]",
                            "each fix example needs `before` and `after`")


def _check_message(path, rule: Rule, d) -> None:
    fields = set(re.findall(r"{(\w+)}", rule.message))
    for spec in rule.matches:
        for p in spec.patterns:
            missing = fields - p.metavars - {"code", "name", "match"}
            if missing:
                raise RuleError(path, _line(d, "message"), "message",
                                f"{{{sorted(missing)[0]}}} is not bound by pattern {p.source!r}")


# -- rule sets ---------------------------------------------------------------------------------
def known_codes() -> frozenset:
    """Every bundled rule code (from the file names, no YAML parse) and the DYN9xx codes."""
    global _KNOWN
    if _KNOWN is None:
        from ..finding import FILE_DIAGNOSTICS
        names = [p.name.split("_", 1)[0] for p in bundled_rules_dir().glob("*.yaml")]
        _KNOWN = frozenset(n for n in names if CODE_RE.match(n)) | {c for c, _ in FILE_DIAGNOSTICS}
    return _KNOWN


_KNOWN = None


def bundled_rules_dir() -> Path:
    """`rules/` next to the package in a checkout, else the copy installed with the wheel."""
    here = Path(__file__).resolve().parent.parent      # the dynlint package
    checkout = here.parent / "rules"
    if checkout.is_dir() and (here.parent / "pyproject.toml").is_file():
        return checkout
    # The wheel maps rules/ to dynlint/rules_data/. It has no __init__.py, so
    # importlib.resources would hand back a MultiplexedPath whose str() is not a path.
    return here / "rules_data"


def load_rules(extra_dirs=()) -> list[Rule]:
    rules: list[Rule] = []
    seen: dict[str, str] = {}
    for directory in [bundled_rules_dir(), *map(Path, extra_dirs)]:
        if not directory.is_dir():
            raise RuleError(directory, None, "", "rule directory does not exist")
        for path in sorted(directory.glob("*.y*ml")):
            rule = load_rule_file(path)
            if rule.code in seen:
                raise RuleError(path, 1, "code", f"{rule.code} is already defined in {seen[rule.code]}")
            seen[rule.code] = str(path)
            rules.append(rule)
    return rules


def rules_fingerprint(rules: list[Rule]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for r in rules:
        h.update(Path(r.path).read_bytes())
    return h.hexdigest()
