"""Ultralytics YOLO: detection (YOLOv8, YOLO11, YOLO26 end-to-end), instance segmentation, pose,
oriented boxes and RT-DETR, each built from the yaml config shipped in the package with random
weights (`YOLO("yolov8n.yaml")`: nothing is downloaded). Train: forward and the task's loss
(task-aligned assigner, DFL/IoU, mask/keypoint/angle terms, RT-DETR's Hungarian matcher and
denoising groups). Eval: the real predictor (`YOLO.predict` on two small numpy images: letterbox,
forward, NMS or end-to-end top-k, mask/keypoint decoding, `Results`) and, for YOLOv8, the
validator's postprocess and metric matching. 128-pixel images.

Set up outside the step: the predictor is warmed up once in the builder (its first call builds the
predictor and the AutoBackend wrapper). The classification heads' biases start at the prior
`log(5 / nc / (640 / s) ** 2)`, so random-weight scores sit far below any confidence threshold
and NMS would see no box: the builder sets those biases to zero (scores around 0.5)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import torch

from . import DEVICE, gen, step

IMG = 128


def _env():
    # no settings file in the home directory, no online checks (nothing may be downloaded)
    os.environ.setdefault("YOLO_CONFIG_DIR", os.path.join(tempfile.gettempdir(), "dynlint_gt_yolo"))
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ.setdefault("YOLO_VERBOSE", "False")


_env()    # before anything imports ultralytics (its settings file is written on import)

def _yolo(cfg):
    from ultralytics import RTDETR, YOLO
    from ultralytics.cfg import get_cfg
    y = (RTDETR if "rtdetr" in cfg else YOLO)(cfg)
    y.model.args = get_cfg()             # what a trainer sets on its model: hyperparameters, nc
    y.model.nc = len(y.model.names)
    head = y.model.model[-1]
    for name in ("cv3", "one2one_cv3"):
        for seq in getattr(head, name, None) or ():
            last = seq[-1] if isinstance(seq, torch.nn.Sequential) else seq
            if getattr(last, "bias", None) is not None:
                torch.nn.init.zeros_(last.bias)
    if hasattr(head, "enc_score_head"):         # RT-DETR
        torch.nn.init.zeros_(head.enc_score_head.bias)
        for lin in head.dec_score_head:
            torch.nn.init.zeros_(lin.bias)
    return y


def _images(seed=71):
    import numpy as np
    rs = np.random.RandomState(seed)
    return [(rs.rand(96, 128, 3) * 255).astype(np.uint8), (rs.rand(128, 112, 3) * 255).astype(np.uint8)]


def _batch(task="detect", b=2, seed=72):
    """A collated training batch as the ultralytics dataloader yields it (normalised xywh boxes)."""
    g = gen(seed)
    counts = [3, 5][:b]
    idx = torch.cat([torch.full((n,), float(i)) for i, n in enumerate(counts)])
    n = len(idx)
    xy = 0.25 + 0.5 * torch.rand(n, 2, generator=g)
    wh = 0.1 + 0.3 * torch.rand(n, 2, generator=g)
    batch = {"img": torch.rand(b, 3, IMG, IMG, generator=g), "batch_idx": idx,
             "cls": torch.randint(0, 3, (n, 1), generator=g).float(), "bboxes": torch.cat([xy, wh], 1)}
    if task == "obb":
        batch["bboxes"] = torch.cat([xy, wh, (torch.rand(n, 1, generator=g) - 0.5) * 3.0], 1)
    if task == "pose":
        kp = torch.rand(n, 17, 3, generator=g)
        kp[..., :2] = xy[:, None] + (kp[..., :2] - 0.5) * wh[:, None]
        kp[..., 2] = (kp[..., 2] > 0.3).float() * 2
        batch["keypoints"] = kp
    if task == "segment":                      # overlap masks: per image, pixel = instance number
        s = IMG // 4
        masks, sem = torch.zeros(b, s, s), torch.zeros(b, s, s)      # sem: YOLO26-seg's semantic term
        for j in range(n):
            i = int(idx[j])
            k = int((idx[:j] == i).sum()) + 1
            x0, y0 = ((xy[j] - wh[j] / 2) * s).clamp(0, s - 1).long().tolist()
            x1, y1 = ((xy[j] + wh[j] / 2) * s).clamp(1, s).long().tolist()
            masks[i, y0:y1, x0:x1] = k
            sem[i, y0:y1, x0:x1] = batch["cls"][j, 0]
        batch["masks"], batch["sem_masks"] = masks, sem
    return batch


def yolo(cfg, task="detect", **predict_kw):
    """`predict_kw`: `nms=False` selects YOLO26's one-to-one (NMS-free) head for inference."""
    def build():
        y = _yolo(cfg)
        model = y.model
        batch = _batch(task)
        imgs = _images()
        kw = dict(imgsz=IMG, conf=0.25, max_det=50, verbose=False, **predict_kw)
        y.predict(imgs[0], **kw)             # build the predictor once

        def run(batch, imgs):
            if model.training:
                loss, _ = model.loss(batch)
                return loss.sum()
            return y.predict(imgs, **kw)
        return step(run, eval_runs=((batch, imgs), {}), train_runs=((batch, imgs), {}), model=model)
    return build


def validate():
    """YOLOv8 validation step: forward, the validator's NMS postprocess and metric matching."""
    def build():
        y = _yolo("yolov8n.yaml")
        model = y.model
        from ultralytics.models.yolo.detect import DetectionValidator
        args = {"model": "yolov8n.yaml", "imgsz": IMG, "conf": 0.25, "plots": False, "save_json": False,
                "task": "detect", "verbose": False}
        val = DetectionValidator(save_dir=Path(tempfile.mkdtemp(prefix="dynlint_gt_val")), args=args)
        val.device = DEVICE
        val.training = True                  # validation during training, as the trainer runs it
        val.data = {"val": "", "nc": len(model.names), "names": model.names}
        val.init_metrics(model)
        batch = _batch()
        batch.update(im_file=["a.jpg", "b.jpg"], ori_shape=[(IMG, IMG)] * 2,
                     ratio_pad=[((1.0, 1.0), (0.0, 0.0))] * 2)

        def run(batch):
            preds = val.postprocess(model(batch["img"]))
            val.update_metrics(preds, batch)
            return val.get_stats()
        return step(run, eval_runs=((batch,), {}), model=model)
    return build


MODELS = {
    "yolo_v8n_detect": yolo("yolov8n.yaml"),
    "yolo_11n_detect": yolo("yolo11n.yaml"),
    "yolo_26n_detect_e2e": yolo("yolo26n.yaml", nms=False),
    "yolo_26n_seg_e2e": yolo("yolo26n-seg.yaml", "segment", nms=False),
    "yolo_26n_pose_e2e": yolo("yolo26n-pose.yaml", "pose", nms=False),
    "yolo_v8n_seg": yolo("yolov8n-seg.yaml", "segment"),
    "yolo_11n_pose": yolo("yolo11n-pose.yaml", "pose"),
    "yolo_11n_obb": yolo("yolo11n-obb.yaml", "obb"),
    "yolo_rtdetr_l": yolo("rtdetr-l.yaml"),
    "yolo_v8n_val": validate(),
}
