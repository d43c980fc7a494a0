"""An `else` block runs instead of the `if` body: a name that held a tensor before the `if`
and that the body rebinds to a plain value (a list, a number) still holds the tensor inside
the `else` (`if isinstance(scores, list): scores = [...] else: scores = scores.cpu()...`, a
predict step's export of a network's output). Before, the `else` read the body's binding
and the copy was missed. After the `if`, the paths join as before (a tensor on one path
and a plain value on the other). Through the real CLI on a small package."""
from __future__ import annotations

import json

from _tree import write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/net.py": """\
        import torch


        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.network = torch.nn.Linear(4, 4)

            def forward(self, X, flag: bool):
                scores, _ = self.network(X)
                if isinstance(scores, list):
                    scores = [s.sum() for s in scores]
                else:
                    scores = scores.cpu().detach().numpy()
                out = self.network(X)
                if flag:
                    out = 0
                else:
                    n = out.cpu()
                return scores, out, n
        """,
}


def test_else_reads_what_the_name_held_before_the_if(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    out = dynlint("check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path)
    found = sorted((f["line"], f["code"]) for f in json.loads(out.stdout))
    assert found == [(14, "DYN214"), (19, "DYN214")], found
