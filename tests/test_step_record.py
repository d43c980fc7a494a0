"""What the cross-file step concluded is kept in the cache (check/steprecord.py) and read by
the next run over the same project instead of running the step again. Through the real CLI on
a package whose findings rest on summaries across files: after every kind of edit, a run from
the cache (the one that refills it, then a warm one) gives exactly what a run without the
cache gives; a record tampered with is ignored with one warning and the run goes on."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_crossfile_summaries import EXPECTED, FILES, _write

PREFIX = "#cross-file-step:"


def _run(dynlint, root: Path, *args):
    r = dynlint("check", ".", "--output-format", "json", *args, cwd=root)
    assert r.returncode == 1, r.stderr
    return r


def _findings(r) -> list:
    return sorted(json.loads(r.stdout), key=lambda f: json.dumps(f, sort_keys=True))


def _cache_file(root: Path) -> Path:
    [file] = [p for p in (root / ".dynlint_cache").rglob("*.json")]
    return file


def _records(root: Path) -> dict:
    """The records of every cache file (a file checked alone adds the facts cache of the
    project's other files, which holds none)."""
    out = {}
    for file in (root / ".dynlint_cache").rglob("*.json"):
        entries = json.loads(file.read_text())["entries"]
        out.update((k, v) for k, v in entries.items() if k.startswith(PREFIX))
    return out


def _edit(root: Path, name: str, old: str | None, new: str) -> None:
    p = root / name
    text = p.read_text() if p.exists() else ""
    p.write_text(text + new if old is None else text.replace(old, new, 1))


EDITS = [
    # (file, text replaced or None to append, new text)
    ("pkg/mid.py", None, "# a comment: no fact of mid.py changes\n"),
    ("pkg/model.py", None, "# a comment in a file the step walks again\n"),
    ("pkg/boxes.py", "boxes[:, 2] > boxes[:, 0]", "boxes[:, 2] - boxes[:, 0]"),    # no mask
    ("pkg/model.py", "import torch\n", "import torch\nimport os\n"),        # every line moves
    ("pkg/boxes.py", "boxes[:, 2] - boxes[:, 0]", "boxes[:, 2] > boxes[:, 0]"),    # mask again
    ("pkg/base.py", "prob > 0.5", "prob * 0.5"),                    # an inherited summary
    ("pkg/extra.py", None, "import torch\n\ndef helper(x):\n    return x.nonzero()\n"),  # new
]


def test_warm_run_equals_cold_run_after_edits_across_files(dynlint, tmp_path):
    _write(tmp_path)
    cold = _run(dynlint, tmp_path, "--no-cache")
    lines = {str(f["line"]): f["code"] for f in json.loads(cold.stdout)
             if f["path"].endswith("model.py")}
    assert lines == EXPECTED
    for r in (_run(dynlint, tmp_path), _run(dynlint, tmp_path)):
        assert r.stdout == cold.stdout and r.stderr == ""
    assert len(_records(tmp_path)) == 1
    seen = {cold.stdout}
    for name, old, new in EDITS:
        _edit(tmp_path, name, old, new)
        expected = _run(dynlint, tmp_path, "--no-cache")
        seen.add(expected.stdout)
        for r in (_run(dynlint, tmp_path), _run(dynlint, tmp_path)):
            assert _findings(r) == _findings(expected), (name, new)
            assert r.stdout == expected.stdout and r.stderr == ""
        # A file checked alone, from the same cache, still gets its whole project's findings.
        alone = dynlint("check", "pkg/model.py", "--output-format", "json", cwd=tmp_path)
        assert json.loads(alone.stdout) == [f for f in json.loads(expected.stdout)
                                            if f["path"] == "pkg/model.py"]
    assert len(seen) >= 4, "the edits changed no finding: the test proves nothing"
    assert 1 <= len(_records(tmp_path)) <= 4       # one per set of files named, a few kept


def _tamper(kind: str, record: list) -> None:
    data = record[3]
    if kind == "finding-line-a-string":
        data[0][0][0] = "1"
    elif kind == "paths-short":
        data[3][1] = data[3][1][:-1]
    elif kind == "walked-not-pairs":
        data[3][3] = ["pkg/model.py"]
    elif kind == "lines-not-lines":
        data[3][2] = [["pkg/model.py", "x = 1"]]
    elif kind == "not-a-list":
        record[3] = {"findings": []}


@pytest.mark.parametrize("kind", ["finding-line-a-string", "paths-short", "walked-not-pairs",
                                  "lines-not-lines", "not-a-list"])
def test_a_malformed_record_is_ignored_and_the_run_goes_on(dynlint, tmp_path, kind):
    _write(tmp_path)
    expected = _run(dynlint, tmp_path, "--no-cache")
    assert _run(dynlint, tmp_path).stdout == expected.stdout
    file = _cache_file(tmp_path)
    data = json.loads(file.read_text())
    [name] = [k for k in data["entries"] if k.startswith(PREFIX)]
    record = data["entries"][name]
    assert record[3][0], "the record holds findings (of the walks again, of the reach)"
    _tamper(kind, record)
    file.write_text(json.dumps(data))
    r = _run(dynlint, tmp_path)
    assert r.stdout == expected.stdout
    assert "Traceback" not in r.stderr
    [warning] = [line for line in r.stderr.splitlines() if "warning" in line]
    assert str(file) in warning and "malformed entry" in warning
    again = _run(dynlint, tmp_path)                # rebuilt: read silently
    assert again.stdout == expected.stdout and again.stderr == ""
    assert list(_records(tmp_path)) == [name]
