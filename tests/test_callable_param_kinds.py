"""A function's parameter called with tensors (`norm(y / scale)`: a norm, an activation, an
ODE's right-hand side handed in by the caller) returns a probable tensor, as a submodule's
output does: a tensor method of it (`.abs()`) is a tensor, a comparison of that a tensor,
and the summaries carry it across files to the `if` that tests it. A callback given plain
values, or a parameter annotated, makes no claim. Through the real CLI on a small package."""
from __future__ import annotations

from _tree import findings as _findings, write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/misc.py": """\
        import torch


        def linf_norm(t):
            return t.abs().max()


        def error_ratio(err, rtol, y0, norm):
            tol = rtol * torch.max(y0.abs(), err.abs())
            return norm(err / tol).abs()


        def step_size(last, ratio):
            if ratio == 0:
                return last * 2
            return last


        def logged(log, x):
            out = log(x.shape[0], "steps").abs()
            if out:
                return x
            return x * 2
        """,
    "pkg/solver.py": """\
        import torch
        from pkg.misc import error_ratio, linf_norm, step_size


        class Solver(torch.nn.Module):
            def converged(self, y0, y1):
                ratio = error_ratio(torch.abs(y0 - y1), 1e-3, y0, linf_norm)
                return ratio < 1

            def forward(self, y: torch.Tensor):
                dy = y * 2
                ok = self.converged(y, dy)
                if ok:
                    return dy
                return step_size(dy, error_ratio(dy, 1e-3, y, linf_norm))
        """,
}


def test_a_called_parameter_returns_a_tensor_across_files(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    found = _findings(dynlint, tmp_path, ".", "--no-cache")
    # `if ok:` of `ratio < 1` (solver.py:13) and `if ratio == 0:` in the helper every caller
    # feeds the ratio (misc.py:14); `log(x.shape[0], "steps")` is given no tensor (no claim).
    assert found == [("misc.py", 14, "DYN204"), ("solver.py", 13, "DYN204")], found


def test_an_annotated_callable_makes_no_claim(dynlint, tmp_path):
    files = dict(FILES)
    files["pkg/misc.py"] = files["pkg/misc.py"].replace(
        "def error_ratio(err, rtol, y0, norm):", "def error_ratio(err, rtol, y0, norm: object):")
    write_tree(tmp_path, files)
    assert _findings(dynlint, tmp_path, ".", "--no-cache") == []
