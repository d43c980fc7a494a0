"""An object built through a registry (`solver = SOLVERS[method](y0=y0)` with `SOLVERS = {"euler":
Euler, "heun": Heun}`, a module-level literal of classes) may be any of them: a method call on
it (`solver.integrate(t)`) is a call site of that method of each class, found along their
bases in other files (analysis/registries.py; crossfile counts the importers of a class's
subclasses as its callers). `integrate`'s unannotated `t` is a tensor when every such site
passes one, and not when a caller passes a list (through a registry of its own: a call on an
object of unknown origin is a site the analysis does not see, as everywhere). Through the
real CLI."""
from __future__ import annotations

import json

from _tree import write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/solvers.py": """\
        class Solver:
            def __init__(self, y0):
                self.y0 = y0

            def integrate(self, t):
                if t[0] > t[-1]:
                    raise ValueError("t must increase")
                return self.y0
        """,
    "pkg/euler.py": """\
        from pkg.solvers import Solver


        class Euler(Solver):
            order = 1
        """,
    "pkg/heun.py": """\
        from pkg.solvers import Solver


        class Heun(Solver):
            order = 2
        """,
    "pkg/api.py": """\
        import torch
        from pkg.euler import Euler
        from pkg.heun import Heun

        SOLVERS = {"euler": Euler, "heun": Heun}


        def odeint(y0, t: torch.Tensor, method="euler"):
            prepare = lambda y: y.contiguous()      # (a lambda's frame binds no name)
            solver = SOLVERS[method](y0=prepare(y0))
            return solver.integrate(t)
        """,
}
LIST_CALLER = {"pkg/grid.py": """\
    import torch
    from pkg.euler import Euler

    FIXED = (Euler,)


    def fixed_grid_solve(y0):
        solver = FIXED[0](y0=y0)
        return solver.integrate([0.0, 0.5, 1.0]), torch.zeros(())
    """}


def _findings(dynlint, root):
    out = dynlint("check", ".", "--no-cache", "--output-format", "json", cwd=root)
    return sorted((f["path"].replace("\\", "/").rsplit("/", 1)[-1], f["line"], f["code"])
                  for f in json.loads(out.stdout))


def test_calls_on_a_registry_built_object_teach_the_method(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    assert _findings(dynlint, tmp_path) == [("solvers.py", 6, "DYN204")]


def test_a_caller_passing_a_list_withdraws_the_claim(dynlint, tmp_path):
    write_tree(tmp_path, {**FILES, **LIST_CALLER})
    assert _findings(dynlint, tmp_path) == []
