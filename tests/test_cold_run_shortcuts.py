"""Shortcuts of a cold run that must answer exactly what the long way answers:

* `called_instances` with the class names the text mentions first looks for `= C(` before
  the regex's pass over the whole function;
* `_mentions` (a walk again's callers, summaries.with_callers) first asks whether the lines
  of its body hold the names as text (`text.LineText`) before reading its body;
* `LineText.lines_holding` / `within`: a range of lines that does not hold a word as text has
  no such token (`FunctionInfo.refs`), so the look may stand before the tokens;
* `bindings._bound` (what a statement binds) skips the contexts of names and builds no list
  per node: the same names as the plain walk (`_bound_slow` here);
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
from dynlint.analysis.bindings import _bound
from dynlint.analysis.scopes import index_module
from dynlint.analysis.statements import child_nodes
from dynlint.analysis.scopes.info import TOKEN_TABLE
from dynlint.analysis.scopes.naming import _LOCAL_INSTANCE, called_instances
from dynlint.analysis.summaries import _PARTS_TABLE, _mentions
from dynlint.analysis.text import LineText, within
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
        whole = LineText(lines)
        scopes = index_module(ast.parse(text), lines, module="pkg.mod")
        for info in scopes.order:
            body = _body_names(info, lines)
            params = {a.arg for a in ast.walk(info.node.args) if type(a) is ast.arg}
            for names in ({info.name}, params, set(list(body)[:3]), {"not_a_name_anywhere"},
                          params - body):
                seen: dict = {}
                at = whole.lines_holding(names)
                assert _mentions(info, set(names), at, whole, seen) == (not body.isdisjoint(names)), \
                    (path, info.qualname, names)
            checked += 1
        scopes.release()
    assert checked > 1000


def test_line_text_holds_every_token_on_own_source():
    """Every name a function's references hold (`FunctionInfo.refs`) is in the lines
    `LineText` says hold it, within the function's lines; a name no line holds, nowhere."""
    checked = 0
    for path in SOURCES[::4]:
        text = path.read_text(encoding="utf-8")
        lines = split_lines(text)
        whole = LineText(lines)
        scopes = index_module(ast.parse(text), lines, module="pkg.mod")
        for info in scopes.order:
            node = info.node
            for name in list(info.refs(lines)[0])[:20]:
                at = whole.lines_holding({name, "not_a_name_anywhere"})
                assert within(at, node.lineno, node.end_lineno), (path, info.qualname, name)
                assert at == sorted(i + 1 for i, ln in enumerate(lines) if name in ln)
                checked += 1
        assert not whole.lines_holding({"not_a_name_anywhere_" + "x"})
        scopes.release()
    assert checked > 1000


def _bound_slow(tree) -> set:
    """What `bindings._bound` gives, the plain way (its code before it was made faster)."""
    out = set()
    todo = [tree]
    while todo:
        n = todo.pop()
        t = type(n)
        if t is ast.Name and type(n.ctx) is ast.Store:
            out.add(n.id)
        if t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            out.add(n.name)
            continue
        if t is ast.Lambda:
            continue
        if t in (ast.Import, ast.ImportFrom):
            out.update(a.asname or a.name.split(".")[0] for a in n.names)
        todo.extend(child_nodes(n))
    return out


def test_bound_names_on_own_source_and_tricky_forms():
    """What every statement and expression binds: the same names either way (walrus in a
    comprehension, starred and nested targets, imports, defs, lambdas, `match`, dict `**`)."""
    tricky = ("import a.b as c, d.e\nfrom f import g as h, i\n"
              "def k(x=(y := 1), *, z=None): m = 2\nclass N: o = 3\n"
              "p, *q, (r, s.t) = u[v] = w = lambda aa=(bb := 2): (cc := 3)\n"
              "with x as (dd, ee), y as ff.gg: pass\n"
              "for hh in [ii for jj in kk if (ll := jj)]: mm = {**nn, oo: (pp := 4)}\n"
              "match x:\n    case [qq, *rr] | {'k': qq, **rr}: ss = 1\n"
              "try: pass\nexcept E as tt: uu = 5\n")
    checked = 0
    for text in [tricky] + [path.read_text(encoding="utf-8") for path in SOURCES[::3]]:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.stmt, ast.expr)):
                assert _bound(node) == _bound_slow(node), ast.dump(node)[:200]
                checked += 1
    assert checked > 40_000


def test_line_text_ranges():
    whole = LineText(["a = 1", "def f():", "    return foo(x)", "", "class B: pass", "y=foo"])
    assert whole.lines_holding({"foo"}) == [3, 6]
    assert whole.holds({"foo"}, 2, 3) and whole.holds({"foo"}, 6, 6)
    assert not whole.holds({"foo"}, 4, 5) and not whole.holds({"zz"}, 1, 6)
    assert not whole.holds(set(), 1, 6) and not within([], 0, -1) and not within([3], 0, -1)


def test_direct_subclasses_through_reexports():
    aliases = {"pkg": {"Base": "pkg.core.base.Base", "Mixin": "pkg.mixins.Mixin"},
               "pkg.core": {"Base": "pkg.core.base.Base"}}
    classes = [("pkg.a.A", ["pkg.Base", "pkg.Mixin"]), ("pkg.b.B", ["pkg.core.Base", 3]),
               ("pkg.c.C", ["pkg.Base"]), ("pkg.d.D", ["pkg.a.A", "pkg.core.base.Base"])]
    out = direct_subclasses(classes, aliases)
    assert out == {"pkg.core.base.Base": ["pkg.a.A", "pkg.b.B", "pkg.c.C", "pkg.d.D"],
                   "pkg.mixins.Mixin": ["pkg.a.A"], "pkg.a.A": ["pkg.d.D"]}
    assert canonical("pkg.Base", aliases) == "pkg.core.base.Base"


def _package(tmp_path) -> Path:
    """A helper's boolean-mask index that model code in another file reaches."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text(
        "import torch\n\ndef pick(x):\n    return x[x > 0]\n")
    (pkg / "model.py").write_text(
        "import torch\nfrom torch import nn\nfrom .helpers import pick\n\n"
        "class M(nn.Module):\n    def forward(self, x):\n        return pick(x)\n")
    return pkg


def test_run_check_gathers_with_gc_off_and_restores_it(tmp_path, monkeypatch):
    """The workers' results and the cross-file step run with the cyclic GC off; the caller's
    setting is back afterwards, also when the step fails."""
    from dynlint.check import runner
    from dynlint.integrations import cli
    pkg = _package(tmp_path)
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
    pkg = _package(tmp_path)
    out = subprocess.run([sys.executable, "-m", "dynlint", "check", str(pkg), "--no-cache",
                          "--output-format", "concise", "--exit-zero"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert re.search(r"helpers\.py:4:\d+: DYN101", out.stdout), out.stdout


def _sibling_sites_reference(index, opens: dict) -> dict:
    """The former reading: every sibling of the class (thousands under nn.Module) asked for
    the method's declaration."""
    from dynlint.check.crossfile import _DEVICE_SCALAR
    out = {}
    for callee, (_, name, params) in opens.items():
        if "." not in name:
            continue
        owner, _, method = callee.rpartition(".")
        entry = index.classes.get(owner)
        wanted = [e[0] for e in params if len(e) >= 4 and e[3] == 1]
        if entry is None or not wanted:
            continue
        siblings = {c for b in entry[0] if type(b) is str
                    for c in index.children.get(canonical(b, index.aliases), ()) if c != owner}
        declared = set()
        for sibling in siblings:
            declared |= index.zero_d.get(f"{sibling}.{method}", frozenset())
        taught = sorted(p for p in wanted if p in declared)
        if taught:
            out[callee] = [[[], {p: _DEVICE_SCALAR for p in taught}], 0]
    return out


def test_sibling_sites_only_asks_declaring_classes():
    """Classes under a shared base (through a re-export too), some declaring `step`'s
    `timestep` a number or tensor, others another method, one base with many plain
    subclasses: the same sites as asking every sibling."""
    from dynlint.check.crossfile import _sibling_sites
    from dynlint.engine.match import FileFacts
    from dynlint.project.index import Index
    base = FileFacts("pkg.base")
    base.classes = {"Mixin": [[], []]}
    init = FileFacts("pkg")
    init.aliases = {"Mixin": "pkg.base.Mixin"}
    facts = [base, init]
    opens = {}
    for i in range(40):
        f = FileFacts(f"pkg.s{i}")
        declares = {"step": ["timestep"]} if i % 3 == 0 else \
            ({"other": ["timestep", "x"]} if i % 3 == 1 else {})
        bases = ["pkg.Mixin"] if i % 2 else ["pkg.base.Mixin", "torch.nn.Module"]
        f.classes = {"S": [bases, ["step", "other"], None, None, declares]}
        facts.append(f)
        opens[f"pkg.s{i}.S.step"] = (f"pkg.s{i}", "S.step",
                                     [["timestep", 1, 0, 1], ["sample", 2, 0, 0]])
        opens[f"pkg.s{i}.S.other"] = (f"pkg.s{i}", "S.other",
                                      [["x", 1, 0, 1], ["timestep", 2, 0, 1]])
    for i in range(300):                  # plain modules under nn.Module
        f = FileFacts(f"pkg.m{i}")
        f.classes = {"M": [["torch.nn.Module"], ["forward"]]}
        facts.append(f)
        opens[f"pkg.m{i}.M.step"] = (f"pkg.m{i}", "M.step", [["timestep", 1, 0, 1]])
    opens["pkg.free.helper"] = ("pkg.free", "helper", [["timestep", 0, 0, 1]])
    index = Index(facts)
    want = _sibling_sites_reference(index, opens)
    assert want and len(want) > 40
    assert _sibling_sites(index, opens) == want
