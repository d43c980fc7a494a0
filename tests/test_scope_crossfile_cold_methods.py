"""Methods cold by their callers, across files, through the real CLI (nerfstudio's
`populate_modules`: `Model.__init__` calls `self.populate_modules()`, each model of another
file overrides it and calls `super().populate_modules()`; its dataparsers'
`_load_3D_points`, called only from their cold `_generate_dataparser_outputs`). A method is
called by attribute on an object of any class, so every `.m(...)` of the project counts as a
call of each method `m`: the method is cold when every such call is in cold code (the calls
from within a method `m` itself, `super().m()`, run only once some `m` runs). Its twins stay
in scope: a method that model code also calls by attribute, one `__init__` hands on as a
hook (named, not called), one only a comment of library code names beside a real call, one
only a script outside the package calls (public API to the package)."""
from __future__ import annotations

import json
from pathlib import Path

from _tree import write_tree

BODY = """
                if (self.box[3:] - self.box[:3]).norm() > 1:
                    self.step = ((self.box[3:] - self.box[:3]) ** 2).sum().sqrt().item()
"""

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/base.py": """\
        import torch


        class Model(torch.nn.Module):
            def __init__(self, box):
                super().__init__()
                self.box = box
                self.populate()
                self.hook = self.handed
                # self.api() would rebuild it
                self.prepare()

            def populate(self):
                # NOTE: call `super().populate()` in subclasses
                self.lin = torch.nn.Linear(3, 3)

            def prepare(self):
                pass

            def handed(self):
                pass

            def forward(self, x):
                self.hook()
                return self.lin(x)
        """,
    "pkg/ngp.py": """\
        import torch
        from pkg.base import Model


        class NGP(Model):
            def populate(self):
                super().populate()""" + BODY + """
            def prepare(self):""" + BODY + """
            def handed(self):""" + BODY + """
            def api(self):""" + BODY + """

        class Step(torch.nn.Module):
            def forward(self, model, x):
                model.prepare()
                return x
        """,
    # A script beside the package calls `api` from its `main`: a method of that name on an
    # object of any class, maybe not this one; only the package's own cold code says so.
    "scripts/run.py": """\
        from pkg.ngp import NGP


        def main():
            NGP(None).api()
        """,
}


def _findings(dynlint, root, *args):
    out = dynlint("check", *args, "--output-format", "json", "--no-cache", cwd=root)
    return sorted((f["path"].rsplit("/", 1)[-1], f["scope"], f["line"], f["code"])
                  for f in json.loads(out.stdout))


def test_method_only_cold_code_calls_is_cold(dynlint, tmp_path: Path):
    write_tree(tmp_path, FILES)
    whole = _findings(dynlint, tmp_path, ".")
    flagged = {scope for path, scope, _, _ in whole if path == "ngp.py"}
    # `populate`: `__init__` calls it, the override's `super().populate()` is its own.
    # `prepare`: model code calls it too; `handed`: `__init__` stores it as a hook;
    # `api`: nothing calls it (a comment of `__init__` names a call).
    assert flagged == {"NGP.prepare", "NGP.handed", "NGP.api"}, whole
    # A file checked alone gets what it gets with its project.
    alone = _findings(dynlint, tmp_path, "pkg/ngp.py")
    assert alone == [f for f in whole if f[0] == "ngp.py"], (alone, whole)
    why = dynlint("check", "--no-cache", "--explain", "pkg/ngp.py:8", cwd=tmp_path).stdout
    assert "cold" in why and "only from cold code" in why, why


# A method named `test*` that no test runner collects is evaluation code, and what only it
# calls across files is cold (pytorch-metric-learning 2.9.0's testers, read by hand in set c:
# `BaseTester.test` calls `self.do_knn_and_accuracies(...)`, which its subclasses of other files
# override with masks over a whole split). pytest collects `test*` methods only from classes
# named `Test*`, unittest only from `TestCase`s: a `test*` of those still says "API" (a test
# calling a function is no sign that it is not API), and so does a module-level `test`.
TESTER_BODY = """
                curr = query_labels[query_labels > 0]
                return curr.sum()
"""

TESTER_FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/testers.py": """\
        import unittest


        class BaseTester:
            def test(self, query_labels):
                return self.do_knn(query_labels)

            def do_knn(self, query_labels):
                raise NotImplementedError


        class TesterChecks(unittest.TestCase):
            def test_checked(self):
                from pkg.parent import checked
                self.assertTrue(checked(None))


        def test_api(query_labels):
            from pkg.parent import api
            return api(query_labels)
        """,
    "pkg/parent.py": """\
        from pkg.testers import BaseTester


        class WithSameParentLabelTester(BaseTester):
            def do_knn(self, query_labels):""" + TESTER_BODY + """

        def checked(query_labels):""" + TESTER_BODY + """

        def api(query_labels):""" + TESTER_BODY,
}


def test_a_testers_test_method_is_evaluation(dynlint, tmp_path: Path):
    write_tree(tmp_path, TESTER_FILES)
    whole = _findings(dynlint, tmp_path, ".")
    flagged = {scope for path, scope, _, _ in whole if path == "parent.py"}
    # `do_knn`: only a tester's `test` calls it; `checked` and `api`: tests call them (API).
    assert flagged == {"checked", "api"}, whole
    alone = _findings(dynlint, tmp_path, "pkg/parent.py")
    assert alone == [f for f in whole if f[0] == "parent.py"], (alone, whole)
