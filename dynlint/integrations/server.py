"""`dynlint server`: the checker as a Language Server (LSP over stdio, pygls).

Diagnostics come from the editor's in-memory text on open, change and save; code actions
offer the finding's fix (safe or unsafe, titled as such) and `# noqa: CODE`; hover shows the
rule's summary. The workspace's cross-file facts are computed once and only the edited
file's facts are recomputed on change; the open documents, with their unsaved text, are the
files named of the CLI's cross-file step (summaries across files to a fixed point, then
reachability). Nothing a document contains may stop the server: syntax errors are
diagnostics, internal errors are logged and the server keeps running.
"""
from __future__ import annotations

import gc
import os
import time
import traceback
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..fix.splice import rewrite
from ..project.config import CONFIG_NAMES
from .lsp_text import finding_range, noqa_edit, whole_document_edit
from .server_state import Workspace

SOURCE = "dynlint"
SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
            "info": types.DiagnosticSeverity.Information}
# docs/rules.md in a clone (or an editable install); no made-up web address otherwise.
_RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
_RULES_URI = _RULES_DOC.as_uri() if _RULES_DOC.is_file() else None
# Files whose change can change what is reported: config files and .gitignore (discovery).
_SETTINGS_FILES = (*CONFIG_NAMES, ".gitignore")


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


class DynlintServer(LanguageServer):
    def __init__(self):
        super().__init__("dynlint", __version__)
        self.state = Workspace()
        self.own = {}                # uri -> the document's own findings (before cross-file)
        self.findings = {}           # uri -> findings last published
        self.errors = set()          # config errors already shown

    def folder_roots(self) -> list:
        roots = [uri_to_path(f.uri) for f in self.workspace.folders.values()]
        if not roots and self.workspace.root_path:
            roots = [self.workspace.root_path]
        return roots

    def folder_for(self, path: str):
        roots = self.folder_roots()
        if roots != self.state.roots:
            self.state.set_roots(roots)
        return self.state.folder_for(path)

    def check(self, uri: str, text: str) -> list:
        """This document's findings, as `dynlint check` reports them for the same text; other
        open documents whose findings changed are published again."""
        path = uri_to_path(uri)
        if os.path.isabs(path):
            path = os.path.abspath(path)
        folder = self.folder_for(path)
        own, error = folder.analyse(path, text)
        if error and error not in self.errors:
            self.errors.add(error)
            self.window_show_message(types.ShowMessageParams(types.MessageType.Error, error))
        self.own[uri] = own
        reports = folder.reports()
        self.publish_changed(folder, reports, skip=uri)
        return reports.get(path, own)

    def publish_changed(self, folder, reports: dict, skip=None) -> None:
        """Publish again the open documents of `folder` whose findings changed (an edit of a
        helper changes what its callers' summaries say, or which helpers model code reaches)."""
        for other in list(self.own):
            if other == skip:
                continue
            other_path = os.path.abspath(uri_to_path(other))
            report = reports.get(other_path)
            if report is not None and report != self.findings.get(other) and \
                    self.state.folder_for(other_path) is folder:
                self.send(other, report, self.workspace.get_text_document(other).version)

    def send(self, uri: str, found: list, version=None) -> None:
        self.findings[uri] = found
        document = self.workspace.get_text_document(uri)
        lines = document.source.splitlines()
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=version, diagnostics=[diagnostic(f, lines) for f in found]))

    def refresh_all(self) -> None:
        """Settings changed: re-resolve them and re-check every open document."""
        self.state.reset()
        self.errors.clear()
        for uri in list(self.own):
            publish(self, uri)

    def rules(self) -> list:
        return [r for folder in self.state.folders.values() for r in folder.rules()]


server = DynlintServer()


def diagnostic(finding, lines) -> types.Diagnostic:
    description = None
    if _RULES_URI:
        description = types.CodeDescription(href=f"{_RULES_URI}#{finding.code.lower()}")
    return types.Diagnostic(
        range=finding_range(finding, lines), message=finding.message,
        severity=SEVERITY.get(finding.severity, types.DiagnosticSeverity.Warning),
        code=finding.code, code_description=description, source=SOURCE,
        data={"name": finding.name})


def publish(ls: DynlintServer, uri: str) -> None:
    try:
        document = ls.workspace.get_text_document(uri)
        found = ls.check(uri, document.source)
        ls.send(uri, found, document.version)
        path = uri_to_path(uri)
        if os.path.isabs(path):
            warm(ls, ls.folder_for(path))
    except Exception:        # a bug in dynlint: tell the client, keep serving
        ls.window_log_message(types.LogMessageParams(
            types.MessageType.Error, f"dynlint: {uri}: {traceback.format_exc()}"))


def warm(ls: DynlintServer, folder) -> None:
    """After a document's own diagnostics are out (so the editor shows them at once), once per
    folder and per project of its documents: read every file's cross-file facts, then publish
    again the open documents whose findings that changes."""
    paths = [os.path.abspath(uri_to_path(u)) for u in ls.own]
    paths = [p for p in paths if ls.state.folder_for(p) is folder]
    if not folder.needs_load(paths):
        return
    start = time.perf_counter()
    read = folder.load(paths)
    ls.publish_changed(folder, folder.reports())
    # The facts just read live as long as the server: the cyclic GC need not scan them again
    # during every edit's analysis (a fifth of a BERT edit's CPU). What is freed later is
    # freed by reference counting; facts hold no cycles.
    gc.freeze()
    ls.window_log_message(types.LogMessageParams(types.MessageType.Info, (
        f"dynlint: cross-file facts of {read} files in {folder.root} loaded in "
        f"{time.perf_counter() - start:.1f} s")))


@server.feature(types.INITIALIZED)
def initialized(ls: DynlintServer, params: types.InitializedParams):
    """Ask the client to tell us when config files change (if it can register watchers)."""
    caps = ls.client_capabilities
    watched = caps and caps.workspace and caps.workspace.did_change_watched_files
    if not (watched and watched.dynamic_registration):
        return
    watchers = [types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in _SETTINGS_FILES]
    watchers.append(types.FileSystemWatcher(glob_pattern="**/*.py"))
    ls.client_register_capability(types.RegistrationParams(registrations=[types.Registration(
        id="dynlint-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))]))


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: DynlintServer, params: types.DidChangeWatchedFilesParams):
    paths = [os.path.abspath(uri_to_path(c.uri)) for c in params.changes]
    if any(os.path.basename(p) in _SETTINGS_FILES for p in paths):
        ls.refresh_all()
        return
    open_paths = {os.path.abspath(uri_to_path(u)) for u in ls.own}
    changed = False
    for path in paths:
        if path not in open_paths and path.endswith((".py", ".pyi")):
            folder = ls.folder_for(path)
            if folder.loaded:
                folder.reload_from_disk(path)
                changed = True
    if changed:        # another file's model code may now reach (or no longer reach) a helper
        for uri in list(ls.own):
            publish(ls, uri)


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
def did_change_folders(ls: DynlintServer, params: types.DidChangeWorkspaceFoldersParams):
    ls.refresh_all()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: DynlintServer, params: types.DidOpenTextDocumentParams):
    document = params.text_document
    # Editors may send every open file (a pyproject.toml too): check Python only.
    if document.language_id == "python" or uri_to_path(document.uri).endswith((".py", ".pyi")):
        ls.own[document.uri] = []
        publish(ls, document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: DynlintServer, params: types.DidChangeTextDocumentParams):
    if params.text_document.uri in ls.own:
        publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: DynlintServer, params: types.DidSaveTextDocumentParams):
    if os.path.basename(uri_to_path(params.text_document.uri)) in _SETTINGS_FILES:
        ls.refresh_all()            # the editor saved a config file
    elif params.text_document.uri in ls.own:
        publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: DynlintServer, params: types.DidCloseTextDocumentParams):
    uri = params.text_document.uri
    ls.findings.pop(uri, None)
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    if ls.own.pop(uri, None) is not None:
        path = uri_to_path(uri)
        if os.path.isabs(path):
            path = os.path.abspath(path)
        folder = ls.folder_for(path)
        try:
            folder.close(path)          # its unsaved text no longer counts: what is on disk does
            ls.publish_changed(folder, folder.reports())
        except Exception:
            ls.window_log_message(types.LogMessageParams(
                types.MessageType.Error, f"dynlint: closing {uri}: {traceback.format_exc()}"))


def _overlaps(finding, rng: types.Range) -> bool:
    start = (finding.line - 1, finding.column - 1)
    end = (finding.end_line - 1, finding.end_column - 1)
    return start <= (rng.end.line, rng.end.character) and \
        (rng.start.line, rng.start.character) <= end


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
    code_action_kinds=[types.CodeActionKind.QuickFix]))
def code_action(ls: DynlintServer, params: types.CodeActionParams):
    uri = params.text_document.uri
    try:
        text = ls.workspace.get_text_document(uri).source
        actions = []
        for finding in ls.findings.get(uri, []):
            if not _overlaps(finding, params.range):
                continue
            diag = [diagnostic(finding, text.splitlines())]
            fix = finding.fix
            if fix is not None and fix.applicability in ("safe", "unsafe"):
                new, applied, _ = rewrite(text, [fix])
                if applied and new != text:
                    title = f"{finding.code}: {fix.description}"
                    if fix.applicability == "unsafe":
                        title += " (unsafe fix)"
                    actions.append(types.CodeAction(
                        title=title, kind=types.CodeActionKind.QuickFix, diagnostics=diag,
                        is_preferred=fix.applicability == "safe",
                        edit=types.WorkspaceEdit(changes={uri: [whole_document_edit(text, new)]})))
            edit = noqa_edit(text, finding)
            if edit is not None and not finding.code.startswith("DYN9"):
                actions.append(types.CodeAction(
                    title=f"{finding.code}: add # noqa: {finding.code} to this line",
                    kind=types.CodeActionKind.QuickFix, diagnostics=diag,
                    edit=types.WorkspaceEdit(changes={uri: [edit]})))
        return actions
    except Exception:
        ls.window_log_message(types.LogMessageParams(
            types.MessageType.Error, f"dynlint: code actions for {uri}: {traceback.format_exc()}"))
        return []


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: DynlintServer, params: types.HoverParams):
    pos = params.position
    point = types.Range(start=pos, end=pos)
    parts = []
    for finding in ls.findings.get(params.text_document.uri, []):
        if _overlaps(finding, point):
            rule = next((r for r in ls.rules() if r.code == finding.code), None)
            summary = rule.summary if rule else finding.message
            parts.append(f"**{finding.code}** `{finding.name}`: {summary}")
    if not parts:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                    value="\n\n".join(parts)))


def main(argv=()) -> int:
    server.start_io()
    return 0
