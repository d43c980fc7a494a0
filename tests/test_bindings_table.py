"""`bindings.binding_values` answers from a table of every name a function binds, built once per
function (it was a pass over the function per name asked). The answers must be the ones the
pass per name gave (`_reference`, the former code; unpacking a literal of the same length binds
each name to its item): checked on tricky forms and on every
function of dynlint's own source, for every name each one mentions."""
from __future__ import annotations

import ast
from pathlib import Path

import dynlint
from dynlint.analysis.bindings import _pairs, binds_name, binds_name_here, binding_values, block_statements

TRICKY = """
def f(p, *rest, k=1, **kw):
    a = 1
    a = b = g(p)
    c, d = p
    aa, (bb, cc) = [], (p, 1)
    dd, *ee = 1, 2
    e: int
    h: int = 3
    h += 1
    i += 2
    j = (m := 4)
    n[0] = 5
    self.o = 6
    o = 7
    for q in p:
        r = q
    with open(p) as s:
        t = s
    try:
        u = 1
    except ValueError as v:
        u = 2
    import w
    def x(): pass
    class y: pass
    if (z := p):
        a = z
    lam = lambda l: l
    p = 8
    kw = 9
"""


def _reference(func, name: str):
    args = func.args
    if any(a.arg == name for a in args.posonlyargs + args.args + args.kwonlyargs) or \
            any(a is not None and a.arg == name for a in (args.vararg, args.kwarg)):
        return None
    values = []
    for st in block_statements(func.body):
        t = type(st)
        if t is ast.Assign:
            for target in st.targets:
                if type(target) is ast.Name and target.id == name:
                    values.append(st.value)
                elif name in _pairs(target, st.value):
                    values.append(_pairs(target, st.value)[name])   # `a, b = [], []`: item by item
                elif binds_name(target, name):
                    return None
        elif t in (ast.AnnAssign, ast.AugAssign) and type(st.target) is ast.Name and \
                st.target.id == name:
            if st.value is not None:
                values.append(st.value)
        elif binds_name_here(st, name):
            return None
    return values


def _compare(tree) -> int:
    count = 0
    for func in ast.walk(tree):
        if type(func) not in (ast.FunctionDef, ast.AsyncFunctionDef):
            continue
        names = {n.id for n in ast.walk(func) if type(n) is ast.Name} | \
            {a.arg for a in ast.walk(func.args) if type(a) is ast.arg} | {"never_bound"}
        for name in sorted(names):
            expected = _reference(func, name)
            assert binding_values(func, name) == expected, (func.name, name)
            count += 1
    return count


def test_tricky_forms():
    tree = ast.parse(TRICKY)
    assert _compare(tree) > 20
    func = tree.body[0]
    values = {name: binding_values(func, name) for name in "abcdehijoprutzlk"}
    # (in `block_statements`' order, which the comparison with the reference checks)
    assert sorted(ast.unparse(v) for v in values["a"]) == ["1", "g(p)", "z"]
    assert sorted(ast.unparse(v) for v in values["h"]) == ["1", "3"]
    assert values["e"] == [] and [ast.unparse(v) for v in values["i"]] == ["2"]
    for name in "cdpkz":
        assert values[name] is None, name      # unpacking, a walrus in a test, parameters
    assert [ast.unparse(v) for v in values["o"]] == ["7"]
    pairs = {name: binding_values(func, name) for name in ("aa", "bb", "cc", "dd", "ee")}
    assert [ast.unparse(v) for v in pairs["aa"]] == ["[]"] and [ast.unparse(v) for v in pairs["cc"]] == ["1"]
    assert pairs["dd"] is None and pairs["ee"] is None      # a starred target: no item by item
    assert {ast.unparse(v) for v in values["u"]} == {"1", "2"}
    assert values["t"] is not None and values["r"] is not None
    assert binding_values(func, "never_bound") == []


def test_answers_are_copies():
    func = ast.parse(TRICKY).body[0]
    binding_values(func, "a").clear()
    assert len(binding_values(func, "a")) == 3


def test_dynlint_source():
    for path in sorted(Path(dynlint.__file__).parent.rglob("*.py")):
        _compare(ast.parse(path.read_text(encoding="utf-8")))
