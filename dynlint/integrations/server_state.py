"""What `dynlint server` knows about a workspace, without any LSP: one `Folder` per workspace
folder, each judging files as `dynlint check` run from that folder does (its own Resolver and
Plan, so per-file config, per-file-ignores and selection are the CLI's), and keeping every
file's cross-file facts warm so that an edit costs one file's analysis.

Facts come from the open documents' in-memory text, else from disk (through the same
`.dynlint_cache` that `dynlint check` fills, so a checked project loads quickly). As for
`dynlint check FILE`, the project is the repository (project/scope.py), not the folder: a
document's project files outside the folder (the folder is a sub-directory of the repository,
or the document lies outside every folder) give their facts from the scopes pre-pass, as the
CLI's cross-file step reads them (crossfile.project_facts), once per project.
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from ..crossfile import project_facts
from ..plan import Plan
from ..project import notebook, source
from ..project.cache import Cache, content_hash
from ..project.config import ConfigError
from ..project.discover import discover
from ..project.resolve import Resolver
from ..project.scope import project_root
from ..result_json import result_from_json, result_to_json
from ..runner import analyse_source, module_name, resolve_cross_file


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class Folder:
    """One workspace folder. `load` walks it once (lazily, after the first document opened in it
    has been published); `loose` folders (files outside every folder) never walk anything."""

    def __init__(self, root: str, loose: bool = False):
        self.root = os.path.abspath(root)
        self.loose = loose
        self.plan = Plan(Resolver(cwd=Path(self.root)))
        self.isolated = Plan(Resolver(isolated=True, cwd=Path(self.root)))
        self.facts: dict = {}             # absolute path -> FileFacts
        self.walked: set[str] = set()     # the folder's own files (none for a loose folder)
        self.beyond: dict[str, list] = {}  # project root -> facts of its files not walked
        self.loaded = False
        self.any_conditional = False

    def needs_load(self, paths) -> bool:
        """Whether `load` has anything to read for these open documents."""
        return not self.loaded or any(self._project_to_read(p) for p in paths)

    def _project_to_read(self, path: str) -> str | None:
        root = project_root(path)
        if root is None or root in self.beyond or (not self.loose and _inside(root, self.root)):
            return None                   # no project, read already, or the walk covers it
        return root

    def profile_for(self, path: str):
        """(profile, error message or None): a broken config falls back to the defaults."""
        try:
            return self.plan.profile_for(path), None
        except ConfigError as exc:
            return self.isolated.profile_for(path), str(exc)

    def load(self, skip=()) -> int:
        """Read the facts of every file in the folder but `skip` (open documents, whose facts
        come from their text), then those of the documents' projects beyond the folder; the
        number of files read."""
        read = 0 if self.loaded else self._walk(skip)
        self.loaded = True
        for path in skip:
            root = self._project_to_read(path)
            if root is not None:
                named = self.walked | set(skip)
                self.beyond[root] = project_facts([path], named, self.plan)
                read += len(self.beyond[root])
        return read

    def _walk(self, skip) -> int:
        if self.loose:
            return 0
        try:
            files, _ = discover([self.root], self.plan.resolver, False)
        except (ConfigError, OSError):
            return 0
        caches: dict = {}
        read = 0
        for path in files:
            path = os.path.abspath(path)
            self.walked.add(path)
            if path.endswith(notebook.SUFFIX) or path in skip:
                continue                          # notebooks take no part in the cross-file step
            read += 1
            try:
                profile = self.plan.profile_for(path)
            except ConfigError:
                continue
            cache = caches.get(id(profile))
            if cache is None:
                cache = caches[id(profile)] = Cache(
                    profile.settings.cache_path(), profile.cache_key + (True,),
                    result_to_json, result_from_json)
            result = cache.lookup(path, path)
            if result is None:
                try:
                    data, stat = source.read_bytes(path, path, profile.settings.max_file_size)
                    text = source.decode(data, path)
                except source.SourceError:
                    continue
                result = analyse_source(profile.engine, text, path, module_name(path))
                cache.store(path, stat, content_hash(data), result)
            self.set_facts(path, result[1])
        for cache in caches.values():
            cache.save()
        return read

    def set_facts(self, path: str, facts) -> None:
        if facts is None or not (facts.exports or facts.model_refs or facts.conditional):
            self.facts.pop(path, None)
        else:
            if facts.conditional and facts.conditional[0][1].path != path:
                facts.conditional = [(n, dataclasses.replace(f, path=path))
                                     for n, f in facts.conditional]
            self.facts[path] = facts
        self.any_conditional = any(f.conditional for f in self.facts.values())

    def reload_from_disk(self, path: str) -> None:
        """A file changed (or went away) on disk and is not open in the editor."""
        if self.loose or not path.endswith((".py", ".pyi")):
            return
        try:
            profile = self.plan.profile_for(path)
            data, _ = source.read_bytes(path, path, profile.settings.max_file_size)
            text = source.decode(data, path)
        except (ConfigError, OSError, source.SourceError):
            self.set_facts(path, None)
            return
        self.set_facts(path, analyse_source(profile.engine, text, path, module_name(path))[1])

    def analyse(self, path: str, text: str) -> tuple[list, str | None]:
        """(this file's own findings, config error) for the document's text; updates its facts."""
        profile, error = self.profile_for(path)
        absolute = os.path.isabs(path)
        found, facts = analyse_source(profile.engine, text, path,
                                      module_name(path) if absolute else None)
        if absolute:
            self.set_facts(path, facts)
        return list(found), error

    def cross_file(self) -> dict:
        """{path: findings that model code in other files makes reportable}."""
        if not self.any_conditional:
            return {}
        out: dict = {}
        known = list(self.facts.values()) + [f for fs in self.beyond.values() for f in fs]
        for f in resolve_cross_file(known):
            out.setdefault(f.path, []).append(f)
        return out

    def report(self, path: str, own: list, cross: dict) -> list:
        """What `dynlint check` reports for the file: its findings plus the cross-file ones,
        filtered by the file's selection and per-file-ignores, sorted."""
        found = own + cross.get(path, [])
        try:
            found = [f for f in found if self.plan.keep(f)]
        except ConfigError:
            found = [f for f in found if self.isolated.keep(f)]
        found.sort(key=lambda f: f.sort_key)
        return found

    def rules(self) -> list:
        return self.plan.enabled_rules() + self.isolated.enabled_rules()


class Workspace:
    """The folders of a (multi-root) workspace; a file belongs to the innermost folder."""

    def __init__(self):
        self.roots: list[str] = []
        self.folders: dict[str, Folder] = {}

    def set_roots(self, roots) -> None:
        self.roots = sorted({os.path.abspath(r) for r in roots}, key=len, reverse=True)
        self.folders = {r: f for r, f in self.folders.items() if r in self.roots or f.loose}

    def folder_for(self, path: str) -> Folder:
        path = os.path.abspath(path)
        root = next((r for r in self.roots if _inside(path, r)), None)
        loose = root is None
        if loose:
            root = os.path.dirname(path)
        folder = self.folders.get(root)
        if folder is None:
            folder = self.folders[root] = Folder(root, loose=loose)
        return folder

    def reset(self) -> None:
        """Forget every resolved setting and fact: a config file changed."""
        self.folders = {}
