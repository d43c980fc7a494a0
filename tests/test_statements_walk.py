"""`statements.walk` / `child_nodes` give exactly what `ast.walk` / `ast.iter_child_nodes`
give (same nodes, same order), and `attributes._declared_fields` finds the class statement
an `ast.walk` of the whole tree found (classes in functions, same-named classes)."""
import ast
import pathlib
import textwrap

from dynlint.analysis import attributes
from dynlint.analysis.statements import child_nodes, walk
from dynlint.analysis.walker import Analyzer

SAMPLE = textwrap.dedent('''
    import os, sys as system
    from . import x as y
    global_value: int = 3
    def f(a, /, b=1, *c, d: "T" = None, **e):
        global g
        nonlocal_value = lambda q: q + 1
        return [i for i in range(a) if i], {k: v for k, v in e.items()}, f"{a!r:>{b}}"
    async def g():
        async with a as b, c:
            async for i in b:
                await i
    class C(Base, metaclass=M):
        x: int
        def m(self):
            try:
                pass
            except* ValueError as err:
                raise
            match self.v:
                case [1, *rest] | {"k": 2, **other} if rest:
                    pass
                case Point(x=0, y=None) as p:
                    pass
                case None | True:
                    pass
            del self.v[1:2, ...]
            return (yield from z) if not -a else {*s}
''')


def _same(tree):
    a, b = list(ast.walk(tree)), list(walk(tree))
    assert len(a) == len(b) and all(x is y for x, y in zip(a, b))
    for n in a:
        c, d = list(ast.iter_child_nodes(n)), child_nodes(n)
        assert len(c) == len(d) and all(x is y for x, y in zip(c, d))


def test_walk_matches_ast_walk_on_every_construct():
    _same(ast.parse(SAMPLE))


def test_walk_matches_ast_walk_on_dynlint_itself():
    root = pathlib.Path(__file__).resolve().parent.parent / "dynlint"
    for path in sorted(root.rglob("*.py"))[:80]:
        _same(ast.parse(path.read_text(encoding="utf-8")))


def _old_declared(tree, cls):
    methods = {id(info.node) for infos in cls.methods.values() for info in infos}
    for node in ast.walk(tree):
        if type(node) is ast.ClassDef and node.name == cls.name and \
                any(id(n) in methods for n in node.body):
            return [(n.target.id, ast.dump(n.annotation)) for n in node.body
                    if type(n) is ast.AnnAssign and type(n.target) is ast.Name]
    return []


def test_declared_fields_as_a_walk_of_the_tree_found_them():
    source = textwrap.dedent('''
        import torch
        class A:
            a: torch.Tensor
            def forward(self):
                return self.a
            class Inner:
                i: torch.Tensor
                def m(self):
                    return self.i
        if cond:
            class B:
                b: torch.Tensor
                def f(self):
                    return self.b
        else:
            class B:
                c: torch.Tensor
                def f(self):
                    return self.c
        def make():
            class D:
                d: torch.Tensor
                def g(self):
                    return self.d
            return D
    ''')
    tree = ast.parse(source)
    analyzer = Analyzer()
    analyzer.run(tree, source.split("\n"))
    assert analyzer.classes
    for cls in analyzer.classes.values():
        new = [(name, ast.dump(ann)) for name, ann in attributes._declared_fields(analyzer, cls)]
        assert new == _old_declared(tree, cls)
