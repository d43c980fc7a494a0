"""Acceptance: torchvision's Faster R-CNN, as in the Gaudi tutorial, on CPU with random weights."""
from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from dynlint.confirm.report import step_rows
from dynlint.confirm.run import run_confirm

pytestmark = pytest.mark.slow
TV = os.path.dirname(torchvision.__file__)
POOLERS = os.path.join(TV, "ops", "poolers.py")
ROI_HEADS = os.path.join(TV, "models", "detection", "roi_heads.py")


def line_of(path: str, text: str) -> int:
    with open(path, encoding="utf-8") as fh:
        return next(i for i, line in enumerate(fh, 1) if text in line)


@pytest.fixture(scope="module")
def result():
    from examples.confirm import fasterrcnn

    paths = [os.path.join(TV, "models", "detection"), os.path.join(TV, "ops")]
    return run_confirm(fasterrcnn.build_model(), fasterrcnn.make_batches(3), paths, steps=3, backend="emulate")


def test_roi_heads_and_its_pooler_are_named_dynamic(result):
    dynamic = result.dynamic_modules()
    assert "roi_heads" in dynamic and "roi_heads.box_roi_pool" in dynamic
    assert result.stats["roi_heads"].cls == "torchvision.models.detection.roi_heads.RoIHeads"
    assert result.stats["roi_heads.box_roi_pool"].cls == "torchvision.ops.poolers.MultiScaleRoIAlign"
    assert not any(name.startswith("backbone") for name in dynamic)


def test_per_step_table_shows_recompiles_with_seen_input_shapes(result):
    rows = {(r[0], r[1]): r for r in step_rows(result)}
    for step in (1, 2):
        for name in ("roi_heads", "roi_heads.box_roi_pool"):
            _, _, new_in, _, _, location, comment, _ = rows[step, name]
            assert new_in is False and "seen before" in comment and "data-dependent" in comment
            assert location.startswith("torchvision")
    pool_line = line_of(POOLERS, "idx_in_level = torch.where(levels == level)")
    assert f"poolers.py:{pool_line}" in rows[1, "roi_heads.box_roi_pool"][7]
    assert not any(step > 0 and name.startswith("backbone") for step, name in rows)


def test_responsible_torchvision_lines_are_confirmed(result):
    pool_line = line_of(POOLERS, "idx_in_level = torch.where(levels == level)")
    score_line = line_of(ROI_HEADS, "torch.where(scores > self.score_thresh)")
    for path, line in ((POOLERS, pool_line), (ROI_HEADS, score_line)):
        verdict = result.verdict_for(path, line)
        assert verdict is not None and verdict.verdict == "confirmed", (path, line, verdict)
    assert "roi_heads.box_roi_pool" in result.verdict_for(POOLERS, pool_line).modules
    assert result.exit_code == 1
    # training-only code (losses, samplers) never ran in eval mode
    assert any(v.verdict == "not-exercised" and "loss" in v.finding.scope for v in result.verdicts)


def test_replays_prove_value_dependence(result):
    replays = {r.name: r for r in result.replays}
    for name in ("roi_heads", "roi_heads.box_roi_pool"):
        assert sum(replays[name].compiles["as-captured-again"]) == 0
        assert replays[name].seen_shape_compiles["perturbed"] > 0
    assert "" not in replays  # the whole model is never replayed: its flagged lines did not run
