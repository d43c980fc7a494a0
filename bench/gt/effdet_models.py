"""effdet (EfficientDet on timm backbones): models built from the package's own configs
(`get_efficientdet_config`) at 128 px with random weights (`pretrained=False,
pretrained_backbone=False`; nothing is downloaded). `DetBenchTrain` with the anchor labeler in the
bench (IoU matching by `ArgMaxMatcher`, `TargetAssigner`, focal + Huber loss; padded targets with
class -1 filtered out) in train mode, and in eval mode with detections (top-k, `batched_nms` or
soft-NMS, clipping by image size); `DetBenchPredict`; EfficientDet-Lite and the legacy focal loss.

effdet decorates its matcher, box-list and detection helpers with `@torch.jit.script`; scripted
functions run in C++ and their ops would be pinned on the Python caller. Scripting is switched off
while effdet is imported (`torch.jit._state.disable()`, what `PYTORCH_JIT=0` does), so the
decorators return the Python functions and each op is attributed to its own line.
"""
from __future__ import annotations

import torch

from . import gen, step

torch.jit._state.disable()
try:
    import effdet  # noqa: F401  (imported while scripting is off, see above)
    import effdet.anchors, effdet.bench, effdet.loss  # noqa: E401,F401
finally:
    torch.jit._state.enable()

SIZE = 128
NUM_CLASSES = 5


def _targets(b=2, n=4, seed=201):
    """Padded box targets as effdet's loader builds them: yxyx boxes, classes 1..C, padding -1."""
    g = gen(seed)
    yx = torch.rand(b, n, 2, generator=g) * SIZE * 0.6
    hw = torch.rand(b, n, 2, generator=g) * SIZE * 0.35 + 8
    boxes = torch.cat([yx, (yx + hw).clamp(max=SIZE - 1)], -1)
    cls = torch.randint(1, NUM_CLASSES + 1, (b, n), generator=g).float()
    cls[1, n - 1:] = -1                   # one padded slot in the second image
    boxes[1, n - 1:] = -1
    return dict(bbox=boxes, cls=cls, img_scale=torch.tensor([1.0, 1.5]),
                img_size=torch.tensor([[SIZE, SIZE], [SIZE * 1.5, SIZE * 1.2]]))


def _images(b=2, seed=202):
    return torch.randn(b, 3, SIZE, SIZE, generator=gen(seed))


def _create(name, task="", **over):
    """A model from effdet's shipped config `name`; 400 top-k detection points instead of 5000 keep
    the per-box soft-NMS loop short on the CPU (the code paths are the same)."""
    from effdet import create_model_from_config, get_efficientdet_config
    config = get_efficientdet_config(name)
    config.max_detection_points = 400
    return create_model_from_config(config, bench_task=task, num_classes=NUM_CLASSES, pretrained=False,
                                    pretrained_backbone=False, image_size=(SIZE, SIZE), **over)


def train_bench(name, **over):
    """DetBenchTrain with the labeler: train (loss) and eval (loss + detections)."""
    def build():
        model = _create(name, "train", bench_labeler=True, max_det_per_image=20, **over)
        x, tgt = _images(), _targets()
        args = ((x, tgt), {})
        return model, [args], [args]
    return build


def predict_bench(name, **over):
    """DetBenchPredict: inference with image info (rescaled, clipped detections) and without."""
    def build():
        model = _create(name, "predict", max_det_per_image=20, **over)
        x, tgt = _images(seed=203), _targets(seed=204)
        info = dict(img_scale=tgt["img_scale"], img_size=tgt["img_size"])
        return model, [((x,), {}), ((x, info), {})], []
    return build


def labeler_and_loss():
    """The labeler used apart from the bench (effdet's loader does this per image) and the loss
    module on the labels, as a training loop with `bench_labeler=False` runs it on device."""
    def build():
        from effdet.anchors import AnchorLabeler, Anchors
        from effdet.loss import DetectionLoss
        net = _create("efficientdet_d0")
        anchors = Anchors.from_config(net.config)
        labeler = AnchorLabeler(anchors, NUM_CLASSES, match_threshold=0.5)
        loss_fn = DetectionLoss(net.config)
        x, tgt = _images(seed=205), _targets(seed=206)

        def run(x, boxes, cls):
            class_out, box_out = net(x)
            per_image = [labeler.label_anchors(boxes[i], cls[i]) for i in range(boxes.shape[0])]
            cls_t = [torch.stack([p[0][lv] for p in per_image]) for lv in range(len(class_out))]
            box_t = [torch.stack([p[1][lv] for p in per_image]) for lv in range(len(class_out))]
            npos = torch.stack([p[2] for p in per_image])
            return loss_fn(class_out, box_out, cls_t, box_t, npos)[0]
        args = ((x, tgt["bbox"], tgt["cls"]), {})
        return step(run, eval_runs=args, train_runs=args, net=net, loss_fn=loss_fn)
    return build


MODELS = {
    "effdet_d0_train": train_bench("efficientdet_d0"),
    "effdet_tf_d0_softnms_train": train_bench("tf_efficientdet_d0", soft_nms=True, legacy_focal=True),
    "effdet_lite0_predict": predict_bench("tf_efficientdet_lite0"),
    "effdet_d0_softnms_predict": predict_bench("efficientdet_d0", soft_nms=True),
    "effdet_labeler_loss": labeler_and_loss(),
}
