"""torchvision's Faster R-CNN as in Intel's Gaudi tutorial, with random weights (nothing is downloaded).

    TV=$(python -c "import os, torchvision; print(os.path.dirname(torchvision.__file__))")
    dynlint confirm $TV/models/detection $TV/ops --entry examples.confirm.fasterrcnn:factory --steps 3
"""
import torch
import torchvision

SIZE = 320
IMAGES_PER_BATCH = 2


def build_model():
    torch.manual_seed(0)
    # With random weights the softmax over 91 classes averages 1/91: a score threshold there
    # keeps about half the candidates, so the count varies as trained detections would.
    # 100 proposals per image are always reached, so RoIHeads sees the same input shapes on
    # every step, like the tutorial's trained model did.
    return torchvision.models.detection.fasterrcnn_resnet50_fpn(
        weights=None, weights_backbone=None, min_size=SIZE, max_size=SIZE,
        box_score_thresh=1 / 91, rpn_post_nms_top_n_test=100).eval()


def make_batches(steps: int = 3, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    # One batch is a tuple holding the list of images: model(images).
    return [([torch.rand(3, SIZE, SIZE, generator=gen) for _ in range(IMAGES_PER_BATCH)],) for _ in range(steps)]


def factory():
    return build_model(), make_batches()
