"""`_CallRefs._calls` (scopes/crossfile.py): what a function or import-time code calls and
what it names without calling, read in one pass down the tree. It must give what reading
every node of `ast.walk` gives (a callee or an attribute's object is no mention of its own):
checked on tricky forms and on dynlint's own source."""
from __future__ import annotations

import ast
from pathlib import Path

import dynlint
from dynlint.analysis.scopes.crossfile import _CallRefs

ALIASES = {"helper": "pkg.util.helper", "util": "pkg.util", "other": "pkg.other",
           "np": "numpy", "os": "os"}
LOCAL = {"gelu", "build", "main", "f", "g"}

TRICKY = """
@util.register(name=other.KEY)
def fn(x, act=gelu, pick=other.pick):
    y = helper(x).shape
    z = util.helper(x).y.z
    w = other.table[x].method(build)
    v = (g or f)(x)(util.inner)
    u = f()(helper)
    self.act = gelu
    self.cb = util.callback
    q = util.a.b.c(other.d.e)
    k = dict(key=helper, other=util.name)
    np.zeros(x)
    os.path.join(main)
    [main(i) for i in build(x)]
    return lambda t: util.later(t) + other.value
"""


def _reference(refs: _CallRefs, nodes: list) -> set:
    """The semantics: over all nodes, callees give calls; names and attributes that are
    neither a call's callee nor an attribute's object are mentions (`live`)."""
    out, seen, named = set(), set(), []
    for n in nodes:
        if type(n) is ast.Call:
            seen.add(id(n.func))
            name = refs._name(n.func)
            if name is not None:
                out.add(name)
        elif type(n) is ast.Attribute:
            seen.add(id(n.value))
            named.append(n)
        elif type(n) is ast.Name:
            named.append(n)
    for n in named:
        if id(n) not in seen:
            name = refs._name(n)
            if name is not None:
                refs.live.add(name)
    return out


def _both(tree: ast.AST):
    fast, slow = _CallRefs("pkg.mod", ALIASES, LOCAL, []), _CallRefs("pkg.mod", ALIASES, LOCAL, [])
    return (fast._calls([tree]), fast.live), (_reference(slow, list(ast.walk(tree))), slow.live)


def test_tricky_forms():
    tree = ast.parse(TRICKY)
    fast, slow = _both(tree)
    assert fast == slow
    calls, live = fast
    assert {"pkg.util.helper", "pkg.util.register", "pkg.mod.f", "pkg.mod.main",
            "pkg.mod.build"} <= calls
    assert {"pkg.mod.gelu", "pkg.other.pick", "pkg.other.KEY", "pkg.util.callback",
            "pkg.util.inner", "pkg.util.name", "pkg.util.helper"} <= live
    assert "pkg.util.later" in calls and "pkg.other.value" in live


def test_dynlint_source():
    for path in sorted(Path(dynlint.__file__).parent.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in [tree, *tree.body]:
            fast, slow = _both(node)
            assert fast == slow, path
