"""dynlint's own source names nothing it does not define or import.

Parallel branches rename helpers (an underscore name made public) while others add callers of
the old name; git merges both cleanly and the run then ends in DYN999 on whatever file reaches
the stale call. ruff's pyflakes checks (undefined name, undefined export, local used before
assignment) catch that statically, whatever code path the other tests happen to take.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKS = "F821,F822,F823"


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache",
                           "--select", CHECKS, *args], capture_output=True, text=True, cwd=ROOT)


def test_package_and_benches_name_only_defined_names():
    pytest.importorskip("ruff")
    result = _ruff("dynlint", "bench")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_check_catches_a_stale_name(tmp_path):
    # The check itself must be able to fail: a call of a helper renamed elsewhere.
    pytest.importorskip("ruff")
    stale = tmp_path / "stale.py"
    stale.write_text("from os.path import join\n\n\ndef f(a, b):\n    return _join(a, b)\n")
    result = _ruff(str(stale))
    assert result.returncode == 1 and "F821" in result.stdout and "_join" in result.stdout
