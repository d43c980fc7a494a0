"""The reach across files (`reach.reach_and_cold`) runs on a thread while worker processes walk
files again (runner.cross_file_step), from the facts as the first walks gave them. That is only
right while the walks again leave what it reads as it was: `crossfile.merged` must keep the first
walk's exports, model references, classes and re-exports. If it ever took them from the walk
again, the thread would have read stale facts: these tests fail first."""
from __future__ import annotations

import pytest

from dynlint.check import runner
from dynlint.check.crossfile import merged
from dynlint.check.reach import reach_and_cold, resolve_both
from dynlint.engine.match import FileFacts


def _facts(module, **fields):
    facts = FileFacts(module)
    for name, value in fields.items():
        setattr(facts, name, value)
    return facts


def test_merged_keeps_what_the_reach_reads():
    base = _facts("pkg.a", exports={"f": (False, ["pkg.b.g"])}, model_refs=frozenset({"pkg.a.f"}),
                  classes={"C": [["nn.Module"], ["forward"]]}, aliases={"g": "pkg.b.g"},
                  returns={"f": 1})
    new = _facts("pkg.a", exports={"f": (True, ["pkg.c.h"])}, model_refs=frozenset({"pkg.c.h"}),
                 classes={"D": [[], []]}, aliases={"h": "pkg.c.h"}, returns={"f": 2})
    out = merged(base, new)
    assert out.returns == {"f": 2}                  # (what a walk again is for)
    for field in ("exports", "model_refs", "classes", "aliases", "module"):
        assert getattr(out, field) is getattr(base, field), field


def test_known_reach_gives_what_resolve_both_computes():
    a = _facts("pkg.a", exports={"forward": (True, ["pkg.b.helper"])})
    b = _facts("pkg.b", exports={"helper": (False, [])})
    b.conditional = [("helper", "finding in helper")]
    facts = [a, b]
    assert resolve_both(facts, known=reach_and_cold(facts)) == resolve_both(facts)
    assert resolve_both(facts)[0] == ["finding in helper"]


def test_background_runs_once_and_reraises():
    calls = []
    job = runner._Background(lambda: calls.append(1) or len(calls))
    assert job.result() == 1                        # never started: computed in place
    job = runner._Background(lambda: calls.append(1) or len(calls))
    job.start()
    job.start()
    assert job.result() == 2 and len(calls) == 2

    def boom():
        raise ValueError("bug")
    job = runner._Background(boom)
    job.start()
    with pytest.raises(ValueError):
        job.result()
