"""Jupyter notebooks through the real CLI, written with nbformat."""
import json

import pytest

nbf = pytest.importorskip("nbformat")
from nbformat import v4  # noqa: E402

MODEL = ("class Net(torch.nn.Module):\n    def forward(self, x):\n        %time y = 1\n"
         "        n = x.sum().item()  # noqa: DYN201\n        return x[x > 0].sum()")


def _notebook(path, *cells):
    nb = v4.new_notebook()
    nb.cells = list(cells)
    nbf.write(nb, str(path))
    return path


def _default(tmp_path, name="nb.ipynb"):
    return _notebook(tmp_path / name, v4.new_markdown_cell("# A model"),
                     v4.new_code_cell("%matplotlib inline\nimport torch"),
                     v4.new_code_cell("!pip list\n" + MODEL),
                     v4.new_code_cell("%%bash\necho x[x > 0]"),
                     v4.new_code_cell("x = torch.ones(3)\nx?"))


def test_findings_are_reported_per_cell(dynlint, tmp_path):
    _default(tmp_path)
    r = dynlint("check", "--no-cache", "nb.ipynb", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout.splitlines()[0].startswith("nb.ipynb:cell 3:6:16: DYN101")
    assert "DYN201" not in r.stdout and "Found 1 issue." in r.stdout   # noqa in a cell
    doc = json.loads(dynlint("check", "--no-cache", "--format", "json", "nb.ipynb", cwd=tmp_path).stdout)
    assert [(d["cell"], d["line"], d["code"]) for d in doc] == [(3, 6, "DYN101")]


def test_directory_walk_includes_notebooks(dynlint, tmp_path):
    _default(tmp_path, "sub/deep.ipynb") if (tmp_path / "sub").mkdir() is None else None
    (tmp_path / ".ipynb_checkpoints").mkdir()
    _default(tmp_path / ".ipynb_checkpoints", "deep-checkpoint.ipynb")
    r = dynlint("check", "--no-cache", ".", cwd=tmp_path)
    assert "sub/deep.ipynb:cell 3:6:16: DYN101" in r.stdout and "checkpoint" not in r.stdout


def test_fix_rewrites_cells_keeping_the_json_format(dynlint, tmp_path):
    p = _default(tmp_path)
    before = p.read_text()
    r = dynlint("check", "--no-cache", "--fix", "--unsafe-fixes", "nb.ipynb", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    after = p.read_text()
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
    assert len(before.splitlines()) == len(after.splitlines()) and len(changed) == 1
    assert "x.where(x > 0, 0).sum()" in changed[0][1]
    assert after.endswith("}\n")
    nb = nbf.read(str(p), as_version=4)
    nbf.validate(nb)
    assert nb.cells[2].source.startswith("!pip list\n") and "%time y = 1" in nb.cells[2].source
    assert dynlint("check", "--no-cache", "--fix", "nb.ipynb", cwd=tmp_path).returncode == 0
    assert p.read_text() == after


def test_add_noqa_in_cells(dynlint, tmp_path):
    p = _default(tmp_path)
    r = dynlint("check", "--no-cache", "--add-noqa", "nb.ipynb", cwd=tmp_path)
    assert "Added 1 noqa directive." in r.stderr
    nb = nbf.read(str(p), as_version=4)
    assert "return x[x > 0].sum()  # noqa: DYN101" in nb.cells[2].source
    assert nb.cells[2].source.startswith("!pip list\n")
    assert dynlint("check", "--no-cache", "nb.ipynb", cwd=tmp_path).returncode == 0


def test_malformed_notebooks_are_diagnosed_and_the_run_goes_on(dynlint, tmp_path):
    _default(tmp_path)
    (tmp_path / "broken.ipynb").write_text('{\n "cells": [\n  {"cell_type": "code",,}\n ]\n}\n')
    (tmp_path / "nocells.ipynb").write_text('{"metadata": {}}\n')
    r = dynlint("check", "--no-cache", ".", cwd=tmp_path)
    assert r.returncode == 1
    assert "broken.ipynb:3:" in r.stdout and "DYN906 invalid notebook JSON" in r.stdout
    assert "nocells.ipynb:1:1: DYN906" in r.stdout
    assert "nb.ipynb:cell 3:6:16: DYN101" in r.stdout
