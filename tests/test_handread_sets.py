"""The hand-read sets' kept data agree with each other (bench/handread): every finding of a keyed
set's kept sample (sets b to g) has a verdict, each verdict says yes or no with a reason and the
reading that gave it, and the first look is recorded. No dynlint run: the data only."""
from __future__ import annotations

import json
import os
import sys

import pytest

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench", "handread")
sys.path.insert(0, HERE)
import sample


def _load(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


@pytest.mark.parametrize("name", [n for n in sample.SETS if n != "a"])
def test_keyed_set_has_a_verdict_per_finding(name):
    sample.use_set(name)
    drawn = _load(sample.SAMPLE)
    verdicts = _load(os.path.join(HERE, f"verdicts{sample.SETS[name]['suffix']}.json"))
    keys = [sample.finding_key(f) for f in drawn["sample"]]
    assert len(keys) == sample.TOTAL
    assert [k for k in keys if k not in verdicts["findings"]] == []
    for v in verdicts["findings"].values():
        assert v["verdict"] in ("yes", "no") and v["reason"] and v["reading"]
    first = verdicts["first_look"]
    assert first["total"] == sample.TOTAL and 0 <= first["worth"] <= first["total"]


def test_set_g_is_new_repos_with_its_own_seed():
    seeds = [s["seed"] for s in sample.SETS.values()]
    assert len(set(seeds)) == len(seeds)
    names = [n for s in sample.SETS.values() for n in s["packages"].values()]
    assert len(set(names)) == len(names)
