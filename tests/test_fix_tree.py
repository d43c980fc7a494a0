"""`dynlint check --fix` over copies of real trees: torchvision, part of transformers' models
and part of torch itself, with every kind of fix (safe, unsafe, display-only, including the
mark_step splits). Every output parses, the files touched keep all their comments, and a
second pass changes nothing."""
import ast
import io
import shutil
import tokenize
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
FLAGS = ("--unsafe-fixes", "--apply-display-only", "--extend-select", "DYN301", "--no-cache")


def _package(name):
    module = pytest.importorskip(name)
    return Path(module.__file__).parent


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    root = tmp_path_factory.mktemp("trees")
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyc", "*.dll", "*.dylib")
    shutil.copytree(_package("torchvision"), root / "torchvision", ignore=ignore)
    models = _package("transformers") / "models"
    for d in sorted(models.iterdir()):
        if d.is_dir() and d.name[0] in "abcd":
            shutil.copytree(d, root / "transformers" / d.name, ignore=ignore)
    torch_dir = _package("torch")
    for sub in ("nn", "_refs", "distributions"):
        shutil.copytree(torch_dir / sub, root / "torch" / sub, ignore=ignore)
    return root


def _sources(root):
    return {p: p.read_bytes() for p in root.rglob("*.py")}


def test_fix_a_real_tree_twice(trees, dynlint):
    before = _sources(trees)
    assert len(before) > 800
    r = dynlint("check", "--fix", *FLAGS, ".", cwd=trees, timeout=600)
    assert r.returncode in (0, 1), r.stderr
    assert "fixes not applied" not in r.stderr and "does not parse" not in r.stderr, r.stderr
    after = _sources(trees)
    changed = [p for p in before if after[p] != before[p]]
    assert len(changed) >= 30, f"only {len(changed)} files fixed"
    for path, data in after.items():
        try:
            ast.parse(data, filename=str(path))
        except SyntaxError as exc:       # pragma: no cover - the failure message
            pytest.fail(f"{path} does not parse after --fix: {exc}")
    assert "mark_step()" in b"".join(after[p] for p in changed).decode()
    # Second pass: nothing left to change.
    r = dynlint("check", "--diff", *FLAGS, ".", cwd=trees, timeout=600)
    assert r.returncode == 0 and r.stdout == "", r.stdout[:3000]
    assert _sources(trees) == after
    # The rewrites keep every comment of the files they touch.
    for p in changed:
        lost = _comments(before[p]) - _comments(after[p])
        assert not lost, f"{p}: comments lost: {list(lost)[:5]}"


def _comments(data: bytes) -> Counter:
    tokens = tokenize.tokenize(io.BytesIO(data).readline)
    return Counter(t.string for t in tokens if t.type == tokenize.COMMENT)
