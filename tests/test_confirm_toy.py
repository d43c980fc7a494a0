"""Acceptance: the toy model of Intel's tutorial and its static twin, through the API and the CLI."""
from __future__ import annotations

import csv
import json
import os
import sys

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_confirm_support import EXAMPLES, run_cli  # noqa: E402

from dynlint.confirm.report import step_rows
from dynlint.confirm.run import run_confirm

sys.path.insert(0, os.path.dirname(EXAMPLES))
sys.path.insert(0, os.path.dirname(os.path.dirname(EXAMPLES)))
from examples.confirm import toy_dynamic, toy_static

DYNAMIC = os.path.join(EXAMPLES, "toy_dynamic.py")
STATIC = os.path.join(EXAMPLES, "toy_static.py")


def mask_line() -> int:
    with open(DYNAMIC, encoding="utf-8") as fh:
        return next(i for i, text in enumerate(fh, 1) if "x = x[x > 0]" in text)


def table(result):
    """(step, module, new in, new out, comment) per recompiling module call."""
    return [(r[0], r[1], r[2], r[3], r[6]) for r in step_rows(result)]


@pytest.fixture(scope="module")
def dynamic_result():
    model, batches = toy_dynamic.factory()
    return run_confirm(model, batches, [DYNAMIC], backend="emulate")


def test_dynamic_toy_reproduces_the_seed_table(dynamic_result):
    rows = table(dynamic_result)
    assert [(s, m, i, o) for s, m, i, o, _ in rows] == [
        (0, "0", True, True), (0, "1.conv", True, True), (0, "1", True, True), (0, "(root)", True, True),
        (1, "1", False, False), (1, "(root)", False, False),
        (2, "0", True, True), (2, "1.conv", True, True), (2, "1", True, False), (2, "(root)", True, False),
        (3, "1", False, False), (3, "(root)", False, False),
    ]
    comments = {(s, m): c for s, m, _, _, c in rows}
    for step in (1, 3):
        assert "seen before" in comments[step, "1"] and "data-dependent" in comments[step, "1"]
        assert "child" in comments[step, "(root)"]
    for step in (0, 2):
        assert all(c.startswith("recompiled: input shape not seen before")
                   for (s, _), c in comments.items() if s == step)


def test_dynamic_toy_finding_is_confirmed_at_the_mask_line(dynamic_result):
    verdict = dynamic_result.verdict_for(DYNAMIC, mask_line())
    assert verdict is not None, [v.finding.where for v in dynamic_result.verdicts]
    assert verdict.verdict == "confirmed"
    assert "index" in verdict.evidence and "different output shapes" in verdict.evidence
    assert verdict.modules == ["1"]
    assert dynamic_result.exit_code == 1
    assert dynamic_result.dynamic_modules() == ["1"]
    assert not dynamic_result.misses


def test_dynamic_toy_replay_separates_identical_from_perturbed(dynamic_result):
    (replay,) = dynamic_result.replays
    assert replay.name == "1" and replay.cls.endswith("toy_dynamic.InnerNet")
    assert replay.captures == 4
    assert sum(replay.compiles["as-captured-again"]) == 0  # same data, same graph
    assert replay.seen_shape_compiles["perturbed"] > 0  # same shapes, new values, new graph
    assert replay.data_dependent and not replay.nondeterministic


def test_static_twin_only_recompiles_for_new_input_shapes():
    model, batches = toy_static.factory()
    result = run_confirm(model, batches, [STATIC], backend="emulate")
    rows = table(result)
    assert {s for s, *_ in rows} == {0, 2}
    assert all(new_in for _, _, new_in, _, _ in rows)
    assert result.dynamic_modules() == []
    assert not result.confirmed and result.exit_code == 0
    assert not result.misses


def test_single_batch_is_confirmed_by_the_perturbed_replay():
    model, batches = toy_dynamic.factory()
    result = run_confirm(model, batches[:1], [DYNAMIC], backend="emulate")
    assert [r[:2] for r in table(result)] == [(0, "0"), (0, "1.conv"), (0, "1"), (0, "(root)")]
    assert result.verdict_for(DYNAMIC, mask_line()).verdict == "confirmed"
    assert result.replays[0].seen_shape_compiles.get("perturbed", 0) == 1


def test_compile_backend_reports_dynamo_recompiles_and_the_graph_break_line():
    model, batches = toy_dynamic.factory()
    result = run_confirm(model, batches, [DYNAMIC], backend="compile")
    (replay,) = result.replays
    assert replay.data_dependent
    assert sum(replay.compiles["as-captured-again"]) == 0
    breaks = [r for r in replay.reasons if r.startswith("graph break")]
    assert breaks and f"toy_dynamic.py:{mask_line()}" in breaks[0]
    assert any(r.startswith("recompile") for r in replay.reasons)
    assert result.verdict_for(DYNAMIC, mask_line()).verdict == "confirmed"
    steps = [(r[0], r[2]) for r in step_rows(result)]  # (step, new in) of module "1"
    assert steps == [(0, True), (1, False), (2, True), (3, False)]


def test_cli_dynamic_toy_exits_1_and_writes_quoted_csv(tmp_path):
    out = tmp_path / "out"
    proc = run_cli([DYNAMIC, "--entry", "examples.confirm.toy_dynamic:factory", "--backend", "emulate",
                    "--out", str(out)])
    assert proc.returncode == 1, proc.stderr
    assert "confirmed" in proc.stdout and f"toy_dynamic.py:{mask_line()}" in proc.stdout
    with open(out / "recompiles_per_step.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 12
    assert [r["Recompiling modules"] for r in rows if r["Step"] == "1"] == ["1", "(root)"]
    assert all("," in r["Comment"] for r in rows if r["Step"] == "1")  # commas survive quoting
    with open(out / "recompiles_summary.csv", newline="") as fh:
        summary = {r["Module"]: r for r in csv.DictReader(fh)}
    assert summary["1"]["Recompiles"] == "4" and summary["1"]["Recompiles with a seen input shape"] == "2"
    data = json.loads((out / "confirm.json").read_text())
    assert data["exit_code"] == 1 and data["verdicts"][0]["verdict"] == "confirmed"


def test_cli_static_twin_json_exits_0_through_the_dynlint_command():
    proc = run_cli(["confirm", STATIC, "--entry", "examples.confirm.toy_static:factory", "--backend", "emulate",
                    "--format", "json", "--steps", "3"], command=("dynlint",))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["steps"] == 3 and data["dynamic_modules"] == []
    assert {row["Step"] for row in data["per_step"]} == {0, 2}
