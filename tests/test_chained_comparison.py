"""A chained comparison is an `and` of its links (`t0 < t < t1` is `t0 < t and t < t1`): Python
tests every link but the last for truth, so one comparing a tensor reads it on the host
wherever the chain's value goes (`on_jump = t0 < next_t < t0 + dt`, DYN204). A chain of
Python numbers, or one whose only tensor is in its last link, reads nothing. Through the real
CLI on a package whose helper learns its parameters are tensors from a caller in another file."""
from __future__ import annotations

import json

from _tree import write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/steps.py": """\
        def crossing(t0, dt, jumps, i):
            on_jump = t0 < jumps[i] < t0 + dt
            in_range = 0 <= i < len(jumps)
            last_only = 0 <= i < dt
            return on_jump, in_range, last_only
        """,
    "pkg/model.py": """\
        import torch
        from pkg.steps import crossing


        class Net(torch.nn.Module):
            def forward(self, x: torch.Tensor, t0: torch.Tensor, dt: torch.Tensor):
                on_jump, _, _ = crossing(t0, dt, x.cumsum(0), 3)
                return x * on_jump
        """,
}


def test_a_chained_comparison_tests_its_tensor_links(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    out = dynlint("check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path)
    found = sorted((f["path"].replace("\\", "/").rsplit("/", 1)[-1], f["line"], f["code"])
                   for f in json.loads(out.stdout))
    assert found == [("steps.py", 2, "DYN204")], found
