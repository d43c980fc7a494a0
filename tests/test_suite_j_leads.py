"""Suite j's decidable leads (bench/results/firstlook.md, "# Suite j"), through the real CLI on
a small package:

- a loop's test and the body's reads before a rebinding see what the body rebinds a name to
  (`diff = float("inf")`, then `while ... diff > xtol: ... diff = torch.linalg.norm(...)`);
- a function of another file declared `-> Tensor` returns a tensor to its callers there, also
  when the walk skips its body (cold by its name: `evaluate_feasibility`);
- names bound by unpacking a literal tuple (`a, b = [], []`) are built as what their items are;
  the `values`/`indices` fields of `torch.max(x, dim=...)` are tensors; a reduction over the
  only dimension of a flattened tensor is 0-d."""
from __future__ import annotations

from _tree import findings, write_tree

LOOPS = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/newton.py": """\
        import torch
        from torch import nn


        class Newton(nn.Module):
            def forward(self, x, xtol: float = 1e-6, max_iter: int = 10):
                diff = float("Inf")
                i = 0
                while i < max_iter and diff > xtol:
                    x_next = x - 0.5 * x
                    diff = torch.linalg.norm(x - x_next)
                    x = x_next
                    i += 1
                err = 1.0
                for _ in range(max_iter):
                    if err < xtol:
                        break
                    err = (x - x.mean()).abs().max()
                    x = x * 0.5
                return x


        class Halving(nn.Module):
            def forward(self, x, xtol: float = 1e-6):
                step = 1.0
                while step > xtol:
                    step = step / 2
                    x = x * step
                for scale in range(3):
                    if scale > 1:
                        x = x * scale
                    scale = x.sum()
                best = 0.0
                for i in range(3):
                    if best > xtol:
                        x = x * 2
                    if i == 2:
                        best = x.sum()
                        break
                return x
        """,
}

CROSS = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/feasibility.py": """\
        import torch
        from torch import Tensor


        def evaluate_feasibility(X: Tensor, tol: float = 0.0) -> Tensor:
            return (X > tol).all(dim=-1)


        def evaluate_flag(X: Tensor) -> bool:
            return True
        """,
    "pkg/model.py": """\
        import torch
        from torch import nn
        from pkg.feasibility import evaluate_feasibility, evaluate_flag


        class Net(nn.Module):
            def forward(self, X):
                infeasible = ~evaluate_feasibility(X)
                if infeasible.any():
                    X = X + 1
                if evaluate_flag(X):
                    X = X - 1
                return X
        """,
}

FIELDS = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/mixed.py": """\
        import torch
        from torch import nn


        class Mixed(nn.Module):
            def forward(self, X: torch.Tensor):
                candidates, values = [], []
                for k in range(3):
                    candidates.append(X * k)
                    values.append(X.sum(-1) * k)
                stacked = torch.stack(values)
                max_res = torch.max(stacked, dim=-1)
                best_batch = torch.argmax(max_res.values)
                best_candidates = candidates[best_batch]
                best_idx = max_res.indices[best_batch]
                return best_candidates, best_idx

            def pick(self, cands: torch.Tensor, vals: torch.Tensor, rows: torch.Tensor):
                best = torch.argmax(vals.view(-1), dim=0)
                per_row = torch.argmax(rows, dim=0)
                return cands[best], cands[per_row]
        """,
}


def _findings(dynlint, root):
    return findings(dynlint, root, ".", "--no-cache")


def test_loop_test_sees_the_bodys_tensor_rebinding(dynlint, tmp_path):
    write_tree(tmp_path, LOOPS)
    # The `while` test and the `for` body's test before the rebinding; not a Python halving,
    # nor a `for` loop's target (each iteration binds it afresh), nor a rebinding followed by
    # a `break`.
    assert _findings(dynlint, tmp_path) == [("newton.py", 9, "DYN204"),
                                            ("newton.py", 16, "DYN204")]


def test_declared_tensor_return_of_a_cold_function_reaches_other_files(dynlint, tmp_path):
    write_tree(tmp_path, CROSS)
    # `-> bool` declares no tensor: `if evaluate_flag(X):` stays quiet.
    assert _findings(dynlint, tmp_path) == [("model.py", 9, "DYN204")]


def test_unpacked_lists_and_reduction_fields(dynlint, tmp_path):
    write_tree(tmp_path, FIELDS)
    # Not `cands[per_row]`: an argmax over one dim of a matrix is a vector, no element.
    assert _findings(dynlint, tmp_path) == [("mixed.py", 14, "DYN213"), ("mixed.py", 15, "DYN210"),
                                            ("mixed.py", 21, "DYN210")]
