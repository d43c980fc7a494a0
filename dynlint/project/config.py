"""Settings: `[tool.dynlint]` in pyproject.toml, overridden by the command line.

    [tool.dynlint]
    select = ["DYN1", "DYN201"]        # codes, prefixes or "ALL"; default: rules marked default on
    extend-select = ["DYN207"]
    ignore = ["DYN203"]
    per-file-ignores = { "tests/*" = ["DYN2"] }
    exclude = ["third_party"]          # replaces the default exclusions
    extend-exclude = ["generated"]
    rule-dirs = ["tools/dynlint_rules"]  # extra YAML rule directories
    max-file-size = 5000000            # bytes; bigger files get DYN904 and are skipped
    cache-dir = ".dynlint_cache"
"""
from __future__ import annotations

import fnmatch
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .discover import DEFAULT_EXCLUDE
from .source import DEFAULT_MAX_BYTES

if sys.version_info >= (3, 11):
    import tomllib
else:                                    # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


class ConfigError(Exception):
    """A problem with settings; the CLI prints it and exits with code 2."""


@dataclass
class Settings:
    root: Path = field(default_factory=Path.cwd)
    config_file: Path | None = None
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDE))
    rule_dirs: list[str] = field(default_factory=list)
    max_file_size: int = DEFAULT_MAX_BYTES
    cache_dir: str = ".dynlint_cache"

    def cache_path(self) -> Path:
        p = Path(self.cache_dir)
        return p if p.is_absolute() else self.root / p


_LIST_KEYS = {"select", "extend-select", "ignore", "exclude", "extend-exclude", "rule-dirs"}
_KNOWN = _LIST_KEYS | {"per-file-ignores", "max-file-size", "cache-dir"}


def find_config(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.dynlint] table, from `start` upwards."""
    for directory in [start, *start.parents]:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                text = candidate.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if re.search(r"^\s*\[tool\.dynlint[\].]", text, re.MULTILINE):
                return candidate
    return None


def load_settings(config: Path | None = None, isolated: bool = False,
                  cwd: Path | None = None) -> Settings:
    cwd = cwd or Path.cwd()
    if isolated:
        return Settings(root=cwd)
    path = config or find_config(cwd)
    if path is None:
        return Settings(root=cwd)
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        where = f"{path}:{m.group(1)}:{m.group(2)}" if m else str(path)
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ConfigError(f"{where}: invalid TOML: {msg}") from None
    table = data.get("tool", {}).get("dynlint")
    if table is None and config is not None:
        table = {}
    settings = Settings(root=path.parent.resolve(), config_file=path)
    _apply_table(settings, table or {}, path, text)
    return settings


def _key_line(text: str, key: str) -> int | None:
    in_table = False
    for i, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_table = stripped.startswith("[tool.dynlint")
        elif in_table and re.match(rf"[\"']?{re.escape(key)}[\"']?\s*=", stripped):
            return i
    return None


def _apply_table(s: Settings, table: dict, path: Path, text: str) -> None:
    def fail(key, msg):
        line = _key_line(text, key)
        loc = f"{path}:{line}" if line else str(path)
        raise ConfigError(f"{loc}: [tool.dynlint] {key}: {msg}")

    for raw_key, value in table.items():
        key = raw_key.replace("_", "-")
        if key not in _KNOWN:
            fail(raw_key, f"unknown setting (known: {', '.join(sorted(_KNOWN))})")
        if key in _LIST_KEYS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                fail(raw_key, "must be a list of strings")
        if key == "select":
            s.select = list(value)
        elif key == "extend-select":
            s.extend_select = list(value)
        elif key == "ignore":
            s.ignore = list(value)
        elif key == "exclude":
            s.exclude = list(value)
        elif key == "extend-exclude":
            s.exclude = s.exclude + list(value)
        elif key == "rule-dirs":
            s.rule_dirs = [str((s.root / v).resolve()) for v in value]
        elif key == "per-file-ignores":
            if not isinstance(value, dict) or not all(
                    isinstance(v, list) and all(isinstance(c, str) for c in v) for v in value.values()):
                fail(raw_key, 'must map glob patterns to lists of codes, e.g. {"tests/*" = ["DYN2"]}')
            s.per_file_ignores = {k: list(v) for k, v in value.items()}
        elif key == "max-file-size":
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                fail(raw_key, "must be a non-negative integer (bytes; 0 means no limit)")
            s.max_file_size = value
        elif key == "cache-dir":
            if not isinstance(value, str):
                fail(raw_key, "must be a string")
            s.cache_dir = value


def select_rules(rules, select=None, extend_select=(), ignore=(), cli=None):
    """Resolve selectors (codes, prefixes, ALL) to the enabled rules, ruff-style.

    The configuration file's layer is applied first; `cli` = (select, extend_select, ignore)
    from the command line is applied on top, so `--select` there starts afresh.
    """
    def matching(selector):
        sel = selector.strip().upper()
        if sel == "ALL":
            return {r.code for r in rules}
        hits = {r.code for r in rules if r.code.startswith(sel)}
        if not hits:
            raise ConfigError(f"unknown rule selector {selector!r} "
                              f"(codes look like DYN101; prefixes like DYN1 or ALL)")
        return hits

    def layer(chosen, sel, extend, ign):
        if sel is not None:
            chosen = set().union(*(matching(s) for s in sel)) if sel else set()
        for s in extend:
            chosen |= matching(s)
        for s in ign:
            chosen -= matching(s)
        return chosen

    chosen = layer({r.code for r in rules if r.default}, select, extend_select, ignore)
    if cli is not None:
        chosen = layer(chosen, *cli)
    return [r for r in rules if r.code in chosen]


def per_file_ignored(display: str, code: str, table: dict[str, list[str]]) -> bool:
    rel = display.replace("\\", "/")
    name = rel.rsplit("/", 1)[-1]
    for pattern, codes in table.items():
        if fnmatch.fnmatchcase(rel, pattern) or fnmatch.fnmatchcase(name, pattern):
            if any(c.upper() == "ALL" or code.startswith(c.upper()) for c in codes):
                return True
    return False
