"""Settings: one config file (`dynlint.toml`, or `[tool.dynlint]` in pyproject.toml) plus the
command line's overrides. Which config file applies to which file is `resolve.Resolver`'s job.

    [tool.dynlint]
    select = ["DYN1", "DYN201"]        # codes, prefixes or "ALL"; default: rules marked default on
    extend-select = ["DYN207"]
    ignore = ["DYN203"]
    per-file-ignores = { "tests/**" = ["DYN2"] }
    exclude = ["third_party"]          # replaces the default exclusions
    extend-exclude = ["generated"]
    respect-gitignore = true
    force-exclude = false
    rule-dirs = ["tools/dynlint_rules"]  # extra YAML rule directories
    max-file-size = 5000000            # bytes; bigger files get DYN904 and are skipped
    cache-dir = ".dynlint_cache"
    target = ["hpu"]                   # turns on the rules that are on by default for it

Relative patterns and directories are relative to the config file's directory (settings
given on the command line: to the current directory). docs/configuration.md has the details.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..finding import FILE_DIAGNOSTICS
from .globs import Patterns
from .source import DEFAULT_MAX_BYTES


def toml_parser():
    """The TOML parser, imported when a config is read (~10 ms a run without one saves)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:                                # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    return tomllib


DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".tox", ".nox", "__pycache__", "build",
    "dist", "site-packages", "dist-packages", ".eggs", "*.egg-info", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".dynlint_cache", "node_modules", "__pypackages__",
    ".ipynb_checkpoints", ".direnv", "_build", "buck-out",
)
CONFIG_NAMES = ("dynlint.toml", "pyproject.toml")        # same directory: the first one wins


class ConfigError(Exception):
    """A problem with settings; the CLI prints it and exits with code 2."""


@dataclass
class FileIgnore:
    base: Path
    pattern: str                          # gitignore-style; a leading `!` negates it
    codes: list[str]
    origin: str                           # "pyproject.toml:7", "--config", ...

    def __post_init__(self):
        self.negate = self.pattern.startswith("!")
        self._spec = Patterns().extend(self.base, [self.pattern[1:] if self.negate else self.pattern])

    def applies_to(self, path: str) -> bool:
        return self._spec.excludes(path) != self.negate


@dataclass
class Settings:
    root: Path = field(default_factory=Path.cwd)
    config_file: Path | None = None
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: list[FileIgnore] = field(default_factory=list)
    exclude: list[tuple[Path, str]] | None = None          # None: DEFAULT_EXCLUDE
    extend_exclude: list[tuple[Path, str]] = field(default_factory=list)
    respect_gitignore: bool = True
    force_exclude: bool = False
    rule_dirs: list[str] = field(default_factory=list)
    max_file_size: int = DEFAULT_MAX_BYTES
    cache_dir: str | None = None
    target: list[str] = field(default_factory=list)        # e.g. ["hpu"]: Gaudi-only rules on
    output_format: str | None = None
    origins: dict[str, str] = field(default_factory=dict)  # setting -> where its value came from
    _patterns: Patterns | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if self.exclude is None:
            self.exclude = [(self.root, p) for p in DEFAULT_EXCLUDE]

    def cache_path(self) -> Path:
        p = Path(self.cache_dir or ".dynlint_cache")
        return p if p.is_absolute() else self.root / p

    def exclusions(self) -> Patterns:
        if self._patterns is None:
            patterns = Patterns()
            pairs = [*self.exclude, *self.extend_exclude]
            i = 0
            while i < len(pairs):             # one compiled group per run of the same base
                j = i
                while j < len(pairs) and pairs[j][0] == pairs[i][0]:
                    j += 1
                patterns = patterns.extend(pairs[i][0], [t for _, t in pairs[i:j]])
                i = j
            self._patterns = patterns
        return self._patterns

    def ignored_codes(self, path: str) -> list[str]:
        """The per-file-ignores codes that apply to `path`."""
        return [c for entry in self.per_file_ignores if entry.applies_to(path) for c in entry.codes]

    def selectors(self):
        """(setting, selector, origin) for every code or prefix this configuration names."""
        for key, values in (("select", self.select or []), ("extend-select", self.extend_select),
                            ("ignore", self.ignore)):
            for value in values:
                yield key, value, self.origins.get(key, "")
        for entry in self.per_file_ignores:
            for code in entry.codes:
                yield "per-file-ignores", code, entry.origin


# -- reading config files --------------------------------------------------------------------
def read_toml(path: Path) -> tuple[dict, str]:
    """(data, text); ConfigError naming the file, line and column for invalid TOML."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from None
    tomllib = toml_parser()
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        where = f"{path}:{m.group(1)}:{m.group(2)}" if m else str(path)
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ConfigError(f"{where}: invalid TOML: {msg}") from None


def dynlint_table(path: Path) -> tuple[dict, str] | None:
    """The dynlint settings in a config file, or None if a pyproject.toml has none."""
    data, text = read_toml(path)
    if Path(path).name == "pyproject.toml":
        table = data.get("tool", {}).get("dynlint")
        if table is None:
            return None
    else:
        table = data.get("tool", {}).get("dynlint", data) if set(data) == {"tool"} else data
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.dynlint] must be a table")
    return table, text


def settings_from(path: Path | None, table: dict, text: str, cwd: Path, overrides=()) -> Settings:
    """Settings from one config file's table (None: the defaults, rooted at `cwd`), then each
    command-line override (table, origin) in order."""
    root = Path(path).parent.resolve() if path else Path(cwd).resolve()
    settings = Settings(root=root, config_file=Path(path).resolve() if path else None)
    if path:
        _apply_file(settings, Path(path).resolve(), table, text, [])
    for table, origin in overrides:
        apply_table(settings, table, Path(cwd).resolve(), lambda key, origin=origin: origin)
    return settings


def _apply_file(settings: Settings, path: Path, table: dict, text: str, chain: list) -> None:
    """One config file's table, after the file it `extend`s (whose paths stay relative to
    that file), as ruff's `extend` does."""
    section = "[tool.dynlint] " if path.name == "pyproject.toml" else ""
    table = dict(table)
    parent = table.pop("extend", None)
    if parent is not None:
        where = f"{_origin(path, text, 'extend')}: {section}extend"
        if not isinstance(parent, str):
            raise ConfigError(f"{where}: must be the path of another config file")
        target = (path.parent / parent).resolve()
        if target in chain or target == path:
            raise ConfigError(f"{where}: circular: {' -> '.join(map(str, [*chain, path, target]))}")
        if not target.is_file():
            raise ConfigError(f"{where}: no such file {target}")
        found = dynlint_table(target)
        if found is None:
            raise ConfigError(f"{where}: {target} has no [tool.dynlint] table")
        _apply_file(settings, target, found[0], found[1], [*chain, path])
    apply_table(settings, table, path.parent, lambda key: _origin(path, text, key), section)


def _origin(path: Path, text: str, key: str) -> str:
    line = _key_line(text, key, Path(path).name == "pyproject.toml")
    return f"{path}:{line}" if line else str(path)


def _key_line(text: str, key: str, in_pyproject: bool) -> int | None:
    in_table = not in_pyproject
    for i, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_table = stripped.startswith("[tool.dynlint") or not in_pyproject
        elif in_table and re.match(rf"[\"']?{re.escape(key)}[\"']?\s*=", stripped):
            return i
    return None


_LIST_KEYS = {"select", "extend-select", "ignore", "exclude", "extend-exclude", "rule-dirs",
              "target"}
_BOOL_KEYS = {"respect-gitignore", "force-exclude"}
_MAP_KEYS = {"per-file-ignores", "extend-per-file-ignores"}
KNOWN_KEYS = _LIST_KEYS | _BOOL_KEYS | _MAP_KEYS | {"max-file-size", "cache-dir", "output-format"}
# `dynlint check --output-format` values (report/formats.py renders them); `text` = concise.
OUTPUT_FORMATS = ("full", "concise", "text", "json", "json-lines", "sarif", "github", "gitlab",
                  "junit", "pylint")


def apply_table(s: Settings, table: dict, base: Path, origin_of, section: str = "") -> None:
    """Apply one layer of settings. `base` is the directory relative paths and patterns are
    relative to; `origin_of(key)` says where a key came from, for messages."""
    def fail(raw_key, msg):
        raise ConfigError(f"{origin_of(raw_key)}: {section}{raw_key}: {msg}")

    for raw_key, value in table.items():
        key = raw_key.replace("_", "-")
        if key not in KNOWN_KEYS:
            fail(raw_key, f"unknown setting (known: {', '.join(sorted(KNOWN_KEYS))})")
        if key == "target" and isinstance(value, str):
            value = [value]                       # `target = "hpu"` reads naturally too
        if key in _LIST_KEYS and (not isinstance(value, list)
                                  or not all(isinstance(v, str) for v in value)):
            fail(raw_key, "must be a list of strings")
        if key in _BOOL_KEYS and not isinstance(value, bool):
            fail(raw_key, "must be true or false")
        s.origins[key] = origin_of(raw_key)
        if key == "select":
            s.select = list(value)
        elif key == "extend-select":
            s.extend_select = s.extend_select + list(value)
        elif key == "ignore":
            s.ignore = list(value)
        elif key == "exclude":
            s.exclude = [(base, v) for v in value]
        elif key == "extend-exclude":
            s.extend_exclude = s.extend_exclude + [(base, v) for v in value]
        elif key == "respect-gitignore":
            s.respect_gitignore = value
        elif key == "force-exclude":
            s.force_exclude = value
        elif key == "target":
            s.target = [v.lower() for v in value]
        elif key == "rule-dirs":
            s.rule_dirs = [str((base / v).resolve()) for v in value]
        elif key in _MAP_KEYS:
            if not isinstance(value, dict) or not all(
                    isinstance(v, list) and all(isinstance(c, str) for c in v) for v in value.values()):
                fail(raw_key, 'must map glob patterns to lists of codes, e.g. {"tests/**" = ["DYN2"]}')
            entries = [FileIgnore(base, k, list(v), origin_of(raw_key)) for k, v in value.items()]
            s.per_file_ignores = (s.per_file_ignores if key.startswith("extend") else []) + entries
        elif key == "max-file-size":
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                fail(raw_key, "must be a non-negative integer (bytes; 0 means no limit)")
            s.max_file_size = value
        elif key == "cache-dir":
            if not isinstance(value, str):
                fail(raw_key, "must be a string")
            s.cache_dir = str(base / value)
        elif key == "output-format":
            if value not in OUTPUT_FORMATS:
                fail(raw_key, f"must be one of {', '.join(OUTPUT_FORMATS)}")
            s.output_format = value
        s._patterns = None


def parse_inline(option: str) -> dict:
    """`--config KEY=VALUE`: one TOML assignment, e.g. `select = ["DYN1"]`."""
    tomllib = toml_parser()
    try:
        data = tomllib.loads(option)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"--config {option!r}: neither a config file nor a TOML "
                          f"`KEY = VALUE` ({exc})") from None
    data = data.get("tool", {}).get("dynlint", data) if set(data) == {"tool"} else data
    if len(data) != 1:
        raise ConfigError(f"--config {option!r}: give one setting per --config")
    return data


# -- rule selection --------------------------------------------------------------------------
FILE_DIAGNOSTIC_CODES = tuple(code for code, _ in FILE_DIAGNOSTICS)


def matching_codes(selector: str, known) -> set[str]:
    """The codes a selector (a code, a prefix or ALL) names; empty if none."""
    sel = selector.strip().upper()
    if sel == "ALL":
        return set(known)
    return {c for c in known if c.startswith(sel)}


def check_selectors(settings: Settings, known) -> None:
    """ConfigError naming the config file (and line) for a selector that matches nothing."""
    for key, selector, origin in settings.selectors():
        if not matching_codes(selector, known):
            line = None
            if settings.config_file and origin.startswith(str(settings.config_file)):
                line = _selector_line(settings.config_file, selector)
            where = f"{settings.config_file}:{line}" if line else origin
            raise ConfigError(f"{where}: {key}: {unknown_selector(selector)}")


def unknown_selector(selector: str) -> str:
    return (f"unknown rule selector {selector!r} (codes look like DYN101, prefixes like "
            f"DYN1, or ALL; see `dynlint rules`)")


def _selector_line(path: Path, selector: str) -> int | None:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for i, line in enumerate(lines, 1):
        if re.search(rf"[\"']{re.escape(selector)}[\"']", line.split("#", 1)[0]):
            return i
    return None


def select_codes(known, defaults, select=None, extend_select=(), ignore=(), cli=None) -> set[str]:
    """Resolve selectors to the enabled codes, ruff-style. The configuration's layer first;
    `cli` = (select, extend_select, ignore) from the command line on top, so `--select`
    there starts afresh."""
    def matching(selector):
        hits = matching_codes(selector, known)
        if not hits:
            raise ConfigError(unknown_selector(selector))
        return hits

    def layer(chosen, sel, extend, ign):
        if sel is not None:
            chosen = set().union(*(matching(s) for s in sel)) if sel else set()
        for s in extend:
            chosen |= matching(s)
        for s in ign:
            chosen -= matching(s)
        return chosen

    chosen = layer(set(defaults), select, extend_select, ignore)
    if cli is not None:
        chosen = layer(chosen, *cli)
    return chosen


def default_codes(rules, target=()) -> list[str]:
    """Codes on when nothing is selected: rules marked `default: true`, those whose `targets`
    name one of the configured targets (`target = ["hpu"]`), and the file diagnostics."""
    wanted = {t.lower() for t in target}
    return [r.code for r in rules if r.default or wanted & set(getattr(r, "targets", ()))] + \
        list(FILE_DIAGNOSTIC_CODES)


def select_rules(rules, select=None, extend_select=(), ignore=(), cli=None, target=()):
    """The enabled rules (the file diagnostics DYN9xx are selectable too, but are not rules)."""
    known = [r.code for r in rules] + list(FILE_DIAGNOSTIC_CODES)
    defaults = default_codes(rules, target)
    chosen = select_codes(known, defaults, select, extend_select, ignore, cli)
    return [r for r in rules if r.code in chosen]


def code_ignored(code: str, codes) -> bool:
    return any(c.upper() == "ALL" or code.startswith(c.upper()) for c in codes)


def per_file_ignored(path: str, code: str, settings: Settings) -> bool:
    return bool(settings.per_file_ignores) and code_ignored(code, settings.ignored_codes(path))
