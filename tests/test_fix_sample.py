"""Sampled fixes run before and after on the real functions (bench/fix_sample.py).

A few of the sites of the sample in docs/fixes.md, on CPU: dynlint (the CLI, in a
subprocess) offers the fixes on copies of the installed files, each fix is applied alone and
the enclosing function runs before and after on random, empty, all-false and inf/nan inputs.
A control checks that the comparison sees a wrong rewrite: the verdicts are computed, so a
comparison that saw nothing would pass every fix.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

transformers = pytest.importorskip("transformers")
torchvision = pytest.importorskip("torchvision")

BENCH = Path(__file__).resolve().parent.parent / "bench"
SITE = str(Path(transformers.__file__).resolve().parent.parent)
FILES = ["transformers/models/speecht5/modeling_speecht5.py",
         "transformers/models/vits/modeling_vits.py", "torchvision/ops/boxes.py"]


def _rows(stdout: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")]
            for line in stdout.splitlines() if line.startswith("| `")]


def test_sampled_sites_keep_every_value(tmp_path):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    r = subprocess.run([sys.executable, str(BENCH / "fix_sample.py"), "--site", SITE,
                        "--files", *FILES], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=600, check=False)
    rows = _rows(r.stdout)
    assert {row[0].strip("`").split(":")[0] for row in rows} == set(FILES), r.stdout + r.stderr
    assert {row[2] for row in rows} == {"safe", "unsafe"}
    for site, _template, _cls, verdict, cases in rows:
        assert verdict == "equal", (site, cases)
        assert cases.count(": equal") >= 3, (site, cases)      # every case ran
    assert r.returncode == 0


def _speecht5_fix(content: str) -> dict:
    """A hand-made fix on SpeechT5's guided attention loss, replacing what the real fix
    replaces (`losses.masked_select(masks)`) by `content`."""
    rel = "transformers/models/speecht5/modeling_speecht5.py"
    lines = Path(SITE, rel).read_text(encoding="utf-8").splitlines()
    old = "losses.masked_select(masks)"
    line = next(i for i, text in enumerate(lines, 1) if old in text)
    col = lines[line - 1].index(old) + 1
    edit = {"line": line, "column": col, "end_line": line, "end_column": col + len(old),
            "content": content}
    return {"path": rel, "line": line, "column": col, "code": "DYN105",
            "fix": {"applicability": "safe", "message": "control", "edits": [edit], "imports": []}}


@pytest.mark.parametrize("content, expected", [
    ("losses", "CHANGED"),                                  # the masked slots enter the mean
    ("losses.masked_select(masks[0, 0, 0, 0, 0])", "CRASH"),
    # the mask broadcasts over the heads: its own sum is not the number selected
    ("torch.where(masks, losses, 0).sum() / masks.sum()", "CHANGED"),
    ("torch.where(masks, losses, 0).sum() / torch.broadcast_tensors(masks, losses)[0].sum()",
     "equal"),
])
def test_verdict_sees_a_wrong_rewrite(tmp_path, content, expected):
    sys.path.insert(0, str(BENCH))
    try:
        import fix_sample
    finally:
        sys.path.remove(str(BENCH))
    rows, new = fix_sample.run_site(SITE, _speecht5_fix(content), str(tmp_path))
    assert "losses.masked_select(masks)" not in new          # the edit was applied
    assert fix_sample.overall(rows) == expected, rows
