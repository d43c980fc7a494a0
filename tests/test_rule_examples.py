"""One generator for every rule's own examples (Fixit-style): each `flag` snippet is flagged
by its rule (at the line, column and with the message it pins, if it pins them, as Fixit's
`Invalid` does), each `pass` snippet is not, each `fix` example rewrites exactly as written
and is flagged no more."""
import ast

import pytest

from dynlint.engine.match import Engine
from dynlint.engine.rules import flag_examples, load_rules

RULES = load_rules()
CASES = [(r, "flag", i, ex) for r in RULES for i, ex in enumerate(flag_examples(r))] + \
    [(r, "pass", i, (s, {})) for r in RULES for i, s in enumerate(r.examples.get("pass", []))]
FIX_CASES = [(r, i, ex) for r in RULES for i, ex in enumerate(r.examples.get("fix", []) or [])]


def _findings(rule, source):
    # The cheap text gate is an engine-wide speed-up, tested on its own; examples test matching.
    return Engine([rule]).check(source, "example.py", gate=False)


def test_every_rule_has_examples():
    for r in RULES:
        assert r.examples.get("flag"), f"{r.code} has no `flag` examples"
        assert r.examples.get("pass"), f"{r.code} has no `pass` examples"


@pytest.mark.parametrize("rule,kind,index,example", CASES,
                         ids=[f"{r.code}-{k}-{i}" for r, k, i, _ in CASES])
def test_example(rule, kind, index, example):
    source, pins = example
    ast.parse(source)
    found = [f for f in _findings(rule, source) if f.code == rule.code]
    if kind == "pass":
        assert not found, f"{rule.code} should not flag:\n{source}"
        return
    assert found, f"{rule.code} should flag:\n{source}"
    if pins:
        got = [{k: getattr(f, k) for k in pins} for f in found]
        assert pins in got, f"{rule.code} example {index} pins {pins}, reported {got}"


def test_pinned_examples_exist_and_a_wrong_pin_fails():
    """Pins are used, and a pin that does not hold is caught (the check can fail)."""
    pinned = [(r, src, pins) for r, kind, _, (src, pins) in CASES if pins]
    assert len({r.code for r, _, _ in pinned}) >= 5
    rule, src, pins = pinned[0]
    found = [f for f in _findings(rule, src) if f.code == rule.code]
    wrong = dict(pins, line=pins.get("line", 1) + 100)
    assert wrong not in [{k: getattr(f, k) for k in wrong} for f in found]


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
