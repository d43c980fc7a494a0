"""The pieces of the fixer: parenthesising metavariables, smallest edits, libcst placement of
each kind of edit, overlap handling, and the guard against output that does not parse."""
import ast
import os
import textwrap

import pytest

os.environ.setdefault("DYNLINT_DEBUG_FIXES", "1")

from dynlint.engine.match import Engine  # noqa: E402
from dynlint.finding import Edit, Finding, Fix  # noqa: E402
from dynlint.fix.apply import choose, fix_source, fix_text  # noqa: E402
from dynlint.fix.suggest import needs_parens  # noqa: E402
from dynlint.fix.splice import add_imports, rewrite  # noqa: E402
from dynlint.engine.rules import load_rules  # noqa: E402

RULES = {r.code: r for r in load_rules()}


def _expr(code):
    return ast.parse(code, mode="eval").body


@pytest.mark.parametrize("child,parent,field,expected", [
    ("a + b", "_.attr", "value", True),           # (a + b).attr
    ("f(a)", "_.attr", "value", False),
    ("a | b", "x & _", "right", True),            # x & (a | b)
    ("a & b", "x | _", "right", False),
    ("-a", "_ ** 2", "left", True),               # (-a) ** 2
    ("-a", "2 ** _", "right", False),             # 2 ** -a
    ("a - b", "x - _", "right", True),            # x - (a - b)
    ("a - b", "_ - x", "left", False),
    ("a < b", "_ < x", "left", True),             # no accidental chained comparison
    ("lambda: 1", "f(_)", "args", False),
    ("a if c else b", "_ + 1", "left", True),
])
def test_needs_parens(child, parent, field, expected):
    p = _expr(parent)
    assert needs_parens(_expr(child), p, field, child) is expected


def _fix(code, *codes, unsafe=False):
    engine = Engine([RULES[c] for c in codes])
    return fix_source(textwrap.dedent(code), "m.py", engine, unsafe=unsafe)


def test_compound_metavariables_are_parenthesised_and_still_equal():
    torch = pytest.importorskip("torch")
    code = """\
        import torch


        def f(x: torch.Tensor, a: torch.BoolTensor, b: torch.BoolTensor):
            return x[a | b].sum()
        """
    fixed = _fix(code, "DYN101")
    assert "(a | b).reshape((a | b).shape + (1,) * (x.dim() - (a | b).dim()))" in fixed
    ns_before, ns_after = {}, {}
    exec(textwrap.dedent(code), ns_before)
    exec(fixed, ns_after)
    x = torch.arange(12.0).reshape(3, 4)
    a, b = torch.tensor([True, False, False]), torch.tensor([False, False, True])
    assert ns_after["f"](x, a, b) == ns_before["f"](x, a, b)


def test_only_the_changed_node_is_edited():
    code = """\
        import torch


        class Net(torch.nn.Module):
            def forward(self, x):
                return (
                    x[x > 0]  # the selection
                    .sum()    # the reduction
                )
        """
    fixed = _fix(code, "DYN101")
    new = "x.where(x > 0, 0)  #"
    assert fixed == textwrap.dedent(code).replace("x[x > 0]  #", new)


def test_assignment_targets_are_never_replaced():
    code = """\
        import torch


        class Net(torch.nn.Module):
            def forward(self, x):
                x[x > 0] += 1
                return x
        """
    findings = Engine([RULES["DYN101"]]).check(textwrap.dedent(code), "m.py")
    assert findings and all(f.fix is None for f in findings)


def test_fix_belongs_to_the_finding_it_is_about():
    # Two selections, one inside the other's receiver: each finding carries its own fix.
    code = """\
        import torch


        class Net(torch.nn.Module):
            def forward(self, x, m: torch.BoolTensor):
                return x[m][x[m] > 0].sum()
        """
    findings = Engine([RULES["DYN101"]]).check(textwrap.dedent(code), "m.py")
    spans = sorted((e.line, e.column, e.end_column) for f in findings if f.fix for e in f.fix.edits)
    assert len(spans) == len(set(spans))


def _edit(line, col, end_line, end_col, content):
    return Edit(line, col, end_line, end_col, content)


def test_rewrite_places_each_kind_of_edit():
    text = textwrap.dedent("""\
        def f(a, b):
            # about a
            x = a  # trailing
            y = (b)
            # about z
            z = 1
            w = 2
            return x + y + z
        """)
    fixes = [
        Fix("safe", "", (_edit(3, 5, 3, 10, "x = b"),)),           # a small statement
        Fix("safe", "", (_edit(4, 10, 4, 11, "b + 1"),)),          # an expression in parens
        Fix("safe", "", (_edit(6, 5, 7, 5, ""),)),                 # delete `z = 1`
        Fix("safe", "", (_edit(8, 5, 8, 5, "print(w)\n    "),)),   # insert before return
    ]
    new, applied, problems = rewrite(text, fixes)
    assert not problems and len(applied) == 4
    assert new == textwrap.dedent("""\
        def f(a, b):
            # about a
            x = b  # trailing
            y = (b + 1)
            # about z
            w = 2
            print(w)
            return x + y + z
        """)


def test_unplaceable_edits_skip_their_fix_only():
    text = "x = 1\ny = 2\n"
    good = Fix("safe", "", (_edit(2, 5, 2, 6, "3"),))
    bad = Fix("safe", "", (_edit(1, 2, 1, 4, "zz"),))             # not a node's span
    new, applied, problems = rewrite(text, [bad, good])
    assert new == "x = 1\ny = 3\n" and applied == [good] and len(problems) == 1


def test_choose_skips_overlaps_and_duplicates():
    a = Fix("safe", "", (_edit(1, 1, 1, 10, "a"),))
    inner = Fix("safe", "", (_edit(1, 3, 1, 5, "b"),))
    again = Fix("safe", "", (_edit(1, 1, 1, 10, "a"),))
    later = Fix("safe", "", (_edit(2, 1, 2, 3, "c"),))
    insert = Fix("safe", "", (_edit(1, 1, 1, 1, "d\n"),))          # touching is not overlapping
    chosen = choose([inner, a, later, again, insert])
    assert len(chosen) == 3 and all(any(f is c for c in chosen) for f in (a, later, insert))


def test_imports_go_after_the_module_head():
    text = "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n\"\"\"Doc.\"\"\"\nimport os\n\nx = 1\n"
    out = add_imports(text, ["torch", "torch", "optional from pkg.mod import helper"])
    assert out.startswith('#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n"""Doc."""\nimport os\n'
                          "import torch\ntry:\n    from pkg.mod import helper\n")
    ns = {}
    exec(out, ns)                                   # no `pkg` here: the fallback is used
    assert ns["helper"](1, k=2) is None
    assert add_imports(out, ["torch", "optional from pkg.mod import helper"]) == out
    assert add_imports("x = 1\n", ["torch"]) == "import torch\nx = 1\n"


class _BadEngine:
    """Reports one safe fix whose edit breaks the code."""

    def __init__(self, edit):
        self.edit = edit

    def check(self, text, path, tree=None):
        fix = Fix("safe", "", (self.edit,))
        return [Finding(path, 1, 1, 1, 2, "DYN999", "bad", "bad", fix=fix)]


def test_output_that_does_not_parse_is_never_produced():
    # libcst prints `f() = 1` happily; the ast check refuses it.
    text, fixed, _, messages = fix_text("x = 1\n", "m.py", _BadEngine(_edit(1, 1, 1, 2, "f()")))
    assert text == "x = 1\n" and fixed == 0
    assert any("does not parse" in m for m in messages), messages
    # A replacement libcst cannot parse is skipped before that.
    text, fixed, _, messages = fix_text("x = 1\n", "m.py", _BadEngine(_edit(1, 5, 1, 6, "1 +")))
    assert text == "x = 1\n" and fixed == 0
    assert any("skipped" in m for m in messages), messages


def test_cross_file_findings_follow_their_lines():
    """Findings only the whole-run check gives (another file's model code calls this code)
    are kept for a fixed file, moved to where their line went."""
    from dynlint.fix.apply import _carried
    old = "a = 1\nb = 2\nc = b.item()\n"
    new = "import torch\na = 1\nb = 2\nc = b.item()\n"
    local = Finding("m.py", 1, 1, 1, 2, "DYN101", "x", "x")
    cross = Finding("m.py", 3, 5, 3, 13, "DYN201", "tensor-item", "item")
    moved = _carried([local, cross], [local], old, new)
    assert [(f.code, f.line, f.end_line) for f in moved] == [("DYN201", 4, 4)]
