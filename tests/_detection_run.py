"""Runs torchvision detection models (random weights, tiny inputs) in train and eval mode and
prints what they computed as JSON. Run as a script with an importable torchvision copy first
on PYTHONPATH: `python _detection_run.py COPY_DIR MODEL...`. Shared by the fix acceptance
tests, which compare or check these outputs."""
import json
import os
import subprocess
import sys

import torch

SMALL = {"min_size": 64, "max_size": 96}
KWARGS = {"fasterrcnn_resnet50_fpn": SMALL, "fcos_resnet50_fpn": SMALL,
          "retinanet_resnet50_fpn": SMALL, "ssd300_vgg16": {}}


def run_in_copy(site, names, cwd, timeout=1800) -> dict:
    """The JSON the script prints, run in a subprocess that imports torchvision from `site`."""
    env = dict(os.environ, PYTHONPATH=str(site))
    done = subprocess.run([sys.executable, __file__, str(site), *names], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(site, names):
    import torchvision
    from torchvision.models import detection
    assert torchvision.__file__.startswith(site), torchvision.__file__
    out = {}
    for name in names:
        torch.manual_seed(0)
        model = getattr(detection, name)(weights=None, weights_backbone=None, num_classes=3,
                                         **KWARGS[name])
        images = [torch.rand(3, 64, 80), torch.rand(3, 72, 64)]
        targets = [{"boxes": torch.tensor([[4.0, 5.0, 40.0, 50.0]]), "labels": torch.tensor([1])},
                   {"boxes": torch.zeros(0, 4), "labels": torch.zeros(0, dtype=torch.int64)}]
        model.train()
        losses = model(images, targets)
        sum(losses.values()).backward()
        model.eval()
        with torch.no_grad():
            detections = model(images)
        out[name] = {"losses": {k: float(v) for k, v in losses.items()},
                     "keys": [sorted(d) for d in detections],
                     "boxes": [d["boxes"].sum().item() for d in detections],
                     "n": [len(d["boxes"]) for d in detections]}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
