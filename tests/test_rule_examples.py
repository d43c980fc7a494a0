"""One generator for every rule's own examples (Fixit-style): each `flag` snippet is flagged
by its rule, each `pass` snippet is not, each `fix` example rewrites exactly as written and
is flagged no more."""
import ast

import pytest

from dynlint.engine.match import Engine
from dynlint.engine.rules import load_rules

RULES = load_rules()
CASES = [(r, kind, i, s) for r in RULES for kind in ("flag", "pass")
         for i, s in enumerate(r.examples.get(kind, []))]
FIX_CASES = [(r, i, ex) for r in RULES for i, ex in enumerate(r.examples.get("fix", []) or [])]


def _codes(rule, source):
    # The cheap text gate is an engine-wide speed-up, tested on its own; examples test matching.
    return [f.code for f in Engine([rule]).check(source, "example.py", gate=False)]


def test_every_rule_has_examples():
    for r in RULES:
        assert r.examples.get("flag"), f"{r.code} has no `flag` examples"
        assert r.examples.get("pass"), f"{r.code} has no `pass` examples"


@pytest.mark.parametrize("rule,kind,index,source", CASES,
                         ids=[f"{r.code}-{k}-{i}" for r, k, i, _ in CASES])
def test_example(rule, kind, index, source):
    ast.parse(source)
    codes = _codes(rule, source)
    if kind == "flag":
        assert rule.code in codes, f"{rule.code} should flag:\n{source}"
    else:
        assert rule.code not in codes, f"{rule.code} should not flag:\n{source}"


@pytest.mark.parametrize("rule,index,example", FIX_CASES,
                         ids=[f"{r.code}-fix-{i}" for r, i, _ in FIX_CASES])
def test_fix_example(rule, index, example):
    from dynlint.fix.apply import fix_source
    engine = Engine([rule])
    app = example.get("applicability", "safe")
    fixed = fix_source(example["before"], "example.py", engine,
                       unsafe=app in ("unsafe", "display-only"),
                       display_only=app == "display-only")
    assert fixed == example["after"], f"{rule.code} fix example {index} rewrote to:\n{fixed}"
    ast.parse(fixed)
    if app != "display-only":
        before = len(engine.check(example["before"], "example.py", gate=False))
        after = len(engine.check(fixed, "example.py", gate=False))
        assert after < before, f"{rule.code}: the rewrite is still flagged"
