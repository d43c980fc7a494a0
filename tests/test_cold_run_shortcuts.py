"""Shortcuts of a cold run that must answer exactly what the long way answers:

* `called_instances` with the class names the text mentions first looks for `= C(` before
  the regex's pass over the whole function;
* `_mentions` (a walk again's callers, summaries.with_callers) first asks the names the
  whole function mentions (FunctionInfo.refs, read by the pre-pass) before reading its body;
* `direct_subclasses` and `cold_called` remember where a name leads through re-exports;
* `run_check` keeps the cyclic garbage collector off while it gathers the workers' results
  and runs the cross-file step (they build only acyclic objects), and restores it after.

Checked on tricky forms and on dynlint's own source."""
from __future__ import annotations

import ast
import gc
import re
import subprocess
import sys
from pathlib import Path

import dynlint
from dynlint.analysis.scopes import index_module
from dynlint.analysis.scopes.info import TOKEN_TABLE
from dynlint.analysis.scopes.naming import _LOCAL_INSTANCE, called_instances
from dynlint.analysis.summaries import _PARTS_TABLE, _mentions
from dynlint.engine.match import split_lines
from dynlint.project.index import canonical, direct_subclasses

SOURCES = sorted(Path(dynlint.__file__).parent.rglob("*.py"))

TRICKY = [
    "def f(t0, t1):\n    bm = Interval(t0)\n    return bm(t0, t1)\n",
    "def f(t0):\n    bm =   Interval   (t0)\n    bm (t0)\n",
    "def f(t0):\n    bm: Brownian = Interval(\n        t0)\n    bm(t0)\n",
    "def f(t0):\n    bm =\\\n        Interval(t0)\n    bm(t0)\n",
    "def f(t0):\n    bm = Interval\n    x = Interval.make(t0)\n    return Interval(t0)\n",
    "def f(t0):\n    x == Interval(t0)\n    x(t0)\n",
    "def f(t0):\n    y = Intervals(t0)\n    y(t0)\n    z = MyInterval(t0)\n    z(t0)\n",
    "def f(t0):\n    bm = Interval(t0)\n    return other.bm(t0)\n",
    "def f(t0):\n    Interval = Interval(t0)\n    Interval(t0)\n",
    "def f(t0):\n    a = Interval(t0); a(t0)\n    b = Path(t0)\n    b(t0)\n",
]
CLASSES = frozenset({"Interval", "Path", "Brownian"})


def _tokens(text: str) -> set:
    """The names a text mentions, as FunctionInfo.refs reads them."""
    out = set()
    for tok in set(text.translate(TOKEN_TABLE).split()):
        out.update(tok.split("."))
    return out


def test_called_instances_mentioned_tricky():
    for text in TRICKY:
        mentioned = CLASSES & _tokens(text)
        assert called_instances(text, CLASSES, mentioned) == called_instances(text, CLASSES), text
    assert called_instances(TRICKY[1], CLASSES, CLASSES & _tokens(TRICKY[1])) == {"Interval"}
    assert called_instances(TRICKY[2], CLASSES, CLASSES & _tokens(TRICKY[2])) == {"Interval"}
    assert called_instances(TRICKY[4], CLASSES, CLASSES & _tokens(TRICKY[4])) == set()


def test_called_instances_mentioned_on_own_source():
    """Every function of dynlint's source, with every name it binds a call of taken for a
    class: the same classes with and without the look for `= C(`."""
    checked = found = 0
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        lines = split_lines(text)
        for node in ast.walk(ast.parse(text)):
            if type(node) not in (ast.FunctionDef, ast.AsyncFunctionDef):
                continue
            body = "\n".join(lines[node.lineno - 1:node.end_lineno])
            classes = frozenset(c for _, c in _LOCAL_INSTANCE.findall(body)) | {"re", "ast"}
            mentioned = classes & _tokens(body)
            want = called_instances(body, classes)
            assert called_instances(body, classes, mentioned) == want, (path, node.lineno)
            checked += 1
            found += bool(want)
    assert checked > 1000 and found > 10


def _body_names(info, lines) -> set:
    """The long way: every name the body (not the `def` line) of a function mentions."""
    node = info.node
    text = "\n".join(lines[node.body[0].lineno - 1:node.end_lineno])
    return set(text.translate(_PARTS_TABLE).split())


def test_mentions_shortcut_on_own_source():
    """`_mentions` answers from the body whatever the whole function names: parameters and
    decorators (the `def` line) never count, names of the body always do."""
    checked = 0
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        lines = split_lines(text)
        scopes = index_module(ast.parse(text), lines, module="pkg.mod")
        for info in scopes.order:
            body = _body_names(info, lines)
            params = {a.arg for a in ast.walk(info.node.args) if type(a) is ast.arg}
            for names in ({info.name}, params, set(list(body)[:3]), {"not_a_name_anywhere"},
                          params - body):
                seen: dict = {}
                assert _mentions(info, set(names), lines, seen) == (not body.isdisjoint(names)), \
                    (path, info.qualname, names)
            checked += 1
        scopes.release()
    assert checked > 1000


def test_direct_subclasses_through_reexports():
    aliases = {"pkg": {"Base": "pkg.core.base.Base", "Mixin": "pkg.mixins.Mixin"},
               "pkg.core": {"Base": "pkg.core.base.Base"}}
    classes = [("pkg.a.A", ["pkg.Base", "pkg.Mixin"]), ("pkg.b.B", ["pkg.core.Base", 3]),
               ("pkg.c.C", ["pkg.Base"]), ("pkg.d.D", ["pkg.a.A", "pkg.core.base.Base"])]
    out = direct_subclasses(classes, aliases)
    assert out == {"pkg.core.base.Base": ["pkg.a.A", "pkg.b.B", "pkg.c.C", "pkg.d.D"],
                   "pkg.mixins.Mixin": ["pkg.a.A"], "pkg.a.A": ["pkg.d.D"]}
    assert canonical("pkg.Base", aliases) == "pkg.core.base.Base"


def test_run_check_gathers_with_gc_off_and_restores_it(tmp_path, monkeypatch):
    """The workers' results and the cross-file step run with the cyclic GC off; the caller's
    setting is back afterwards, also when the step fails."""
    from dynlint.check import runner
    from dynlint.integrations import cli
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text(
        "import torch\n\ndef pick(x):\n    return x[x > 0]\n")
    (pkg / "model.py").write_text(
        "import torch\nfrom torch import nn\nfrom .helpers import pick\n\n"
        "class M(nn.Module):\n    def forward(self, x):\n        return pick(x)\n")
    seen = []
    real = runner.cross_file_step

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)
    monkeypatch.setattr(runner, "cross_file_step", spy)
    assert gc.isenabled()
    assert cli.main(["check", str(pkg), "--no-cache", "-j", "1", "-q", "--exit-zero"]) == 0
    assert seen == [False]
    assert gc.isenabled()

    def failing(*args, **kwargs):
        raise RuntimeError("boom")
    monkeypatch.setattr(runner, "cross_file_step", failing)
    try:
        cli.main(["check", str(pkg), "--no-cache", "-j", "1", "-q", "--exit-zero"])
    except RuntimeError:
        pass
    assert gc.isenabled()


def test_cli_findings_across_files(tmp_path):
    """Through the CLI: the finding in the helper that model code in another file reaches."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text(
        "import torch\n\ndef pick(x):\n    return x[x > 0]\n")
    (pkg / "model.py").write_text(
        "import torch\nfrom torch import nn\nfrom .helpers import pick\n\n"
        "class M(nn.Module):\n    def forward(self, x):\n        return pick(x)\n")
    out = subprocess.run([sys.executable, "-m", "dynlint", "check", str(pkg), "--no-cache",
                          "--output-format", "concise", "--exit-zero"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert re.search(r"helpers\.py:4:\d+: DYN101", out.stdout), out.stdout
