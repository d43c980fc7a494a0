import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_dynlint(*args, cwd=None, input=None, env=None, timeout=300):
    """Run the real CLI in a subprocess (`python -m dynlint ...`)."""
    full_env = dict(os.environ)
    full_env.pop("PYTHONWARNINGS", None)
    # Like ruff's own CLI tests, assertions read one line per finding: the concise format.
    # The default (`full`) is tested in test_output_formats.py and by the docs' transcripts.
    full_env.setdefault("DYNLINT_OUTPUT_FORMAT", "concise")
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "dynlint", *map(str, args)],
        cwd=cwd, input=input, capture_output=True, text=True, env=full_env, timeout=timeout,
    )


@pytest.fixture
def dynlint():
    return run_dynlint


@pytest.fixture
def write(tmp_path):
    """write("a.py", source) -> Path, creating parent directories."""
    def _write(name, text, mode="w", encoding="utf-8"):
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if "b" in mode:
            p.write_bytes(text)
        else:
            p.write_text(text, encoding=encoding)
        return p
    return _write
