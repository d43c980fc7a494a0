"""Arguments reach the methods of an instance built in the same function from a class of the
same file (`ctl = Controller(...)`, then `ctl.propose(err)`): the local holds exactly what the
constructor built, so the call binds its arguments like a call of a function of the file does
(summaries.LocalCalls.local_methods); from a class of another file, the site goes to that
class's method as a call of an imported function's does. Through the real CLI on small packages."""
from __future__ import annotations

import textwrap

from _tree import findings, write_tree

CONTROLLER = textwrap.dedent("""\
    class Controller:
        def __init__(self, h, eps=1e-8):
            self.h = h
            self.eps = eps

        def propose(self, error):
            inv = 1 / (float(error) + self.eps)
            self.h *= inv
            return inv > 1
    """)
SOLVER = "import torch\nfrom torch import nn\n\n\n" + CONTROLLER + "\n\n" + textwrap.dedent("""\
    class Solver(nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def t(self, sigma):
            return -sigma.log()

        def solve(self, x, t_start, t_end):
            if not t_end > t_start:
                raise ValueError("reverse")
            ctl = Controller(0.1)
            s = t_start
            while s < t_end:
                x = self.model(x)
                ctl.propose(ERROR)
                s = s + ctl.h
            return x


    def sample(model, x, sigma_min, sigma_max):
        solver = Solver(model)
        return solver.solve(x, solver.t(torch.tensor(sigma_max)), solver.t(torch.tensor(sigma_min)))
    """)


def _check(dynlint, tmp_path, error: str) -> list:
    write_tree(tmp_path, {"pyproject.toml": "[project]\nname = 'pkg'\n", "pkg/__init__.py": "",
                          "pkg/samp.py": SOLVER.replace("ERROR", error)})
    return findings(dynlint, tmp_path, ".", "--no-cache")


def test_tensor_arguments_reach_methods_of_a_local_instance(dynlint, tmp_path):
    got = _check(dynlint, tmp_path, "torch.linalg.norm(x) / x.numel()")
    # `float(error)` in the controller's method; the solver's parameters are the tensors
    # `solver.t(...)` returns (`-sigma.log()`), tested as Python conditions.
    assert got == [("samp.py", 11, "DYN203"), ("samp.py", 25, "DYN204"),
                   ("samp.py", 29, "DYN204")], got


def test_a_python_number_passed_to_the_method_is_no_tensor(dynlint, tmp_path):
    got = _check(dynlint, tmp_path, "0.5")
    assert ("samp.py", 11, "DYN203") not in got, got


CROSS_FILE = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/ctl.py": CONTROLLER,
    "pkg/solver.py": """\
        import torch
        from torch import nn

        from pkg.ctl import Controller


        class Solver(nn.Module):
            def __init__(self, model):
                super().__init__()
                self.model = model

            def forward(self, x):
                ctl = Controller(0.1)
                for _ in range(3):
                    x = self.model(x)
                    ctl.propose(ERROR)
                return x
        """,
}


def test_arguments_reach_methods_of_a_local_instance_of_a_class_of_another_file(dynlint, tmp_path):
    # The same fact across files: the call's site goes to `pkg.ctl.Controller.propose`
    # (summaries.LocalCalls.external_key), as a call of an imported function's does.
    files = dict(CROSS_FILE)
    files["pkg/solver.py"] = files["pkg/solver.py"].replace("ERROR", "torch.linalg.norm(x) / x.numel()")
    write_tree(tmp_path, files)
    got = findings(dynlint, tmp_path, ".", "--no-cache")
    assert got == [("ctl.py", 7, "DYN203")], got
    (tmp_path / "pkg/solver.py").write_text(
        (tmp_path / "pkg/solver.py").read_text().replace("torch.linalg.norm(x) / x.numel()", "0.5"))
    assert findings(dynlint, tmp_path, ".", "--no-cache") == []
