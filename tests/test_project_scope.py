"""The project is the repository, not the list of files named: a file checked alone (as
pre-commit passes it) gets exactly the findings it gets when its whole project is checked,
through the real CLI, on a small cross-file fixture and on a copy of the installed torchvision."""
from __future__ import annotations

import collections
import shutil
from pathlib import Path

import pytest

from _tree import write_tree

FIXTURE = {
    "pkg/__init__.py": "",
    "pkg/utils.py": """\
        import torch

        def is_padded(mask: torch.Tensor) -> bool:
            return mask.all().tolist()

        def helper(t: torch.Tensor):
            return deeper(t)

        def deeper(t: torch.Tensor):
            return t.max().tolist()
        """,
    "pkg/model.py": """\
        import torch
        from .utils import is_padded, helper


        class Net(torch.nn.Module):
            def forward(self, x, mask):
                if is_padded(mask):
                    return x
                return helper(x)
        """,
}


def _by_file(stdout: str, cwd: Path) -> dict:
    out = collections.defaultdict(list)
    for line in stdout.splitlines():
        path, rest = line.split(":", 1)
        out[(cwd / path).resolve()].append(rest)
    return dict(out)


def _write(root: Path, files: dict) -> None:
    write_tree(root, files)


def test_a_file_alone_sees_the_callers_in_its_project(dynlint, tmp_path):
    _write(tmp_path, FIXTURE)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    whole = dynlint("check", ".", "-q", "--no-cache", cwd=tmp_path)
    assert whole.returncode == 1
    # Both helpers are reached only from forward in model.py.
    assert [l.split(": ")[0].split(":")[:2] for l in whole.stdout.splitlines()] == \
        [["pkg/utils.py", "4"], ["pkg/utils.py", "10"]]
    for cache in (["--no-cache"], []):
        alone = dynlint("check", "pkg/utils.py", "-q", *cache, cwd=tmp_path)
        assert alone.stdout == whole.stdout
    warm = dynlint("check", "pkg/utils.py", "-q", cwd=tmp_path)        # facts from the cache
    assert warm.stdout == whole.stdout
    # The one-file view (what flake8 sees) stays available.
    assert dynlint("check", "pkg/utils.py", "-q", "--no-cross-file", "--no-cache",
                   cwd=tmp_path).stdout == ""


def test_an_edit_to_another_file_is_seen(dynlint, tmp_path):
    _write(tmp_path, FIXTURE)
    (tmp_path / "setup.py").write_text("")
    assert dynlint("check", "pkg/utils.py", "-q", cwd=tmp_path).stdout.count("utils.py:") == 2
    model = tmp_path / "pkg/model.py"
    model.write_text(model.read_text().replace("return helper(x)", "return x"))
    out = dynlint("check", "pkg/utils.py", "-q", cwd=tmp_path).stdout
    assert out.count("utils.py:") == 1 and "utils.py:4:" in out


def test_excluded_files_are_not_part_of_the_project(dynlint, tmp_path):
    _write(tmp_path, FIXTURE)
    (tmp_path / "pyproject.toml").write_text("[tool.dynlint]\nextend-exclude = ['pkg/model.py']\n")
    # model.py is excluded: neither the whole check nor the lone file sees its forward.
    assert dynlint("check", ".", "-q", "--no-cache", cwd=tmp_path).stdout == ""
    assert dynlint("check", "pkg/utils.py", "-q", "--no-cache", cwd=tmp_path).stdout == ""


def test_no_project_marker_means_only_the_files_named(dynlint, tmp_path):
    _write(tmp_path / "loose", FIXTURE)
    # No pyproject.toml, setup.py, setup.cfg or .git above (the temporary directory).
    r = dynlint("check", "loose/pkg/utils.py", "-q", "--no-cache", cwd=tmp_path)
    if any((p / m).exists() for p in tmp_path.parents
           for m in ("pyproject.toml", "setup.py", "setup.cfg", ".git")):
        pytest.skip("the temporary directory is inside a project")
    assert r.stdout == ""


def test_installed_package_is_its_own_project(dynlint, tmp_path):
    """In site-packages the project is the top-level package, not the checkout holding the
    virtualenv: another package next to it does not count, its own files do."""
    _write(tmp_path, {"pyproject.toml": ""})
    site = tmp_path / ".venv/lib/python3.11/site-packages"
    _write(site, FIXTURE)
    # A neighbour package whose forward also calls a helper of pkg: not pkg's project.
    _write(site, {"other/__init__.py": "", "other/m.py": """\
        import torch
        from pkg.utils import deeper

        class M(torch.nn.Module):
            def forward(self, x):
                return deeper(x)
        """})
    utils = site / "pkg/utils.py"
    whole = dynlint("check", site / "pkg", "-q", "--no-cache", cwd=tmp_path).stdout
    alone = dynlint("check", utils, "-q", "--no-cache", cwd=tmp_path).stdout
    assert alone == whole and alone.count("utils.py:") == 2
    # Only `other` calls `deeper` once pkg's forward stops calling helper.
    model = site / "pkg/model.py"
    model.write_text(model.read_text().replace("return helper(x)", "return x"))
    alone = dynlint("check", utils, "-q", "--no-cache", cwd=tmp_path).stdout
    assert alone.count("utils.py:") == 1 and "utils.py:4:" in alone


def _torchvision_copy(tmp_path) -> Path:
    torchvision = pytest.importorskip("torchvision")
    src = Path(torchvision.__file__).parent
    site = tmp_path / "venv/lib/python3.11/site-packages"
    site.mkdir(parents=True)
    (tmp_path / "venv/pyvenv.cfg").write_text("home = /usr/bin\n")
    shutil.copytree(src, site / "torchvision", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    return site / "torchvision"


def test_real_package_alone_equals_whole(dynlint, tmp_path):
    pkg = _torchvision_copy(tmp_path)
    whole = dynlint("check", pkg, "-q", "--no-cache", cwd=tmp_path)
    one_file = dynlint("check", pkg, "-q", "--no-cache", "--no-cross-file", cwd=tmp_path)
    by_file = _by_file(whole.stdout, tmp_path)
    alone_view = _by_file(one_file.stdout, tmp_path)
    # Files some of whose findings only the cross-file step gives, and files it adds nothing to.
    crossed = sorted(p for p in by_file if by_file[p] != alone_view.get(p, []))
    plain = sorted(p for p in by_file if p not in crossed)
    assert len(crossed) >= 2, crossed
    chosen = crossed[:4] + plain[:2]
    for path in chosen:
        alone = dynlint("check", path, "-q", cwd=tmp_path)     # the cache: cold, then warm
        assert _by_file(alone.stdout, tmp_path) == {path: by_file[path]}, path
    # Two changed files at once, as pre-commit passes them.
    both = dynlint("check", chosen[0], chosen[1], "-q", cwd=tmp_path)
    assert _by_file(both.stdout, tmp_path) == {p: by_file[p] for p in chosen[:2]}
