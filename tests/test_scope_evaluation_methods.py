"""A method named `test*` that no test runner collects is evaluation code, and what only it
calls across files is cold (pytorch-metric-learning 2.9.0's testers, read by hand in set c:
`BaseTester.test` calls `self.do_knn_and_accuracies(...)`, which its subclasses of other files
override with masks over a whole split). pytest collects `test*` methods only from classes
named `Test*`, unittest only from `TestCase`s: a `test*` of those still says "API" (a test
calling a function is no sign that it is not API), and so does a module-level `test`."""
from __future__ import annotations

import json
from pathlib import Path

from _tree import write_tree

BODY = """
                curr = query_labels[query_labels > 0]
                return curr.sum()
"""

FILES = {
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
            def do_knn(self, query_labels):""" + BODY + """

        def checked(query_labels):""" + BODY + """

        def api(query_labels):""" + BODY,
}


def _findings(dynlint, root, *args):
    out = dynlint("check", *args, "--output-format", "json", "--no-cache", cwd=root)
    return sorted((f["path"].rsplit("/", 1)[-1], f["scope"], f["line"], f["code"])
                  for f in json.loads(out.stdout))


def test_a_testers_test_method_is_evaluation(dynlint, tmp_path: Path):
    write_tree(tmp_path, FILES)
    whole = _findings(dynlint, tmp_path, ".")
    flagged = {scope for path, scope, _, _ in whole if path == "parent.py"}
    # `do_knn`: only a tester's `test` calls it; `checked` and `api`: tests call them (API).
    assert flagged == {"checked", "api"}, whole
    alone = _findings(dynlint, tmp_path, "pkg/parent.py")
    assert alone == [f for f in whole if f[0] == "parent.py"], (alone, whole)
