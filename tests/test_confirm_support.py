"""Shared helpers for the confirm tests (no tests here)."""
from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples", "confirm")


def run_cli(args: list[str], timeout: float = 240, command=("dynlint.confirm",)) -> subprocess.CompletedProcess:
    """`python -m dynlint.confirm ARGS` (or another `command`) in a fresh interpreter, from the repo root."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", *command, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)
