"""Cross-file facts live beside the results cache (project/cache.Blobs, `<key>.blobs`), read
only when the cross-file step runs. Through the real CLI on a package whose findings rest on
summaries across files: a warm run never reads them; an edit after a warm run that changes
a file's facts makes the step run on the other files' facts read from the blobs, and gives
exactly what a run without the cache gives; blobs gone are computed again silently; the
blobs file keeps the texts its entries refer to, no more."""
from __future__ import annotations

import json
from pathlib import Path

from test_crossfile_summaries import _write
from test_step_record import _edit, _findings, _run


def _files(root: Path) -> tuple[Path, Path]:
    [file] = [p for p in (root / ".dynlint_cache").rglob("*.json")]
    return file, file.with_suffix(".blobs")


def _referenced(file: Path) -> set:
    """The digests of facts the cache file's entries refer to (`[flags, digest]`)."""
    entries = json.loads(file.read_text())["entries"]
    return {e[3][1][1] for e in entries.values()
            if type(e[3]) is list and len(e[3]) >= 2 and type(e[3][1]) is list}


# Edits that change facts other files see, so that the step runs again.
EDITS = [
    ("pkg/boxes.py", "boxes[:, 2] > boxes[:, 0]", "boxes[:, 2] - boxes[:, 0]"),    # no mask
    ("pkg/base.py", "prob > 0.5", "prob * 0.5"),                    # an inherited summary
    ("pkg/boxes.py", "boxes[:, 2] - boxes[:, 0]", "boxes[:, 2] > boxes[:, 0]"),    # mask again
]


def test_facts_are_read_only_when_the_step_runs(dynlint, tmp_path):
    _write(tmp_path)
    cold = _run(dynlint, tmp_path, "--no-cache")
    assert _run(dynlint, tmp_path).stdout == cold.stdout             # fills the cache
    file, blobs = _files(tmp_path)
    assert blobs.is_file() and json.loads(blobs.read_text())["blobs"]
    assert set(json.loads(blobs.read_text())["blobs"]) == _referenced(file)
    # A warm run reads the step's record, not the facts: their file may be anything.
    saved = blobs.read_bytes()
    blobs.write_bytes(b"\x80 not read by a warm run \xff")
    warm = _run(dynlint, tmp_path)
    assert warm.stdout == cold.stdout and warm.stderr == ""
    blobs.write_bytes(saved)
    changed = {cold.stdout}
    for name, old, new in EDITS:
        assert _run(dynlint, tmp_path).stderr == ""                 # warm, then the edit
        _edit(tmp_path, name, old, new)
        expected = _run(dynlint, tmp_path, "--no-cache")
        changed.add(expected.stdout)
        r = _run(dynlint, tmp_path)         # the step runs on the others' facts, from blobs
        assert _findings(r) == _findings(expected), (name, new)
        assert r.stdout == expected.stdout and r.stderr == ""
        # Only the texts the entries refer to are kept: edits do not grow the file.
        assert set(json.loads(blobs.read_text())["blobs"]) == _referenced(file)
    assert len(changed) >= 2, "the edits changed no finding: the test proves nothing"
    # The step that runs after an edit does read that file: garbage there is one warning.
    blobs.write_bytes(b"\x80 garbage \xff")
    _edit(tmp_path, *EDITS[0])
    expected = _run(dynlint, tmp_path, "--no-cache")
    r = _run(dynlint, tmp_path)
    assert r.stdout == expected.stdout
    [warning] = [line for line in r.stderr.splitlines() if "warning" in line]
    assert str(blobs) in warning


def test_facts_gone_are_computed_again_silently(dynlint, tmp_path):
    _write(tmp_path)
    assert _run(dynlint, tmp_path).stderr == ""
    file, blobs = _files(tmp_path)
    blobs.unlink()                          # a crash between the writes of the two files
    _edit(tmp_path, *EDITS[0])
    expected = _run(dynlint, tmp_path, "--no-cache")
    r = _run(dynlint, tmp_path)
    assert r.stdout == expected.stdout and r.stderr == ""
    assert set(json.loads(blobs.read_text())["blobs"]) == _referenced(file)
    _edit(tmp_path, *EDITS[1])              # and the rebuilt file serves the next step
    expected = _run(dynlint, tmp_path, "--no-cache")
    r = _run(dynlint, tmp_path)
    assert r.stdout == expected.stdout and r.stderr == ""
