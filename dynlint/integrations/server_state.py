"""What `dynlint server` knows about a workspace, without any LSP: one `Folder` per workspace
folder, each judging files as `dynlint check` run from that folder does (its own Resolver and
Plan, so per-file config, per-file-ignores and selection are the CLI's), and keeping every
file's cross-file facts warm so that an edit costs one file's analysis.

The open documents are the files named, as in `dynlint check A B`: their facts come from
their unsaved text, and the CLI's cross-file step (runner.cross_file_step: summaries across
files to a fixed point, then reachability) runs over them with the facts of every other file
of the folder and of the documents' projects (crossfile.project_facts, read once, cached by
content in the `.dynlint_cache` that `dynlint check` fills). As for `dynlint check FILE`, the
project is the repository (project/scope.py), not the folder: project files outside the
folder (the folder is a sub-directory of the repository, or the document lies outside every
folder) count too.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..check.crossfile import project_facts
from ..check.plan import Plan
from ..project.cache import Configurations
from ..project.config import ConfigError
from ..project.discover import discover
from ..project.resolve import Resolver
from ..project.scope import project_root
from ..check.result_json import blob_refs, entry_from_json, entry_to_json
from ..check.runner import analyse_source, cross_file_step, module_name


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
        # The cache of the summaries' walks (as `dynlint check`'s results cache).
        self.configs = Configurations(True, (True,), entry_to_json, entry_from_json, blob_refs)
        self.docs: dict = {}              # path -> (text, facts, own findings, profile)
        self.facts: dict = {}             # absolute path -> FileFacts on disk (not walked)
        self.walked: set[str] = set()     # the folder's own files (none for a loose folder)
        self.beyond: set[str] = set()     # roots of projects beyond the folder, read
        self.loaded = False

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

    def load(self, paths=()) -> int:
        """Read the facts of every file in the folder, then those of the projects of `paths`
        (open documents) beyond it; the number of files read. An open document's facts on disk
        are kept too, for when it is closed."""
        read = 0
        if not self.loaded and not self.loose:
            try:
                files, _ = discover([self.root], self.plan.resolver, False)
            except (ConfigError, OSError):
                files = []
            self.walked = {os.path.abspath(f) for f in files}
            read += self._read([], self.walked)
        self.loaded = True
        for path in paths:
            root = self._project_to_read(path)
            if root is not None:
                self.beyond.add(root)
                read += self._read([path], None)
        return read

    def _read(self, paths, files) -> int:
        """Facts of `files`, or of the files of the projects of `paths` not walked."""
        found: list = []
        for plan in (self.plan, self.isolated):
            try:
                found = project_facts(paths, self.walked, plan, files=files)
                break
            except ConfigError:
                continue
        for facts in found:
            self.facts[facts.origin] = facts
        return len(found)

    def reload_from_disk(self, path: str) -> None:
        """A file changed (or went away) on disk, or its document was closed."""
        if not self.loaded or not path.endswith((".py", ".pyi")):
            return
        self.facts.pop(path, None)
        self._read([], [path])

    def analyse(self, path: str, text: str) -> tuple[list, str | None]:
        """(this file's own findings, config error) for the document's text; the document is
        one of the files named until `close`."""
        profile, error = self.profile_for(path)
        absolute = os.path.isabs(path)
        found, facts = analyse_source(profile.engine, text, path,
                                      module_name(path) if absolute else None)
        if facts is not None:
            facts.origin = path
        self.docs[path] = (text, facts, list(found), profile)
        return list(found), error

    def close(self, path: str) -> None:
        self.docs.pop(path, None)
        self.reload_from_disk(path)       # back to what is on disk

    def reports(self) -> dict:
        """{path of an open document: what `dynlint check` reports for it, given the open
        documents' text}: their findings plus the cross-file ones, filtered by each file's
        selection and per-file-ignores, sorted."""
        named, found_in, texts, findings = [], {}, {}, []
        for path, (text, facts, own, profile) in self.docs.items():
            findings.extend(own)
            if facts is not None and (facts.exports or facts.model_refs or facts.conditional
                                      or facts.summarises()):
                named.append(facts)
                found_in[path] = (path, profile, own)
                texts[path] = text
        if any(facts.conditional or facts.demands or facts.neutral for facts in named):
            others = [f for p, f in self.facts.items() if p not in self.docs]
            findings = cross_file_step(named, others, found_in, findings, self.configs, texts)
        out: dict = {path: [] for path in self.docs}
        for f in findings:
            if f.path in out and self._keep(f):
                out[f.path].append(f)
        for found in out.values():
            found.sort(key=lambda f: f.sort_key)
        return out

    def _keep(self, finding) -> bool:
        try:
            return self.plan.keep(finding)
        except ConfigError:
            return self.isolated.keep(finding)

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
