"""What applies to each checked file: its settings, its rules (an `Engine`), the codes it
reports and the per-file-ignores. One `Profile` per distinct config file in the run.

The file diagnostics (DYN901-DYN905, DYN999) are selected, ignored and per-file-ignored like
rules; they are simply not produced by the engine.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from ..engine.match import Engine
from ..engine.rules import RuleError, load_rules, rules_fingerprint
from ..project.config import (FILE_DIAGNOSTIC_CODES, ConfigError, Settings, check_selectors,
                             code_ignored, default_codes, matching_codes, select_codes, unknown_selector)
from ..project.resolve import Resolver

_RULES: dict[tuple, list] = {}


def rules_from(dirs) -> list:
    key = tuple(dirs)
    if key not in _RULES:
        try:
            _RULES[key] = load_rules(list(dirs))
        except RuleError as exc:
            raise ConfigError(f"invalid rule: {exc}") from None
    return _RULES[key]


@dataclass
class Profile:
    settings: Settings
    rules: list                   # every rule known to this configuration
    engine: Engine                # the enabled rules
    codes: frozenset              # enabled codes, rules and file diagnostics
    cache_key: tuple


class Plan:
    def __init__(self, resolver: Resolver, rule_dirs=(), cli=(None, (), ())):
        self.resolver = resolver
        self.rule_dirs = [os.path.abspath(d) for d in rule_dirs]     # --rules, relative to cwd
        self.cli = (cli[0], list(cli[1] or ()), list(cli[2] or ()))
        self._profiles: dict[int, Profile] = {}
        self._reported: dict[str, tuple] = {}    # path -> (codes, per-file-ignored codes)

    def settings_for(self, path) -> Settings:
        return self.resolver.settings_for(path)

    def profile(self, settings: Settings) -> Profile:
        found = self._profiles.get(id(settings))
        if found is None:
            found = self._profiles[id(settings)] = self._build(settings)
        return found

    def profile_for(self, path) -> Profile:
        return self.profile(self.settings_for(path))

    def profile_for_file(self, absolute: str) -> Profile:
        """`profile_for` of a path known to be a file, absolute: no stat to ask whether it is a
        directory (a warm run asks this for every file of the tree)."""
        return self.profile(self.resolver.settings_for_dir(os.path.dirname(absolute)))

    def engine_for(self, path) -> Engine:
        return self.profile_for(path).engine

    def enabled_rules(self) -> list:
        """The rules enabled by any configuration used so far, by code."""
        by_code = {r.code: r for p in self._profiles.values() for r in p.engine.rules}
        return [by_code[c] for c in sorted(by_code)]

    def keep(self, finding) -> bool:
        """False for a finding its file's configuration does not report."""
        found = self._reported.get(finding.path)
        if found is None:                   # once per file: a file has many findings
            profile = self.profile_for(finding.path)
            found = self._reported[finding.path] = (
                profile.codes, profile.settings.ignored_codes(finding.path))
        codes, ignored = found
        if finding.code not in codes:
            return False
        return not (ignored and code_ignored(finding.code, ignored))

    def _build(self, settings: Settings) -> Profile:
        rules = rules_from([*settings.rule_dirs, *self.rule_dirs])
        known = [r.code for r in rules] + list(FILE_DIAGNOSTIC_CODES)
        check_selectors(settings, known)
        for option, values in zip(("--select", "--extend-select", "--ignore"), self.cli):
            for value in values or ():
                if not matching_codes(value, known):
                    raise ConfigError(f"{option}: {unknown_selector(value)}")
        defaults = default_codes(rules, settings.target)
        codes = frozenset(select_codes(known, defaults, settings.select, settings.extend_select,
                                       settings.ignore, cli=self.cli))
        enabled = [r for r in rules if r.code in codes]
        key = (rules_fingerprint(enabled), tuple(sorted(codes)), settings.max_file_size)
        return Profile(settings, rules, Engine(enabled), codes, key)
