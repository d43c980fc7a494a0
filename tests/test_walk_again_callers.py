"""Which functions a walk again walks (summaries.LocalCalls.with_callers): those told what
other files return and the file's functions that call them. A caller is a function whose body
mentions the name, or, for a module's `forward` (`__call__`), a method of a class that may
hold an instance of it in `self.x` (`self.x(...)` names neither). Another class's method of
the same name is no caller: its `def` line used to count as a mention, so a walk again of one
`forward` walked every `forward` of the file (a third of the cross-file step's CPU on
transformers, findings unchanged without them)."""
from __future__ import annotations

import ast
import json
import textwrap

from _tree import write_tree

from dynlint.analysis.scopes import index_module
from dynlint.analysis.walker import Analyzer
from dynlint.engine.match import split_lines

MODEL = """\
    from torch import nn
    from pkg.helpers import keep


    class Inner(nn.Module):
        def forward(self, x):
            return keep(x)


    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def forward(self, x):
            return x[self.inner(x)]


    class Other(nn.Module):
        def forward(self, x):
            return x * 2


    def run(x):
        return Other().forward(x)
    """
FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/helpers.py": """\
        import torch


        def keep(x):
            return torch.as_tensor(x) > 0
        """,
    "pkg/model.py": MODEL,
}


def _callers(source: str, only: set) -> list:
    source = textwrap.dedent(source)
    tree, lines = ast.parse(source), split_lines(source)
    a = Analyzer()
    a.lines, a.module_name = lines, "pkg.model"
    a.scopes = index_module(tree, lines, module="pkg.model")
    return sorted(a.calls.with_callers(only))


def test_a_method_of_the_same_name_is_no_caller():
    # `Outer` holds an `Inner`: its methods count; `Other.forward` only shares the name
    # (`run`, which mentions `forward` in its body, counts: a mention is enough).
    assert _callers(MODEL, {"Inner.forward"}) == ["Inner.forward", "Outer.__init__",
                                                  "Outer.forward", "run"]
    assert _callers(MODEL, {"Other.forward"}) == ["Other.forward", "run"]


def test_the_holder_of_a_module_is_walked_again(dynlint, tmp_path):
    # `Inner.forward` returns what `keep` (another file) returns, a bool mask: known only in
    # the walk again, which must walk `Outer.forward` too, whose `self.inner(x)` it indexes.
    write_tree(tmp_path, FILES)
    for path in (".", "pkg/model.py"):              # the project, the file alone
        out = dynlint("check", path, "--no-cache", "--output-format", "json", cwd=tmp_path)
        found = [(f["line"], f["code"]) for f in json.loads(out.stdout)]
        assert found == [(16, "DYN101")], (path, out.stdout, out.stderr)
