"""Path patterns with gitignore semantics (pathspec), each relative to its own directory.

Exclusions come from several places that each have a base directory: a config file's
`exclude` (relative to the config file), the command line (relative to the current
directory), every `.gitignore` (relative to its directory). `Patterns` keeps them in order
and applies git's rule: the last pattern that matches decides, and `!pattern` re-includes.

A pattern without a `/` (`build`, `*.egg-info`) matches a name at any depth below its base;
one with a `/` (`tests/fixtures`, `src/**/gen_*.py`) is anchored to its base. Directories
above the base are never looked at, so a project that happens to live in `~/build/` is not
excluded by the default `build` pattern.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field


def _anchored(pattern: str) -> bool:
    body = pattern[1:] if pattern.startswith("!") else pattern
    return "/" in body.rstrip("/")


@dataclass
class _Group:
    """Consecutive patterns sharing a base directory, compiled once."""
    base: str
    texts: list[str]
    spec: object = None                     # pathspec.GitIgnoreSpec
    loose: object = None                    # the unanchored ones, for paths outside `base`

    def compile(self):
        from pathspec import GitIgnoreSpec  # imported on first use: ~40 ms
        self.spec = GitIgnoreSpec.from_lines(self.texts)
        self.loose = GitIgnoreSpec.from_lines([t for t in self.texts if not _anchored(t)])


@dataclass
class Patterns:
    groups: list[_Group] = field(default_factory=list)
    negated: bool = False                 # any `!pattern`: excluded directories may hold includes

    def extend(self, base, texts) -> "Patterns":
        """A new Patterns with `texts` (relative to `base`) after these."""
        texts = [t.strip() for t in texts if t.strip() and not t.lstrip().startswith("#")]
        if not texts:
            return self
        base = os.path.abspath(base)
        groups = list(self.groups)
        if groups and groups[-1].base == base:
            groups[-1] = _Group(base, groups[-1].texts + texts)
        else:
            groups.append(_Group(base, texts))
        groups[-1].compile()
        return Patterns(groups, self.negated or any(t.startswith("!") for t in texts))

    def verdict(self, path: str, is_dir: bool = False) -> bool | None:
        """True if excluded, False if re-included by a `!pattern`, None if nothing matched."""
        if not self.groups:
            return None
        path = os.path.abspath(path)
        result = None
        for group in self.groups:
            rel = os.path.relpath(path, group.base) if path != group.base else "."
            if rel == "." or rel.startswith(".." + os.sep) or rel == ".." or os.path.isabs(rel):
                spec, rel = group.loose, os.path.basename(path)
            else:
                spec = group.spec
            if not rel or rel == ".":
                continue
            rel = rel.replace(os.sep, "/") + ("/" if is_dir else "")
            hit = spec.check_file(rel).include
            if hit is not None:
                result = hit
        return result

    def excludes(self, path: str, is_dir: bool = False) -> bool:
        return bool(self.verdict(path, is_dir))

    def describe(self) -> list[str]:
        return [f"{t}  (relative to {g.base})" for g in self.groups for t in g.texts]


# -- git ----------------------------------------------------------------------------------------
def repo_root(directory: str) -> str | None:
    """The nearest directory at or above `directory` holding `.git` (a directory, or the file a
    worktree or submodule has). Like ruff (and git), .gitignore files only count inside a repo."""
    d = os.path.abspath(directory)
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _read_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read().splitlines()
    except OSError:
        return []


def gitignore_for(directory: str, inherited: Patterns | None) -> Patterns:
    """The gitignore patterns in force inside `directory`, given its parent's (`inherited`,
    None when the parent was not computed: then every ancestor up to the repo root is read)."""
    directory = os.path.abspath(directory)
    if os.path.exists(os.path.join(directory, ".git")):
        # A repository root (or a nested repository: a submodule starts afresh).
        patterns = Patterns().extend(directory, _info_exclude(directory))
        return patterns.extend(directory, _read_lines(os.path.join(directory, ".gitignore")))
    if inherited is None:
        root = repo_root(directory)
        if root is None:
            return Patterns()
        chain = []
        d = directory
        while d != root:
            chain.append(d)
            d = os.path.dirname(d)
        inherited = gitignore_for(root, None)
        for d in reversed(chain[1:]):
            inherited = inherited.extend(d, _read_lines(os.path.join(d, ".gitignore")))
    return inherited.extend(directory, _read_lines(os.path.join(directory, ".gitignore")))


def _info_exclude(root: str) -> list[str]:
    git = os.path.join(root, ".git")
    if os.path.isfile(git):                      # worktree / submodule: "gitdir: <path>"
        text = "".join(_read_lines(git)[:1])
        if text.startswith("gitdir:"):
            git = os.path.join(root, text.split(":", 1)[1].strip())
    return _read_lines(os.path.join(git, "info", "exclude"))
