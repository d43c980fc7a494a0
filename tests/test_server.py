"""`dynlint server` through a real LSP client (pygls' LanguageClient) over stdio."""
from __future__ import annotations

import ast
import asyncio
import importlib.util
import json
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pygls")
from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

MODEL = textwrap.dedent("""\
    import torch
    from torch import nn


    class Net(nn.Module):
        def forward(self, x):
            return x[x > 0].sum()
    """)


class Session:
    """A started server plus the diagnostics it has published, per URI."""

    def __init__(self, root, folders=None, capabilities=None):
        self.root = root
        self.folders = folders or [root]
        self.capabilities = capabilities or types.ClientCapabilities()
        self.client = LanguageClient("dynlint-test", "1")
        self.diagnostics = {}
        self.events = asyncio.Queue()
        self.messages = []
        self.registrations = []

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params):
            self.diagnostics[params.uri] = params.diagnostics
            self.events.put_nowait(params)

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def on_message(params):
            self.messages.append(params.message)

        @self.client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def on_register(params):
            self.registrations.extend(params.registrations)

    async def __aenter__(self):
        await self.client.start_io(sys.executable, "-m", "dynlint", "server", cwd=str(self.root))
        await self.client.initialize_async(types.InitializeParams(
            capabilities=self.capabilities, root_uri=self.folders[0].as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name)
                               for f in self.folders]))
        self.client.initialized(types.InitializedParams())
        return self

    async def __aexit__(self, *exc):
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()

    async def next_diagnostics(self, uri, version=None):
        """The next diagnostics published for `uri` (for that document version, if given)."""
        while True:
            params = await asyncio.wait_for(self.events.get(), 60)
            if params.uri == uri and version in (None, params.version):
                return list(params.diagnostics)

    async def open(self, path, text):
        path.write_text(text)
        uri = path.as_uri()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        return uri, await self.next_diagnostics(uri, 1)

    async def change(self, uri, text, version=2):
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        return await self.next_diagnostics(uri, version)

    async def change_range(self, uri, start, end, text, version):
        """An incremental change, as editors send them: replace lines [start, end)."""
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=start, character=0),
                                  end=types.Position(line=end, character=0)), text=text)]))
        return await self.next_diagnostics(uri, version)

    def files_changed(self, *paths):
        self.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=p.as_uri(), type=types.FileChangeType.Changed)
                     for p in paths]))

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
            assert "return x[x > 0].sum()  # noqa: DYN101" in suppressed
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
            # a host read is reported in model code only: here because model.py calls it
            await s.change(uri, "def positive(x):\n    return x.tolist()\n", 2)
            assert [d.code for d in s.diagnostics[uri]] == ["DYN202"]
    run(scenario())


def test_own_diagnostics_first_then_cross_file_ones(tmp_path):
    """The first document of a folder is published at once from its own text; the folder's
    facts are read after, and the document is published again if they change its findings."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(
        "from torch import nn\nfrom pkg.helpers import positive\n\n\n"
        "class Net(nn.Module):\n    def forward(self, x):\n        return positive(x)\n")
    # An export to the host (`.tolist()`) is flagged in model code only, so the helper's own
    # text gives nothing; the folder's facts (model code calls it) add the finding.
    helper = "def positive(x):\n    return x.tolist()\n"

    async def scenario():
        async with Session(tmp_path) as s:
            uri, first = await s.open(tmp_path / "pkg" / "helpers.py", helper)
            assert first == []
            assert [d.code for d in await s.next_diagnostics(uri, 1)] == ["DYN202"]
    run(scenario())


def _project_with_helper_below(tmp_path):
    """A repository whose model (pkg/model.py) calls a helper in pkg/ops/helpers.py."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "pkg" / "ops").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "ops" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(
        "from torch import nn\nfrom pkg.ops.helpers import positive\n\n\n"
        "class Net(nn.Module):\n    def forward(self, x):\n        return positive(x)\n")
    (tmp_path / "other").mkdir()
    return tmp_path / "pkg" / "ops" / "helpers.py", "def positive(x):\n    return x.tolist()\n"


@pytest.mark.parametrize("folder", ["pkg/ops", "other"])
def test_project_is_the_repository_not_the_folder(tmp_path, dynlint, folder):
    """The workspace folder is a sub-directory of the repository (`pkg/ops`), or does not hold
    the document at all (`other`): the model that calls the helper lies outside the folder, yet
    the server reports what `dynlint check pkg/ops/helpers.py` reports."""
    helper_path, helper = _project_with_helper_below(tmp_path)
    helper_path.write_text(helper)
    r = dynlint("check", "--no-cache", "--output-format", "json", str(helper_path), cwd=tmp_path)
    assert [f["code"] for f in json.loads(r.stdout)] == ["DYN202"], r.stderr

    async def scenario():
        async with Session(tmp_path, folders=[tmp_path / folder]) as s:
            uri, first = await s.open(helper_path, helper)
            assert first == []            # its own text: a host copy outside model code
            assert [d.code for d in await s.next_diagnostics(uri, 1)] == ["DYN202"]
            await s.change(uri, "def positive(x):\n    return x\n", 2)
            assert list(s.diagnostics[uri]) == []
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


# -- the same findings as `dynlint check` -------------------------------------------------------
def check_view(dynlint, cwd, path):
    """What `dynlint check .` (run from the project) reports for `path`, in LSP coordinates."""
    r = dynlint("check", "--no-cache", "--output-format", "json", ".", cwd=cwd)
    assert r.returncode in (0, 1), r.stderr
    return sorted((f["code"], f["line"] - 1, f["column"] - 1, f["end_line"] - 1, f["end_column"] - 1)
                  for f in json.loads(r.stdout) if (cwd / f["path"]).resolve() == path.resolve())


def server_view(diagnostics):
    return sorted((d.code, d.range.start.line, d.range.start.character, d.range.end.line,
                   d.range.end.character) for d in diagnostics)


def edit_point(text):
    """(0-based line, indentation, argument) before the last statement of the first forward."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and node.name == "forward" and len(node.args.args) > 1:
            last = node.body[-1]
            return last.lineno - 1, " " * last.col_offset, node.args.args[1].arg
    raise AssertionError("no forward")


def test_same_findings_as_check_through_edits(tmp_path, dynlint):
    """A real 2,000-line model file (transformers' Longformer) in a configured project with
    cross-file helpers: after every edit, the server's diagnostics are exactly what
    `dynlint check .` reports for the same text."""
    spec = importlib.util.find_spec("transformers")
    if spec is None:
        pytest.skip("transformers is not installed")
    source = Path(spec.origin).parent / "models" / "longformer" / "modeling_longformer.py"
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""\
        [tool.dynlint]
        extend-select = ["DYN301"]
        per-file-ignores = { "pkg/legacy_*.py" = ["DYN2"] }
        """))
    model = pkg / "modeling_longformer.py"
    text = source.read_text()
    model.write_text(text)
    helper = "def positive(x):\n    n = x.tolist()\n    return x[x > 0], n\n"
    (pkg / "helpers.py").write_text(helper)
    caller = textwrap.dedent("""\
        from torch import nn
        from pkg.helpers import positive


        class Net(nn.Module):
            def forward(self, x):
                return positive(x)
        """)
    (pkg / "legacy_model.py").write_text(caller)

    async def scenario():
        async with Session(tmp_path) as s:
            uri, diags = await s.open(model, text)
            assert len(diags) > 5
            assert server_view(diags) == check_view(dynlint, tmp_path, model)
            line, indent, arg = edit_point(text)
            lines = text.splitlines(keepends=True)
            edits = [(line, line, f"{indent}_m = {arg}[{arg} > 0]\n"),
                     (line, line + 1, f"{indent}_n = {arg}.sum().item()\n"),
                     (line, line + 1, f"{indent}_n = {arg}.sum().item()  # noqa: DYN201\n"),
                     (line, line + 1, "")]
            for version, (start, end, new) in enumerate(edits, 2):
                diags = await s.change_range(uri, start, end, new, version)
                lines[start:end] = [new] if new else []
                model.write_text("".join(lines))
                assert server_view(diags) == check_view(dynlint, tmp_path, model), new

            # cross-file: the helper is model code because legacy_model.py's forward calls it;
            # per-file-ignores of the caller's file do not apply to the helper's
            huri, hdiags = await s.open(pkg / "helpers.py", helper)
            assert {d.code for d in hdiags} == {"DYN101", "DYN202"}
            assert server_view(hdiags) == check_view(dynlint, tmp_path, pkg / "helpers.py")
            luri, ldiags = await s.open(pkg / "legacy_model.py", caller)
            assert ldiags == []
            # the caller stops calling it: the helper's host read is no longer in model code
            # (its diagnostics are published again, before the caller's)
            plain = caller.replace("return positive(x)", "return x")
            await s.change(luri, plain, 2)
            assert [d.code for d in s.diagnostics[huri]] == ["DYN101"]
            (pkg / "legacy_model.py").write_text(plain)
            assert server_view(s.diagnostics[huri]) == check_view(dynlint, tmp_path, pkg / "helpers.py")
    run(scenario())


def test_one_resolver_per_workspace_folder(tmp_path):
    """Multi-root: each folder is judged as `dynlint check` run from it. The server runs from
    folder `a` (whose config ignores DYN101); folder `b` has no config, so the defaults apply
    there, not `a`'s."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "pyproject.toml").write_text('[tool.dynlint]\nignore = ["DYN101"]\n')

    async def scenario():
        async with Session(a, folders=[a, b]) as s:
            _, in_a = await s.open(a / "model.py", MODEL)
            _, in_b = await s.open(b / "model.py", MODEL)
            assert in_a == []
            assert [d.code for d in in_b] == ["DYN101"]
    run(scenario())


def test_settings_reread_when_a_config_file_changes(tmp_path):
    async def scenario():
        caps = types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                dynamic_registration=True)))
        async with Session(tmp_path, capabilities=caps) as s:
            uri, diags = await s.open(tmp_path / "model.py", MODEL)
            assert [d.code for d in diags] == ["DYN101"]
            # the server asked the client to watch config files
            methods = [r.method for r in s.registrations]
            assert types.WORKSPACE_DID_CHANGE_WATCHED_FILES in methods
            watched = [w["globPattern"] for r in s.registrations for w in r.register_options["watchers"]]
            assert "**/pyproject.toml" in watched and "**/dynlint.toml" in watched

            config = tmp_path / "pyproject.toml"
            config.write_text('[tool.dynlint]\nignore = ["DYN101"]\n')
            s.files_changed(config)
            assert await s.next_diagnostics(uri) == []

            config.write_text('[tool.dynlint\nignore = ["DYN101"]\n')      # invalid TOML
            s.files_changed(config)
            assert [d.code for d in await s.next_diagnostics(uri)] == ["DYN101"]
            assert any("pyproject.toml:1:" in m and "invalid TOML" in m for m in s.messages), s.messages

            config.write_text('[tool.dynlint]\nper-file-ignores = { "model.py" = ["DYN1"] }\n')
            s.files_changed(config)
            assert await s.next_diagnostics(uri) == []
    run(scenario())


def test_helper_changed_on_disk_updates_open_model(tmp_path):
    """A file that is not open changes on disk (a git checkout): its facts are re-read."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    user = tmp_path / "pkg" / "user.py"
    user.write_text("from torch import nn\nfrom pkg.helpers import positive\n\n\n"
                    "class Net(nn.Module):\n    def forward(self, x):\n        return x\n")
    helper = "def positive(x):\n    return x.tolist()\n"     # an export to the host: model code only

    async def scenario():
        async with Session(tmp_path) as s:
            uri, diags = await s.open(tmp_path / "pkg" / "helpers.py", helper)
            assert diags == []
            user.write_text(user.read_text().replace("return x\n", "return positive(x)\n"))
            s.files_changed(user)
            assert [d.code for d in await s.next_diagnostics(uri)] == ["DYN202"]
    run(scenario())
