"""The cold-run shortcuts of session 29 answer what the long way answers: list fields holding
`None` (`child_nodes`, `walk`), a loop's own nodes listed at once (`_own_node_list`), an
annotation's kind kept on its node, and `_local_instance`'s text test (a function whose text
names no class binds no call of one)."""
import ast
import pathlib
import textwrap

from dynlint.analysis import annotations
from dynlint.analysis.bindings import _binding_table
from dynlint.analysis.scopes import index_module
from dynlint.analysis.statements import child_nodes, walk
from dynlint.analysis.steploops import _LOOPS, _own_node_list, own_nodes

ROOT = pathlib.Path(__file__).resolve().parent.parent / "dynlint"

SAMPLE = textwrap.dedent('''
    class Interval:
        def __init__(self, a, b):
            self.a, self.b = a, b
        def __call__(self, t):
            return t
    def h(x, *, k, m=2, n: "Interval" = None):
        d = {**k, "a": 1, **{"b": m}}
        bm = Interval(x, m)
        for i in range(3):
            while bm(i):
                bm = Interval(i, d)
        return bm(x), lambda *, q: q
    def plain(y):
        z = y + 1
        return len(z)
''')


def _sources():
    yield SAMPLE
    for path in sorted(ROOT.rglob("*.py"))[:30]:
        yield path.read_text(encoding="utf-8")


def _trees():
    return (ast.parse(source) for source in _sources())


def test_lists_holding_none_give_iter_child_nodes_and_walk():
    for tree in _trees():
        assert [id(n) for n in walk(tree)] == [id(n) for n in ast.walk(tree)]
        for node in ast.walk(tree):
            assert [id(n) for n in child_nodes(node)] == [id(n) for n in ast.iter_child_nodes(node)]


def test_own_node_list_is_the_generator_listed():
    for tree in _trees():
        for loop in ast.walk(tree):
            if isinstance(loop, _LOOPS):
                assert [id(n) for n in _own_node_list(loop.body)] == \
                    [id(n) for n in own_nodes(loop.body)]


def test_annotation_kind_kept_on_the_node_is_the_kind():
    for tree in _trees():
        for node in ast.walk(tree):
            for ann in (getattr(node, "annotation", None), getattr(node, "returns", None)):
                if isinstance(ann, ast.AST):
                    expected = annotations._annotation_kind(ann)
                    assert annotations.annotation_kind(ann) == expected
                    assert annotations.annotation_kind(ann) == expected     # (kept)
    assert annotations.annotation_kind(None) == annotations.UNKNOWN


def test_a_function_naming_no_class_binds_no_call_of_one():
    """What `_local_instance` skips: where no class of the module is named in the function's
    text, no binding of the function is a call of one (what the long way looks for)."""
    skipped = 0
    for source in _sources():
        tree, lines = ast.parse(source), source.split("\n")
        scopes = index_module(tree, lines)
        classes = scopes.classes
        for info in scopes.order:
            if type(info.node) is ast.Lambda or not classes.keys().isdisjoint(info.refs(lines)[0]):
                continue
            skipped += 1
            for values in _binding_table(info.node).values():
                assert not any(type(v) is ast.Call and type(v.func) is ast.Name and
                               v.func.id in classes for v in values or ())
    assert skipped
