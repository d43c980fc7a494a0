"""Which settings apply to a file, the way ruff decides it.

Each file gets the closest config file at or above its directory: a `dynlint.toml`, or a
`pyproject.toml` with a `[tool.dynlint]` table (a `dynlint.toml` wins in the same directory,
as `ruff.toml` does). Its patterns are relative to that config file's directory, so the
same file gets the same settings whether the run starts in the project root, a subdirectory
or above the project. A file with no config above it gets the settings found from the
current directory upwards, else the defaults. `--config FILE` gives every file that one
config; `--isolated` the defaults. Command-line overrides apply on top of every config.
"""
from __future__ import annotations

import os
from pathlib import Path

from .config import CONFIG_NAMES, ConfigError, Settings, dynlint_table, settings_from


class Resolver:
    def __init__(self, config: Path | None = None, overrides=(), isolated: bool = False,
                 cwd: Path | None = None):
        self.cwd = Path(cwd or Path.cwd()).resolve()
        self.overrides = list(overrides)          # [(table, origin)], applied in order
        self._by_dir: dict[str, Settings] = {}
        self._by_file: dict[str, Settings] = {}
        self._fallback: Settings | None = None
        self.fixed: Settings | None = None
        if isolated:
            self.fixed = settings_from(None, {}, "", self.cwd, self.overrides)
        elif config is not None:
            config = Path(config)
            if not config.is_file():
                raise ConfigError(f"--config {config}: no such file")
            found = dynlint_table(config)
            table, text = found if found is not None else ({}, "")
            self.fixed = settings_from(config, table, text, self.cwd, self.overrides)

    def settings_for(self, path) -> Settings:
        """The settings for a file (or a directory's own entries, for a directory)."""
        if self.fixed is not None:
            return self.fixed
        path = os.path.abspath(path)
        return self._in_dir(path if os.path.isdir(path) else os.path.dirname(path))

    def settings_for_dir(self, directory) -> Settings:
        if self.fixed is not None:
            return self.fixed
        return self._in_dir(os.path.abspath(directory))

    def _in_dir(self, directory: str) -> Settings:
        """`settings_for_dir` of an absolute, normalised directory."""
        found = self._by_dir.get(directory)
        if found is not None:
            return found
        chain = []
        d = directory
        while True:
            if d in self._by_dir:
                found = self._by_dir[d]
                break
            chain.append(d)
            found = self._config_in(d)
            if found is not None:
                break
            parent = os.path.dirname(d)
            if parent == d:
                found = self.fallback()
                break
            d = parent
        for c in chain:
            self._by_dir[c] = found
        return found

    def fallback(self) -> Settings:
        """For files with no config above them: the current directory's settings."""
        if self._fallback is None:
            d = str(self.cwd)
            while True:
                found = self._config_in(d)
                if found is not None:
                    break
                parent = os.path.dirname(d)
                if parent == d:
                    found = settings_from(None, {}, "", self.cwd, self.overrides)
                    break
                d = parent
            self._fallback = found
        return self._fallback

    def _config_in(self, directory: str) -> Settings | None:
        for name in CONFIG_NAMES:
            path = os.path.join(directory, name)
            if not os.path.isfile(path):
                continue
            if path in self._by_file:
                return self._by_file[path]
            found = dynlint_table(Path(path))         # invalid TOML: ConfigError, exit 2
            if found is None:
                continue                               # a pyproject.toml without [tool.dynlint]
            table, text = found
            settings = self._by_file[path] = settings_from(Path(path), table, text, self.cwd,
                                                           self.overrides)
            return settings
        return None

    def all_settings(self) -> list[Settings]:
        """Every distinct settings object resolved so far."""
        seen = {}
        for s in [self.fixed, self._fallback, *self._by_file.values(), *self._by_dir.values()]:
            if s is not None:
                seen[id(s)] = s
        return list(seen.values())


def load_settings(config: Path | None = None, isolated: bool = False,
                  cwd: Path | None = None) -> Settings:
    """The settings for the current directory (for the API and the flake8 plugin): `config`,
    else the nearest config file from `cwd` upwards, else the defaults."""
    cwd = Path(cwd or Path.cwd())
    return Resolver(config=config, isolated=isolated, cwd=cwd).settings_for_dir(cwd)
