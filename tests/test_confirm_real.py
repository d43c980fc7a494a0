"""Real models from kornia, monai and segment-anything (random weights, tiny configs), each run
with the emulate and the compile backends: the modules named dynamic are those whose own code
ran a data-dependent op whose result varied, and both backends name the same ones."""
from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import confirm_real_models as real  # noqa: E402

from dynlint.confirm.report import render_text, to_dict
from dynlint.confirm.run import run_confirm

pytestmark = pytest.mark.slow
SITE = real.SITE


# (model, batches, paths, captures kept per module): one capture where replaying the whole
# model through torch.compile is the cost; the record run and the perturbed replay still vary.
def _kornia():
    pytest.importorskip("kornia")
    return real.kornia_matcher(), real.kornia_batches(2), [os.path.join(SITE, "kornia", "feature")], 1


def _monai():
    pytest.importorskip("monai")
    return real.monai_detector(), real.monai_batches(2), [os.path.join(SITE, "monai", "apps", "detection")], 1


def _sam():
    pytest.importorskip("segment_anything")
    return real.AutoMasks(real.tiny_sam()), real.sam_batches(2), [os.path.join(SITE, "segment_anything")], 2


MODELS = {"kornia": _kornia, "monai": _monai, "sam": _sam}


def confirm_both(model_key: str):
    """One test per model runs both backends (xdist spreads the models over workers)."""
    out = {}
    for backend in ("emulate", "compile"):
        model, batches, paths, captures = MODELS[model_key]()
        out[backend] = run_confirm(model, batches, paths, steps=2, backend=backend, max_captures=captures)
    check_backends_agree(out["emulate"], out["compile"])
    return out


def check_backends_agree(emulate, compiled):
    assert emulate.dynamic_modules() == compiled.dynamic_modules()
    # Where the compile backend's own evidence differs, its reasons say how.
    for v in compiled.module_verdicts:
        assert any(r.startswith("compile:") or "replay" in r for r in v.reasons), v.reasons


def own_varied(result) -> set[str]:
    return {m for s in result.sites.values() for m in s.modules if s.varied_in(m)}


def check_common(result):
    """What must hold for any model and backend."""
    dynamic = result.dynamic_modules()
    assert set(dynamic) == own_varied(result)  # dynamic <=> an op of its own code varied
    for v in result.module_verdicts:
        assert v.reasons and all(r.strip() for r in v.reasons)
    text = render_text(result)
    for replay in result.replays:  # every replay that raised is in the report
        for err in replay.errors:
            assert err.split(" (at ")[0][:60] in " ".join(text.split())
    data = to_dict(result)
    assert "" not in data["dynamic_modules"] and "" not in data["inconclusive_modules"]
    return dynamic


def test_kornia_feature_matcher():
    for result in confirm_both("kornia").values():
        dynamic = check_common(result)
        # The matcher's mutual-nearest/ratio test and the root's per-image valid-keypoint masks vary;
        # the SIFT detector and descriptor (fixed top-k) do not.
        assert dynamic == ["", "matcher"]
        matching = os.path.join(SITE, "kornia", "feature", "matching.py")
        confirmed = {(v.finding.path, v.finding.scope) for v in result.confirmed}
        assert (os.path.realpath(matching), "match_snn") in confirmed
        assert not any(n.startswith("local_feature") for n in dynamic)


def test_monai_retinanet_detector():
    for backend, result in confirm_both("monai").items():
        dynamic = check_common(result)
        # Box selection by score threshold runs in the detector's own code (BoxSelector is not a module);
        # the network, its heads and the anchor generator (cached after the warm-up) are static.
        assert dynamic == [""]
        selector = os.path.realpath(os.path.join(SITE, "monai", "apps", "detection", "utils", "box_selector.py"))
        assert any(v.finding.path == selector for v in result.confirmed)
        root = result.module_verdicts[0]
        if backend == "compile":  # Dynamo cannot trace the detector: said, not silently dropped
            assert any("raised" in r or "compiled replay" in r for r in root.reasons), root.reasons
        else:
            assert any("recompiled with a seen input shape" in r for r in root.reasons)


def test_segment_anything_automatic_masks():
    for result in confirm_both("sam").values():
        dynamic = check_common(result)
        # The generator's filters (iou / stability thresholds, NMS, MaskData.filter) run in the
        # wrapper's own code through free functions; the image encoder and mask decoder are static.
        assert dynamic == [""]
        amg = os.path.realpath(os.path.join(SITE, "segment_anything", "utils", "amg.py"))
        assert any(s.path == amg and s.varied_in("") for s in result.sites.values())
        assert not any(n.startswith(("sam.image_encoder", "sam.mask_decoder")) for n in dynamic)
