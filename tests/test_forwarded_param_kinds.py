"""A call site that only passes on a parameter of its own function or lambda, unknown there
(`interp = lambda t: self._interp(t0, t)`), is no evidence against the kind the other callers
give the callee's parameter: it passes whatever its own callers pass. Before, such a site
withdrew the claim "every caller passes a tensor" (summaries.upgrade), so torchdiffeq's
`_linear_interp(self, t0, t1, y0, y1, t)`, given `t[j]` of the time tensor by `integrate` and
the lambda's `t` by `integrate_until_event`, was not known to compare tensors in `if t == t0:`.
A caller passing a plain number still withdraws it, and one rebinding its parameter first is
no forwarder. Through the real CLI, in one file and across files."""
from __future__ import annotations


from _tree import write_tree, findings

ONE_FILE = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/solver.py": """\
        import torch


        def _check(t):
            assert isinstance(t, torch.Tensor)
            return t


        class Solver:
            def __init__(self, y0):
                self.y0 = y0

            def integrate(self, t):
                t = _check(t)
                out = []
                for j in range(1, len(t)):
                    out.append(self._interp(self.y0, t[j]))
                return out

            def until_event(self, event_fn):
                interp = lambda s: self._interp(self.y0, s)
                return event_fn(interp)

            def _interp(self, y0, t):
                if t == 0.5:
                    return y0
                return y0 * t
        """,
}


def _findings(dynlint, root, *args):
    return findings(dynlint, root, *args, "--no-cache")


def test_a_forwarding_lambda_keeps_the_tensor_claim(dynlint, tmp_path):
    write_tree(tmp_path, ONE_FILE)
    assert _findings(dynlint, tmp_path, ".") == [("solver.py", 25, "DYN204")]


def test_a_forwarding_function_in_another_file(dynlint, tmp_path):
    """`api(y0, s)` passes its own `s` on to `Solver._interp` from another file."""
    write_tree(tmp_path, {**ONE_FILE, "pkg/api.py": """\
        from pkg.solver import Solver


        def api(y0, s):
            return Solver(y0)._interp(y0, s)
        """})
    for target in (".", "pkg/solver.py"):
        assert _findings(dynlint, tmp_path, target) == [("solver.py", 25, "DYN204")], target


def test_a_number_or_a_rebound_parameter_withdraws_it(dynlint, tmp_path):
    for body in ("interp = lambda s: self._interp(self.y0, 0.5)",
                 "interp = lambda s: self._interp(self.y0, s or 0.5)"):
        files = {**ONE_FILE, "pkg/solver.py": ONE_FILE["pkg/solver.py"].replace(
            "interp = lambda s: self._interp(self.y0, s)", body)}
        write_tree(tmp_path, files)
        assert _findings(dynlint, tmp_path, ".") == [], body
    rebound = ONE_FILE["pkg/solver.py"].replace(
        "def until_event(self, event_fn):", "def until_event(self, event_fn, s):").replace(
        "interp = lambda s: self._interp(self.y0, s)",
        "s = event_fn.start; interp = self._interp(self.y0, s)")
    write_tree(tmp_path, {**ONE_FILE, "pkg/solver.py": rebound})
    assert _findings(dynlint, tmp_path, ".") == []


def test_a_parameter_declared_a_number_is_no_forwarder(dynlint, tmp_path):
    """kornia's `equalize_clahe(input, clip_limit: float = 40.0)` passes its float on to
    `_equalize_clahe`, which an augmentation in another file calls with a tensor: the float
    says what its callers pass (numbers), so the helper's `elif clip > 0.0:` after
    `isinstance(clip, Tensor)` stays a number test."""
    write_tree(tmp_path, {
        "pyproject.toml": "[project]\nname = 'pkg'\n",
        "pkg/__init__.py": "",
        "pkg/eq.py": """\
            from typing import Union

            import torch


            def _luts(tiles: torch.Tensor, clip: Union[float, torch.Tensor] = 40.0):
                if isinstance(clip, torch.Tensor):
                    return tiles.clamp(max=clip)
                elif clip > 0.0:
                    return tiles.clamp(max=clip)
                return tiles


            def _equalize(x: torch.Tensor, clip_limit: Union[float, torch.Tensor]):
                return _luts(x, clip=clip_limit)


            def equalize(x: torch.Tensor, clip_limit: float = 40.0):
                return _equalize(x, clip_limit)
            """,
        "pkg/aug.py": """\
            from typing import Dict

            import torch

            from pkg.eq import _equalize


            class Clahe(torch.nn.Module):
                def forward(self, x: torch.Tensor, params: Dict[str, torch.Tensor]):
                    return _equalize(x, params["clip"])
            """,
    })
    assert _findings(dynlint, tmp_path, ".") == []
