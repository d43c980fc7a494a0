"""`dynlint server`: the checker as a Language Server (LSP over stdio, pygls).

Diagnostics come from the editor's in-memory text on open, change and save; code actions
offer the finding's fix (safe or unsafe, titled as such) and `# noqa: CODE`; hover shows the
rule's summary. The workspace's cross-file facts are computed once and only the edited
file's facts are recomputed on change. Nothing a document contains may stop the server:
syntax errors are diagnostics, internal errors are logged and the server keeps running.
"""
from __future__ import annotations

import os
import traceback
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..api import build_engine
from ..fix.splice import rewrite
from ..project.config import ConfigError, Settings, per_file_ignored
from ..project.resolve import Resolver
from ..project.discover import discover, display_path
from ..project import source
from ..runner import analyse_source, module_name, resolve_cross_file
from .lsp_text import finding_range, noqa_edit, whole_document_edit

SOURCE = "dynlint"
SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
            "info": types.DiagnosticSeverity.Information}
# docs/rules.md in a clone (or an editable install); no made-up web address otherwise.
_RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def settings_for(path: str) -> Settings:
    """Settings for one document, resolved as the CLI resolves them. The one place the server
    asks for configuration: hierarchical resolution plugs in here."""
    return _resolver().settings_for(path)


_RESOLVERS: list = []


def _resolver() -> Resolver:
    # One per server process: it caches each directory's resolved settings.
    if not _RESOLVERS:
        _RESOLVERS.append(Resolver())
    return _RESOLVERS[0]


class DynlintServer(LanguageServer):
    def __init__(self):
        super().__init__("dynlint", __version__)
        self.engines = {}            # config file -> Engine
        self.facts = {}              # absolute path -> FileFacts (cross-file step)
        self.workspace_loaded = set()
        self.findings = {}           # uri -> findings last published

    def engine_for(self, settings: Settings):
        key = str(settings.config_file)
        if key not in self.engines:
            self.engines[key] = build_engine(settings)
        return self.engines[key]

    def load_workspace(self, settings: Settings, engine) -> None:
        """Facts of every file under the config root, once: model code in one file makes
        helpers in another model code."""
        root = str(settings.root)
        if root in self.workspace_loaded:
            return
        self.workspace_loaded.add(root)
        files, _ = discover([root], _resolver(), False)
        for path in files:
            try:
                text = source.decode(source.read_bytes(path, path, settings.max_file_size)[0], path)
            except source.SourceError:
                continue
            _, facts = analyse_source(engine, text, path, module_name(path))
            if facts is not None:
                self.facts[os.path.abspath(path)] = facts

    def check(self, uri: str, text: str) -> list:
        path = uri_to_path(uri)
        try:
            settings = settings_for(path)
        except ConfigError as exc:
            self.window_show_message(types.ShowMessageParams(types.MessageType.Error, str(exc)))
            settings = Settings()
        engine = self.engine_for(settings)
        absolute = os.path.isabs(path)
        display = display_path(path, str(settings.root)) if absolute else path
        if absolute:
            self.load_workspace(settings, engine)
        found, facts = analyse_source(engine, text, display,
                                      module_name(path) if absolute else None)
        found = list(found)
        if absolute:
            if facts is not None:
                self.facts[os.path.abspath(path)] = facts
            else:
                self.facts.pop(os.path.abspath(path), None)
            if facts is not None and facts.conditional:
                found += [f for f in resolve_cross_file(list(self.facts.values()))
                          if f.path == display]
        if settings.per_file_ignores:
            found = [f for f in found
                     if not per_file_ignored(f.path, f.code, settings)]
        found.sort(key=lambda f: f.sort_key)
        return found


server = DynlintServer()


def diagnostic(finding, lines) -> types.Diagnostic:
    description = None
    if _RULES_DOC.is_file():
        description = types.CodeDescription(href=f"{_RULES_DOC.as_uri()}#{finding.code.lower()}")
    return types.Diagnostic(
        range=finding_range(finding, lines), message=finding.message,
        severity=SEVERITY.get(finding.severity, types.DiagnosticSeverity.Warning),
        code=finding.code, code_description=description, source=SOURCE,
        data={"name": finding.name})


def publish(ls: DynlintServer, uri: str) -> None:
    try:
        document = ls.workspace.get_text_document(uri)
        text = document.source
        found = ls.check(uri, text)
        ls.findings[uri] = found
        lines = text.splitlines()
        diagnostics = [diagnostic(f, lines) for f in found]
    except Exception:        # a bug in dynlint: tell the client, keep serving
        ls.window_log_message(types.LogMessageParams(
            types.MessageType.Error, f"dynlint: {uri}: {traceback.format_exc()}"))
        return
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, version=document.version, diagnostics=diagnostics))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: DynlintServer, params: types.DidOpenTextDocumentParams):
    publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: DynlintServer, params: types.DidChangeTextDocumentParams):
    publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: DynlintServer, params: types.DidSaveTextDocumentParams):
    ls.engines.clear()          # the config may have been the file saved
    publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: DynlintServer, params: types.DidCloseTextDocumentParams):
    ls.findings.pop(params.text_document.uri, None)
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


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
            rule = next((r for e in ls.engines.values() for r in e.rules
                         if r.code == finding.code), None)
            summary = rule.summary if rule else finding.message
            parts.append(f"**{finding.code}** `{finding.name}`: {summary}")
    if not parts:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                    value="\n\n".join(parts)))


def main(argv=()) -> int:
    server.start_io()
    return 0
