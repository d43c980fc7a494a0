"""One `bisect` lookup outside any loop is no host algorithm (scopes/cold.py): a solver's setup
that deduplicates its device tensor of jump times (`unique`, `(counts > 1).any()`) and then
finds where the run starts in it with one `bisect.bisect(...)` stays in scope, and the helper
only it calls (`tvals[tvals >= t0]`) with it; a function bisecting inside a loop (a search over
many keys) is still a host algorithm and cold, as is one that keeps a heap. Through the real
CLI on a package whose model, in another file, drives the solver."""
from __future__ import annotations

import json

from _tree import write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/solver.py": """\
        import bisect

        import torch


        def _sort_tvals(tvals, t0):
            tvals = tvals[tvals >= t0]
            return torch.sort(tvals).values


        class Solver:
            def __init__(self, jump_t):
                self.jump_t = jump_t

            def before_integrate(self, t):
                jump_t = _sort_tvals(self.jump_t, t[0])
                counts = torch.cat([jump_t, t]).unique(return_counts=True)[1]
                if (counts > 1).any():
                    raise ValueError("repeated")
                self.next_jump = bisect.bisect(jump_t.tolist(), t[0])


        def bucket_all(bounds, values):
            values = torch.as_tensor(values)
            out = []
            for v in values.tolist():
                out.append(bisect.bisect(bounds, v))
            return torch.tensor(out)[values > 0]
        """,
    "pkg/model.py": """\
        import torch
        from pkg.solver import Solver


        class Net(torch.nn.Module):
            def forward(self, x: torch.Tensor, t: torch.Tensor):
                solver = Solver(t)
                solver.before_integrate(t)
                return x
        """,
}


def _findings(dynlint, root, *args):
    out = dynlint("check", *args, "--output-format", "json", cwd=root)
    return sorted((f["path"].replace("\\", "/").rsplit("/", 1)[-1], f["line"], f["code"])
                  for f in json.loads(out.stdout))


def test_one_bisect_lookup_leaves_the_function_in_scope(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    found = _findings(dynlint, tmp_path, ".", "--no-cache")
    lines = {(p, line) for p, line, _ in found}
    assert ("solver.py", 7) in lines, found          # tvals[tvals >= t0]
    assert ("solver.py", 17) in lines, found         # .unique(...)
    assert ("solver.py", 18) in lines, found         # if (counts > 1).any():
    # A bisect in a loop: a host algorithm, cold.
    assert not any(line >= 23 for p, line in lines if p == "solver.py"), found
    r = dynlint("check", "--explain", "pkg/solver.py:28", cwd=tmp_path)
    assert "host algorithm" in r.stdout, r.stdout
