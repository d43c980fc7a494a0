"""`dynlint server` through a real LSP client (pygls' LanguageClient) over stdio."""
from __future__ import annotations

import asyncio
import sys
import textwrap

import pytest

pytest.importorskip("pygls")
from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

MODEL = textwrap.dedent("""\
    import torch
    from torch import nn


    class Net(nn.Module):
        def forward(self, x):
            return x[x > 0]
    """)


class Session:
    """A started server plus the diagnostics it has published, per URI."""

    def __init__(self, root):
        self.root = root
        self.client = LanguageClient("dynlint-test", "1")
        self.diagnostics = {}
        self.events = asyncio.Queue()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params):
            self.diagnostics[params.uri] = params.diagnostics
            self.events.put_nowait(params)

    async def __aenter__(self):
        await self.client.start_io(sys.executable, "-m", "dynlint", "server", cwd=str(self.root))
        await self.client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=self.root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=self.root.as_uri(), name="ws")]))
        self.client.initialized(types.InitializedParams())
        return self

    async def __aexit__(self, *exc):
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()

    async def next_diagnostics(self, uri):
        while True:
            params = await asyncio.wait_for(self.events.get(), 60)
            if params.uri == uri:
                return list(params.diagnostics)

    async def open(self, path, text):
        path.write_text(text)
        uri = path.as_uri()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        return uri, await self.next_diagnostics(uri)

    async def change(self, uri, text, version=2):
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        return await self.next_diagnostics(uri)

    async def actions(self, uri, diagnostic):
        return await self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic])))


def apply(text, edit):
    """Apply one TextEdit (ASCII text: UTF-16 columns are characters)."""
    lines = text.split("\n")
    offset = lambda p: sum(len(l) + 1 for l in lines[:p.line]) + p.character  # noqa: E731
    return text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]


def run(coro):
    return asyncio.run(coro)


def test_diagnostics_fix_noqa_hover(tmp_path):
    async def scenario():
        async with Session(tmp_path) as s:
            uri, diags = await s.open(tmp_path / "model.py", MODEL)
            assert [d.code for d in diags] == ["DYN101"]
            d = diags[0]
            assert d.source == "dynlint" and d.severity == types.DiagnosticSeverity.Error
            assert (d.range.start.line, d.range.start.character) == (6, 15)
            assert (d.range.end.line, d.range.end.character) == (6, 23)

            hover = await s.client.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=6, character=17)))
            assert "DYN101" in hover.contents.value and "mask" in hover.contents.value.lower()
            nothing = await s.client.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=0, character=2)))
            assert nothing is None

            actions = await s.actions(uri, d)
            titles = [a.title for a in actions]
            assert any("noqa: DYN101" in t for t in titles), titles
            fixes = [a for a in actions if "noqa" not in a.title]
            assert fixes, titles
            fix = fixes[0]
            (edit,) = fix.edit.changes[uri]
            fixed = apply(MODEL, edit)
            assert "x[x > 0]" not in fixed
            compile(fixed, "fixed.py", "exec")
            # unsafe fixes say so in their title
            assert all(("unsafe" in a.title) != a.is_preferred for a in fixes)

            noqa = next(a for a in actions if "noqa" in a.title)
            (edit,) = noqa.edit.changes[uri]
            suppressed = apply(MODEL, edit)
            assert "return x[x > 0]  # noqa: DYN101" in suppressed
            assert await s.change(uri, suppressed, 2) == []

            # editing the fix in: the diagnostic goes away
            assert await s.change(uri, MODEL, 3) != []
            assert await s.change(uri, fixed, 4) == []
    run(scenario())


def test_syntax_error_is_a_diagnostic_and_server_keeps_going(tmp_path):
    async def scenario():
        async with Session(tmp_path) as s:
            uri, diags = await s.open(tmp_path / "broken.py", "def f(:\n    pass\n")
            assert [d.code for d in diags] == ["DYN901"]
            assert diags[0].range.start.line == 0
            uri2, diags2 = await s.open(tmp_path / "model.py", MODEL)
            assert [d.code for d in diags2] == ["DYN101"]
            # a null byte and non-text do not take it down either
            assert [d.code for d in await s.change(uri, "x = 1\x00\n", 2)] != []
            assert [d.code for d in await s.change(uri2, MODEL, 2)] == ["DYN101"]
    run(scenario())


def test_workspace_config_is_respected(tmp_path):
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""\
        [tool.dynlint]
        per-file-ignores = { "legacy/*" = ["DYN101"] }
        """))
    (tmp_path / "legacy").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "pyproject.toml").write_text('[tool.dynlint]\nignore = ["DYN1"]\n')

    async def scenario():
        async with Session(tmp_path) as s:
            _, kept = await s.open(tmp_path / "model.py", MODEL)
            assert [d.code for d in kept] == ["DYN101"]
            _, ignored = await s.open(tmp_path / "legacy" / "model.py", MODEL)
            assert ignored == []
            _, ignored = await s.open(tmp_path / "other" / "model.py", MODEL)
            assert ignored == []
    run(scenario())


def test_cross_file_facts_follow_edits(tmp_path):
    """A helper in another file becomes model code once the model calls it, and stops being
    one when the edit removes the call."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    helper = "def positive(x):\n    return x[x > 0]\n"
    (tmp_path / "pkg" / "helpers.py").write_text(helper)
    model = textwrap.dedent("""\
        from torch import nn
        from pkg.helpers import positive


        class Net(nn.Module):
            def forward(self, x):
                return positive(x)
        """)
    (tmp_path / "pkg" / "model.py").write_text(model)

    async def scenario():
        async with Session(tmp_path) as s:
            uri, diags = await s.open(tmp_path / "pkg" / "helpers.py", helper)
            assert [d.code for d in diags] == ["DYN101"]
    run(scenario())


def test_without_pygls_names_the_extra(tmp_path, dynlint):
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\nclass Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pygls', 'lsprotocol'):\n"
        "            raise ImportError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n")
    import os
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    import subprocess
    proc = subprocess.run([sys.executable, "-m", "dynlint", "server"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "pip install 'dynlint[server]'" in proc.stderr
