"""A template method's call `self.m(...)` in a base class teaches the overrides of `m` in
subclasses of other files what it passes, as it already did for overrides in the base's own
file (summaries._overrides): torchdiffeq's `AdaptiveStepsizeODESolver.integrate` (solvers.py)
calls `self._advance(t[i])` with an element of the time tensor; `_advance` is implemented by
`RKAdaptiveStepsizeODESolver` in rk_common.py, whose `while next_t > self.rk_state.t1:` reads
a tensor every step. The file with the override checked alone gets the same finding (the
base's file is walked for its sites); a base passing a plain number teaches nothing. Through
the real CLI on a small package."""
from __future__ import annotations


from _tree import write_tree, findings

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/base.py": """\
        import torch


        class Base:
            def __init__(self, y0):
                self.y0 = y0

            def _advance(self, next_t):
                raise NotImplementedError

            def integrate(self, t):
                solution = torch.empty(len(t), *self.y0.shape)
                t = t.to(self.y0.dtype)
                for i in range(1, len(t)):
                    solution[i] = self._advance(t[i])
                return solution
        """,
    "pkg/sub.py": """\
        from pkg.base import Base


        class Sub(Base):
            def _advance(self, next_t):
                n = 0
                while next_t > self.y0.sum():
                    n += 1
                return next_t * n
        """,
}


def _findings(dynlint, root, *args):
    return findings(dynlint, root, *args, "--no-cache")


def test_a_base_teaches_an_override_in_another_file(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    for target in (".", "pkg/sub.py"):
        assert _findings(dynlint, tmp_path, target) == [("sub.py", 7, "DYN204")], target
    # One file alone (flake8's view): nothing says what `next_t` is.
    assert _findings(dynlint, tmp_path, "pkg/sub.py", "--no-cross-file") == []


def test_a_base_passing_a_number_teaches_nothing(dynlint, tmp_path):
    files = dict(FILES)
    files["pkg/base.py"] = FILES["pkg/base.py"].replace("self._advance(t[i])", "self._advance(0.5)")
    write_tree(tmp_path, files)
    assert _findings(dynlint, tmp_path, ".") == []


def test_a_subclass_of_another_base_is_not_taught(dynlint, tmp_path):
    """An `_advance` of a class that does not derive from `Base` is no override of it."""
    files = dict(FILES)
    files["pkg/sub.py"] = FILES["pkg/sub.py"].replace("class Sub(Base):", "class Sub:")
    write_tree(tmp_path, files)
    assert _findings(dynlint, tmp_path, ".") == []
