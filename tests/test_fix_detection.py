"""Acceptance for unsafe fixes: after `dynlint check --fix --unsafe-fixes` on a copy of the
installed torchvision, its detection models still build and run, in train and eval mode.

An unsafe fix may change a shape that a caller sees (and says so in its message); it must
never make the code crash or compute other values. The detection heads are where the
boolean-mask and `nonzero` filtering of torchvision lives, a few lines above code that
indexes with the filtered tensors, so they are where a careless rewrite breaks first.
"""
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torchvision = pytest.importorskip("torchvision")

RUN = textwrap.dedent("""\
    import json, sys
    import torch
    import torchvision
    from torchvision.models import detection
    assert torchvision.__file__.startswith(sys.argv[1]), torchvision.__file__
    torch.manual_seed(0)
    small = dict(min_size=64, max_size=96)
    out = {}
    for name, kw in [("fasterrcnn_resnet50_fpn", small), ("fcos_resnet50_fpn", small),
                     ("retinanet_resnet50_fpn", small), ("ssd300_vgg16", {})]:
        model = getattr(detection, name)(weights=None, weights_backbone=None, num_classes=3, **kw)
        images = [torch.rand(3, 64, 80), torch.rand(3, 72, 64)]
        targets = [{"boxes": torch.tensor([[4.0, 5.0, 40.0, 50.0]]), "labels": torch.tensor([1])},
                   {"boxes": torch.zeros(0, 4), "labels": torch.zeros(0, dtype=torch.int64)}]
        model.train()
        losses = model(images, targets)
        sum(losses.values()).backward()
        model.eval()
        with torch.no_grad():
            detections = model(images)
        out[name] = {"losses": sorted(losses), "eval": [sorted(d) for d in detections]}
    print(json.dumps(out))
    """)


# DYN101's `y = x[m]` -> `torch.where(m, x, 0)` fallback kept every score, so FCOS, RetinaNet
# and SSD indexed past the end a few lines below; it is display-only now (issue 10, item 5).
def test_detection_models_run_after_unsafe_fixes(tmp_path, dynlint):
    src = Path(torchvision.__file__).parent
    copy = tmp_path / "site"
    shutil.copytree(src, copy / "torchvision", ignore=shutil.ignore_patterns("__pycache__"))
    r = dynlint("check", "--fix", "--unsafe-fixes", "--no-cache", "torchvision", cwd=copy,
                timeout=900)
    assert r.returncode in (0, 1), r.stderr
    assert " fixed" in r.stdout, r.stdout[-2000:]
    changed = [p for p in (copy / "torchvision").rglob("*.py")
               if p.read_bytes() != (src / p.relative_to(copy / "torchvision")).read_bytes()]
    assert any("detection" in p.parts for p in changed) or any(
        p.parts[-2:] == ("ops", "boxes.py") for p in changed), changed
    script = tmp_path / "run.py"
    script.write_text(RUN)
    env = dict(os.environ, PYTHONPATH=str(copy))
    done = subprocess.run([sys.executable, str(script), str(copy)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(result) == {"fasterrcnn_resnet50_fpn", "fcos_resnet50_fpn",
                           "retinanet_resnet50_fpn", "ssd300_vgg16"}
    for name, seen in result.items():
        assert seen["losses"], name
        assert all(d == ["boxes", "labels", "scores"] for d in seen["eval"]), (name, seen)
