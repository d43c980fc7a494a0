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

import functools
import os
import re
from dataclasses import dataclass, field


def _anchored(pattern: str) -> bool:
    body = pattern[1:] if pattern.startswith("!") else pattern
    return "/" in body.rstrip("/")


@dataclass
class _Group:
    """Consecutive patterns sharing a base directory, compiled once."""
    base: str
    texts: list[str]
    spec: object = None                     # a matcher for paths below `base`
    loose: object = None                    # the unanchored ones, for paths outside `base`
    prefix: str = ""                        # `base` with one trailing separator

    def compile(self):
        self.spec = _matcher(tuple(self.texts))
        self.loose = _matcher(tuple(t for t in self.texts if not _anchored(t)))
        self.prefix = self.base.rstrip(os.sep) + os.sep


@functools.lru_cache(maxsize=256)
def _matcher(texts: tuple):
    """`check(path) -> True/False/None` with git's semantics. Without negations, any match
    excludes, so pathspec's patterns are joined into one regex (one search per path instead
    of one per pattern: the walk asks for every file and directory)."""
    names, dir_names, others = [], [], []
    if all(map(_PLAIN_NAME.fullmatch, texts)):
        # Plain names such as the default excludes (`build`, `*.egg-info`): the regex pathspec
        # would build, without importing it (~40 ms of a warm run).
        names = [re.escape(t).replace(r"\*", "[^/]*") for t in texts]
    else:
        from pathspec import GitIgnoreSpec      # imported on first use: ~40 ms
        spec = GitIgnoreSpec.from_lines(texts)
        patterns = [p for p in spec.patterns if p.include is not None]
        if any(not p.include for p in patterns):
            return lambda path: spec.check_file(path).include
        if not patterns:
            return lambda path: None
        # A name pattern (`build`, `*.egg-info`, `logs/`) matches a path when one of its
        # components matches: test the components against one regex of all the names.
        for p in patterns:
            m = _NAME_RE.fullmatch(p.regex.pattern)
            if m is None or "/" in m["name"].replace("[^/]", "") or "(" in m["name"]:
                others.append(p.regex.pattern)
            else:
                (dir_names if m["dir"] else names).append(m["name"])
    any_name = re.compile("|".join(names)).fullmatch if names else None
    dir_name = re.compile("|".join(dir_names)).fullmatch if dir_names else None
    # Named groups (pathspec marks directory matches with one) would clash when joined.
    search = re.compile("|".join(f"(?:{re.sub(r'[(][?]P<[^>]+>', '(?:', r)})"
                                 for r in others)).search if others else None

    def check(path):
        parts = path.split("/")
        if parts[-1] == "":               # a directory: "a/b/"
            parts.pop()
            dirs = parts
        else:
            dirs = parts[:-1]
        if any_name is not None and any(any_name(c) for c in parts):
            return True
        if dir_name is not None and any(dir_name(c) for c in dirs):
            return True
        if search is not None and search(path):
            return True
        return None
    return check


# A name without a slash, escape or character class, with single `*`s only (`**` and a lone
# `*` or `.` mean more to git), matching files and directories alike.
_PLAIN_NAME = re.compile(r"(?![.*]*$)(?!.*[*][*])[A-Za-z0-9_.+*-][A-Za-z0-9_.+*~-]*")

# pathspec's regex for a pattern without a slash: `^(?:.+/)?NAME(?:(?P<ps_d>/)|$)`, or
# `^(?:.+/)?NAME(?P<ps_d>/)` for a directory-only `NAME/`.
_NAME_RE = re.compile(r"\^\(\?:\.\+/\)\?(?P<name>.+?)"
                      r"(?:\(\?:\(\?P<ps_d>/\)\|\$\)|(?P<dir>\(\?P<ps_d>/\)))")


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

    def verdict(self, path: str, is_dir: bool = False, floor: str | None = None) -> bool | None:
        """True if excluded, False if re-included by a `!pattern`, None if nothing matched.

        `floor` is a directory the user named although it is excluded (a virtualenv's
        site-packages, a git-ignored folder): as in ruff, naming it overrides what excludes it
        and its ancestors, so below it only name patterns count, judged from the floor down."""
        if not self.groups:
            return None
        path = os.path.abspath(path)
        floor = floor.rstrip(os.sep) + os.sep if floor else None
        result = None
        for group in self.groups:
            base = group.prefix
            if path + os.sep == base:
                continue                  # the base itself: patterns are about what is below
            if floor is not None and floor.startswith(base) and path.startswith(floor):
                check, rel = group.loose, path[len(floor):]
            elif path.startswith(base):
                check, rel = group.spec, path[len(base):]
            else:
                check, rel = group.loose, os.path.basename(path)
            if not rel:
                continue
            if os.sep != "/":
                rel = rel.replace(os.sep, "/")
            hit = check(rel + "/" if is_dir else rel)
            if hit is not None:
                result = hit
        return result

    def excludes(self, path: str, is_dir: bool = False, floor: str | None = None) -> bool:
        return bool(self.verdict(path, is_dir, floor))

    def in_directory(self, directory: str, floor: str | None = None):
        """`excludes(name, is_dir)` for the entries of `directory`: the same answers as
        `excludes(join(directory, name), is_dir, floor)`, with what depends only on the
        directory worked out once (the walk asks for every file and subdirectory)."""
        if not self.groups:
            return _never
        d = os.path.abspath(directory).rstrip(os.sep) + os.sep
        floor = floor.rstrip(os.sep) + os.sep if floor else None
        # An entry's path is `d + name`; as `name` holds no separator, it starts with a
        # prefix ending in a separator exactly when `d` does.
        plan = []
        for group in self.groups:
            base = group.prefix
            itself = base[len(d):-1] if base.startswith(d) else None   # path + sep == base
            if floor is not None and floor.startswith(base) and d.startswith(floor):
                plan.append((group.loose, d[len(floor):], itself))
            elif d.startswith(base):
                plan.append((group.spec, d[len(base):], itself))
            else:
                plan.append((group.loose, "", itself))       # the basename: the name itself
        if os.sep != "/":
            plan = [(check, rel.replace(os.sep, "/"), itself) for check, rel, itself in plan]

        def excludes(name: str, is_dir: bool = False) -> bool:
            result = None
            for check, rel, itself in plan:
                if name == itself:
                    continue
                hit = check(rel + name + "/" if is_dir else rel + name)
                if hit is not None:
                    result = hit
            return bool(result)
        return excludes

    def describe(self) -> list[str]:
        return [f"{t}  (relative to {g.base})" for g in self.groups for t in g.texts]


def _never(name: str, is_dir: bool = False) -> bool:
    return False


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


OUTSIDE_REPO = Patterns()          # the (empty) answer for a directory in no git repository


def gitignore_for(directory: str, inherited: Patterns | None, names=None) -> Patterns:
    """The gitignore patterns in force inside `directory`, given its parent's (`inherited`,
    None when the parent was not computed: then every ancestor up to the repo root is read).
    Outside a repository (OUTSIDE_REPO) no .gitignore file is read, as git and ruff do.
    `names`, the directory's entries when the caller has listed it, saves looking for
    `.git` and `.gitignore` where they are not."""
    directory = os.path.abspath(directory)
    if (names is None or ".git" in names) and os.path.exists(os.path.join(directory, ".git")):
        # A repository root (or a nested repository: a submodule starts afresh).
        patterns = Patterns().extend(directory, _info_exclude(directory))
        return patterns.extend(directory, _read_lines(os.path.join(directory, ".gitignore")))
    if inherited is None:
        root = repo_root(directory)
        if root is None:
            return OUTSIDE_REPO
        chain = []
        d = directory
        while d != root:
            chain.append(d)
            d = os.path.dirname(d)
        inherited = gitignore_for(root, None)
        for d in reversed(chain[1:]):
            inherited = inherited.extend(d, _read_lines(os.path.join(d, ".gitignore")))
    if inherited is OUTSIDE_REPO:
        return OUTSIDE_REPO
    if names is not None and ".gitignore" not in names:
        return inherited
    return inherited.extend(directory, _read_lines(os.path.join(directory, ".gitignore")))


def _info_exclude(root: str) -> list[str]:
    git = os.path.join(root, ".git")
    if os.path.isfile(git):                      # worktree / submodule: "gitdir: <path>"
        text = "".join(_read_lines(git)[:1])
        if text.startswith("gitdir:"):
            git = os.path.join(root, text.split(":", 1)[1].strip())
    return _read_lines(os.path.join(git, "info", "exclude"))
