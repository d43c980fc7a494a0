"""`dynlint server` applies function summaries across files as `dynlint check` does (the CLI's
cross-file step, crossfile.settle), through a real LSP client (pygls' LanguageClient, stdio):
a finding in the model exists only because of what a helper in another file returns (through
a third file), the helper's unsaved text counts, and open dependents are published again."""
from __future__ import annotations

import importlib.util
import json
import shutil
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pygls")
from test_server import Session, run, server_view  # noqa: E402

GATES = "import torch\n\n\ndef above(a: torch.Tensor, b: torch.Tensor):\n    return a > b\n"
HELPER = textwrap.dedent("""\
    import torch
    from pkg.gates import above


    def pick(boxes: torch.Tensor):
        return above(boxes[:, 2], boxes[:, 0])
    """)
# The helper no longer returns a mask: a difference of two columns is a float tensor.
NO_MASK = HELPER.replace("above(boxes[:, 2], boxes[:, 0])", "boxes[:, 2] - boxes[:, 0]")
MODEL = textwrap.dedent("""\
    from torch import nn
    from pkg.helpers import pick


    class Net(nn.Module):
        def forward(self, boxes, scores):
            sel = pick(boxes)
            return scores[sel]
    """)


def _project(root):
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "gates.py").write_text(GATES)
    (root / "pkg" / "helpers.py").write_text(HELPER)
    (root / "pkg" / "model.py").write_text(MODEL)
    return root / "pkg" / "model.py", root / "pkg" / "helpers.py"


def cli_view(dynlint, root, path, *args):
    """What `dynlint check FILE` reports for `path`, in LSP coordinates."""
    r = dynlint("check", "--no-cache", "--output-format", "json", *args, str(path), cwd=root)
    assert r.returncode in (0, 1), r.stderr
    return sorted((f["code"], f["line"] - 1, f["column"] - 1, f["end_line"] - 1,
                   f["end_column"] - 1) for f in json.loads(r.stdout))


def test_helper_summary_in_another_file(tmp_path, dynlint):
    model, helper = _project(tmp_path)
    expected = cli_view(dynlint, tmp_path, model)
    # The finding exists only because of the helper's return summary (through pkg/gates.py).
    assert [c[:2] for c in expected] == [("DYN101", 7)]
    assert cli_view(dynlint, tmp_path, model, "--no-cross-file") == []

    async def scenario():
        async with Session(tmp_path) as s:
            muri, first = await s.open(model, MODEL)
            assert first == []          # its own text: `pick` is not known yet
            assert server_view(await s.next_diagnostics(muri, 1)) == expected

            # The helper's buffer, edited and not saved: the model's finding goes away.
            huri, hdiags = await s.open(helper, HELPER)
            assert hdiags == []
            s.client.text_document_did_change(_change(huri, NO_MASK, 2))
            assert await s.next_diagnostics(muri) == []
            assert helper.read_text() == HELPER         # unsaved: the disk still has the mask

            # Bad input in the helper: a diagnostic, no crash; the model has no summary to use.
            assert [d.code for d in await s.change(huri, "def pick(boxes:\n", 3)] == ["DYN901"]
            assert list(s.diagnostics[muri]) == []
            s.client.text_document_did_change(_change(huri, HELPER, 4))
            assert server_view(await s.next_diagnostics(muri)) == expected

            # Closed without saving an edit that drops the mask: the disk's text counts again.
            await s.change(huri, NO_MASK, 5)
            assert list(s.diagnostics[muri]) == []
            s.client.text_document_did_close(_close(huri))
            assert server_view(await s.next_diagnostics(muri)) == expected
            # and what check says once the edit is saved
            helper.write_text(NO_MASK)
            s.files_changed(helper)
            assert await s.next_diagnostics(muri) == []
            assert cli_view(dynlint, tmp_path, model) == []
    run(scenario())


def test_edited_model_keeps_the_helper_summary(tmp_path, dynlint):
    """Edits of the model itself: after each, exactly what `dynlint check` reports for the same
    text (written to disk after the server answered)."""
    model, _ = _project(tmp_path)
    edits = [MODEL.replace("return scores[sel]", "return scores[sel].sum()"),
             MODEL.replace("return scores[sel]", "return scores * sel"),
             MODEL.replace("sel = pick(boxes)", "sel = pick(boxes)\n        n = sel.sum().item()")]

    async def scenario():
        async with Session(tmp_path) as s:
            muri, _ = await s.open(model, MODEL)
            await s.next_diagnostics(muri, 1)
            for version, text in enumerate(edits, 2):
                got = server_view(await s.change(muri, text, version))
                model.write_text(text)
                assert got == cli_view(dynlint, tmp_path, model), text
    run(scenario())


def test_real_package_file_as_check_reports_it(tmp_path, dynlint):
    """A file of a real package (kornia's geometric augmentation base, whose findings rest on
    summaries of other files: `self._gate(...)`-style methods and helpers) opened alone in the
    editor: exactly what `dynlint check FILE` reports for it with its whole project."""
    spec = importlib.util.find_spec("kornia")
    if spec is None:
        pytest.skip("kornia is not installed")
    shutil.copytree(Path(spec.origin).parent, tmp_path / "kornia",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'k'\n")
    path = tmp_path / "kornia" / "augmentation" / "_2d" / "geometric" / "base.py"
    text = path.read_text()
    expected = cli_view(dynlint, tmp_path, path)
    assert expected != cli_view(dynlint, tmp_path, path, "--no-cross-file")

    async def scenario():
        async with Session(tmp_path) as s:
            uri, diags = await s.open(path, text)
            if server_view(diags) != expected:      # its own text first, then the project's
                diags = await s.next_diagnostics(uri, 1)
            assert server_view(diags) == expected
    run(scenario())


def _change(uri, text, version):
    from lsprotocol import types
    return types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)])


def _close(uri):
    from lsprotocol import types
    return types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
