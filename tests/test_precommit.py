"""The pre-commit hooks, run by real pre-commit (`try-repo`) in a temporary git repository.

try-repo clones the hook repository at a commit (adding tracked, uncommitted changes, but not
untracked files), then builds a fresh virtualenv and pip-installs it from PyPI-resolved
dependencies. To test exactly what is on disk, in a dirty working tree and in a fresh CI clone
alike, the package is copied into a new repository and committed there first. Each run
installs from scratch (try-repo uses a throw-away store): about 10-15 s each, hence `slow`.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from _pkgsnap import snapshot

pytest.importorskip("pre_commit")
pytestmark = pytest.mark.slow

BAD = """\
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        y = x[x > 0]
        return y, torch.nonzero(x)
"""
CLEAN = """\
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        return torch.where(x > 0, x, torch.zeros_like(x)).sum()
"""
# The canonical safe fix (issue 3): a masked selection that only feeds a sum.
FIXABLE = """\
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        return x[x > 0].sum()
"""


def _env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV") and not k.startswith("GIT_")}
    env.update(PRE_COMMIT_HOME=str(home / "pc-home"), PRE_COMMIT_COLOR="never",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com",
               GIT_CONFIG_NOSYSTEM="1")
    return env


def _git(*args, cwd, env):
    subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false",
                    *args], cwd=cwd, env=env, check=True, capture_output=True)


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    repo = snapshot(tmp_path_factory.mktemp("hook-repo"))
    assert (repo / ".pre-commit-hooks.yaml").is_file()
    env = _env(home)
    _git("init", "-q", cwd=repo, env=env)
    _git("add", "-A", cwd=repo, env=env)
    _git("commit", "-q", "-m", "snapshot", cwd=repo, env=env)
    return repo, home


@pytest.fixture
def project(tmp_path, hook_repo):
    _, home = hook_repo
    _git("init", "-q", cwd=tmp_path, env=_env(home))
    return tmp_path


def try_repo(hook_repo, project, hook, *args):
    repo, home = hook_repo
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(repo), hook,
                           "--color", "never", *args], cwd=project, env=_env(home),
                          capture_output=True, text=True, timeout=600)
    return proc, proc.stdout + proc.stderr


def test_violation_fails_the_hook(hook_repo, project):
    (project / "model.py").write_text(BAD)
    proc, out = try_repo(hook_repo, project, "dynlint", "--files", "model.py")
    assert proc.returncode == 1, out
    assert "dynlint" in out and "Failed" in out
    # the default (full) format: each finding with its source line
    assert "DYN101" in out and "--> model.py:6:13" in out and "--> model.py:7:19" in out


def test_clean_file_passes(hook_repo, project):
    (project / "model.py").write_text(CLEAN)
    (project / "notes.txt").write_text(BAD)           # not Python: types_or keeps it out
    proc, out = try_repo(hook_repo, project, "dynlint", "--files", "model.py", "notes.txt")
    assert proc.returncode == 0, out
    assert "Passed" in out


def test_only_staged_files_are_checked(hook_repo, project):
    env = _env(hook_repo[1])
    (project / "staged.py").write_text(BAD)
    (project / "stub.pyi").write_text("import torch\ndef f(x: torch.Tensor) -> torch.Tensor: ...\n")
    (project / "unstaged.py").write_text(BAD)
    _git("add", "staged.py", "stub.pyi", cwd=project, env=env)
    proc, out = try_repo(hook_repo, project, "dynlint")
    assert proc.returncode == 1, out
    assert "--> staged.py:6:13" in out
    assert "unstaged.py" not in out


def test_fix_hook_rewrites_a_fixable_file_and_says_so(hook_repo, project):
    target = project / "model.py"
    target.write_text(FIXABLE)
    # Staged, as in a real commit: pre-commit spots a hook's edits by diffing against the index.
    _git("add", "model.py", cwd=project, env=_env(hook_repo[1]))
    proc, out = try_repo(hook_repo, project, "dynlint-fix", "--files", "model.py")
    fixed = target.read_text()
    assert proc.returncode == 1, out                   # pre-commit fails a hook that edits files
    assert "files were modified by this hook" in out
    assert "1 fixed" in out, out                       # dynlint's own report of what it did
    assert fixed != FIXABLE and "x[x > 0]" not in fixed and "x.where(" in fixed
    # The rewritten file is clean, so the check hook now passes on it.
    proc, out = try_repo(hook_repo, project, "dynlint", "--files", "model.py")
    assert proc.returncode == 0, out
