"""A notebook read from stdin (`--stdin-filename nb.ipynb -`, the editor path): checked as a
notebook, findings per cell, `--fix` prints the fixed notebook JSON; invalid JSON is DYN906."""
from __future__ import annotations

import json

import pytest

nbformat = pytest.importorskip("nbformat")
from nbformat import v4  # noqa: E402


def notebook(path):
    nb = v4.new_notebook()
    nb.cells = [v4.new_markdown_cell("# A model"),
                v4.new_code_cell("%matplotlib inline\nimport torch"),
                v4.new_code_cell("class Net(torch.nn.Module):\n    def forward(self, x):\n"
                                 "        return x[x > 0].sum()")]
    nbformat.write(nb, str(path))
    return path.read_text()


def test_notebook_from_stdin_is_reported_per_cell(tmp_path, dynlint):
    text = notebook(tmp_path / "model.ipynb")
    piped = dynlint("check", "--no-cache", "--output-format", "json", "--stdin-filename",
                    "model.ipynb", "-", cwd=tmp_path, input=text)
    direct = dynlint("check", "--no-cache", "--output-format", "json", "model.ipynb", cwd=tmp_path)
    assert piped.returncode == direct.returncode == 1, piped.stderr
    found = json.loads(piped.stdout)
    assert [(f["code"], f["cell"], f["line"], f["column"]) for f in found] == [("DYN101", 3, 3, 16)]
    assert found == json.loads(direct.stdout)
    concise = dynlint("check", "--no-cache", "--output-format", "concise", "--stdin-filename",
                      "model.ipynb", "-", cwd=tmp_path, input=text)
    assert "model.ipynb:cell 3:3:16: DYN101" in concise.stdout


def test_notebook_from_stdin_config_applies(tmp_path, dynlint):
    (tmp_path / "nb").mkdir()
    text = notebook(tmp_path / "nb" / "model.ipynb")
    (tmp_path / "pyproject.toml").write_text('[tool.dynlint]\nper-file-ignores = { "nb/*" = ["DYN101"] }\n')
    r = dynlint("check", "--no-cache", "--stdin-filename", "nb/model.ipynb", "-", cwd=tmp_path,
                input=text)
    assert r.returncode == 0, r.stdout + r.stderr


def test_fix_notebook_from_stdin_prints_the_fixed_notebook(tmp_path, dynlint):
    text = notebook(tmp_path / "model.ipynb")
    r = dynlint("check", "--no-cache", "--fix", "--unsafe-fixes", "--stdin-filename",
                "model.ipynb", "-", cwd=tmp_path, input=text)
    assert r.returncode == 0, r.stderr
    fixed = nbformat.reads(r.stdout, 4)
    assert fixed.cells[2].source.endswith("return x.where(x > 0, 0).sum()")
    assert fixed.cells[1].source == "%matplotlib inline\nimport torch"
    # the JSON keeps its formatting: only the fixed line differs
    changed = [(a, b) for a, b in zip(text.splitlines(), r.stdout.splitlines()) if a != b]
    assert len(changed) == 1 and len(text.splitlines()) == len(r.stdout.splitlines())
    assert "1 fixed" in r.stderr


def test_invalid_notebook_json_from_stdin_is_dyn906(tmp_path, dynlint):
    r = dynlint("check", "--no-cache", "--output-format", "concise", "--stdin-filename",
                "nb.ipynb", "-", cwd=tmp_path, input='{"cells": [,]}\n')
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "nb.ipynb:1:12: DYN906 invalid notebook JSON" in r.stdout
