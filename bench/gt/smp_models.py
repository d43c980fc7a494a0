"""segmentation_models_pytorch (smp 0.6.0): its segmentation architectures built with
`encoder_weights=None` (random weights; nothing downloaded), trained with every loss smp ships and
evaluated with its metrics, as its example notebooks do. Each batch is two 64x64 images whose
targets hold an *ignore* label (255 for class maps, -1 for binary and multi-label masks) on a
band of pixels, so the ignore masks of the losses and metrics matter.

Installed for suite f (first look, issue 9) into the shared venv, without dependencies (smp's own
dependencies, huggingface_hub, numpy, pillow, safetensors, timm, torch, torchvision and tqdm, were
already there and were not touched):

    /work/main/.ci/venv/bin/pip install --no-deps segmentation-models-pytorch==0.6.0 torchsde==0.2.6 trampoline==0.1.2

* Unet (resnet18, scSE attention in the decoder, an auxiliary classification head) on a 4-class
  class map: train: DiceLoss, JaccardLoss, FocalLoss, LovaszLoss (per batch, classes "present"),
  TverskyLoss and SoftCrossEntropyLoss (label smoothing), all multiclass with `ignore_index`;
  eval: `predict`, argmax, `metrics.get_stats` (multiclass, `ignore_index`) and the scores with
  each reduction (micro, macro, weighted with class weights, imagewise, none).
* FPN (smp's own efficientnet-b0 encoder) on a binary mask with ignored pixels: train: binary
  DiceLoss, JaccardLoss, FocalLoss, LovaszLoss (per image), SoftBCEWithLogitsLoss (smoothing),
  TverskyLoss, MCCLoss; eval: `get_stats` (binary, threshold) and the legacy `utils.metrics`
  (IoU, Fscore, Accuracy, Recall, Precision).
* DeepLabV3+ (output stride 8), UnetPlusPlus and MAnet on a 3-label multi-label mask: train: the
  multi-label Dice, Jaccard and Tversky losses with `ignore_index` and Focal without (its multi-label
  `ignore_index` path raises an IndexError in smp 0.6.0); eval: `get_stats`
  (multilabel) and the scores.
* Linknet, PSPNet, PAN, UPerNet and DeepLabV3 forward passes (train and eval; 128x128 images, PAN
  pools to 1/256), with a multiclass Dice loss in train.
* Segformer (mix-transformer mit_b0) and DPT (a timm ViT through smp's `TimmUniversal`/ViT
  encoder), Unet on a timm `tu-` encoder: forward, multiclass Lovasz (per image) + Dice in train.
* The legacy epoch loop `utils.train.TrainEpoch` / `ValidEpoch` (a list of two batches as the
  data loader) with the legacy `utils.losses.DiceLoss` and `utils.metrics.IoU`: the loop that
  smp's older examples train with.

Not covered: `from_pretrained`/hub loading and pretrained encoders (downloads), the datasets module
(Oxford pets download), ONNX/torchscript export.
"""
from __future__ import annotations

import torch

from . import DEVICE, gen, step

IGNORE = 255


def _images(b=2, size=64, seed=601):
    return torch.randn(b, 3, size, size, generator=gen(seed))


def _class_map(c=4, b=2, size=64, seed=602):
    """A class map with an ignored band (rows 0-3 of image 0) and one class absent in image 1."""
    y = torch.randint(0, c, (b, size, size), generator=gen(seed))
    y[0, :4] = IGNORE
    y[1][y[1] == c - 1] = 0
    return y


def _binary(b=2, size=64, seed=603):
    y = (torch.rand(b, 1, size, size, generator=gen(seed)) > 0.6).float()
    y[0, :, :4] = -1.0
    return y


def _multilabel(c=3, b=2, size=64, seed=604):
    y = (torch.rand(b, c, size, size, generator=gen(seed)) > 0.5).float()
    y[1, :, -4:] = -1.0
    return y


def unet_multiclass():
    import segmentation_models_pytorch as smp
    from segmentation_models_pytorch import losses, metrics
    c = 4
    model = smp.Unet("resnet18", encoder_weights=None, classes=c, decoder_attention_type="scse",
                     aux_params={"classes": c, "dropout": 0.2})
    mode = losses.MULTICLASS_MODE
    fns = [losses.DiceLoss(mode, ignore_index=IGNORE), losses.JaccardLoss(mode, ignore_index=IGNORE),
           losses.FocalLoss(mode, ignore_index=IGNORE), losses.LovaszLoss(mode, ignore_index=IGNORE),
           losses.TverskyLoss(mode, ignore_index=IGNORE, classes=[1, 2, 3]),
           losses.SoftCrossEntropyLoss(smooth_factor=0.1, ignore_index=IGNORE)]
    x, y = _images(), _class_map(c)
    labels = torch.tensor([1, 2])

    def run(x, y, labels):
        masks, logits = model(x)
        if model.training:
            return sum(fn(masks, y) for fn in fns) + torch.nn.functional.cross_entropy(logits, labels)
        pred = masks.argmax(1)
        tp, fp, fn, tn = metrics.get_stats(pred, y, mode="multiclass", num_classes=c, ignore_index=IGNORE)
        return [metrics.iou_score(tp, fp, fn, tn, reduction="micro"),
                metrics.f1_score(tp, fp, fn, tn, reduction="macro"),
                metrics.accuracy(tp, fp, fn, tn, reduction="weighted", class_weights=[0.1, 0.2, 0.3, 0.4]),
                metrics.recall(tp, fp, fn, tn, reduction="micro-imagewise"),
                metrics.precision(tp, fp, fn, tn, reduction="macro-imagewise"),
                metrics.balanced_accuracy(tp, fp, fn, tn, reduction=None)]
    args = ((x, y, labels), {})
    return step(run, eval_runs=args, train_runs=args, model=model,
                **{f"loss{i}": f for i, f in enumerate(fns)})


def fpn_binary():
    import segmentation_models_pytorch as smp
    from segmentation_models_pytorch import losses, metrics
    from segmentation_models_pytorch.utils import metrics as legacy
    model = smp.FPN("efficientnet-b0", encoder_weights=None, classes=1)
    mode = losses.BINARY_MODE
    fns = [losses.DiceLoss(mode, ignore_index=-1), losses.JaccardLoss(mode, ignore_index=-1),
           losses.FocalLoss(mode, ignore_index=-1), losses.LovaszLoss(mode, per_image=True, ignore_index=-1),
           losses.SoftBCEWithLogitsLoss(ignore_index=-1, smooth_factor=0.1),
           losses.TverskyLoss(mode, ignore_index=-1), losses.MCCLoss()]
    legacy_metrics = [legacy.IoU(threshold=0.5), legacy.Fscore(threshold=0.5), legacy.Accuracy(threshold=0.5),
                      legacy.Recall(threshold=0.5), legacy.Precision(threshold=0.5)]
    x, y = _images(seed=611), _binary()

    def run(x, y):
        logits = model(x)
        if model.training:
            return sum(fn(logits, y.clamp_min(0) if isinstance(fn, losses.MCCLoss) else y) for fn in fns[:-1]) \
                + fns[-1](logits.sigmoid(), y.clamp_min(0))
        prob = logits.sigmoid()
        target = y.clamp_min(0).long()
        tp, fp, fn, tn = metrics.get_stats(prob, target, mode="binary", threshold=0.5)
        return ([metrics.iou_score(tp, fp, fn, tn, reduction="micro"),
                 metrics.fbeta_score(tp, fp, fn, tn, beta=2, reduction="micro-imagewise"),
                 metrics.sensitivity(tp, fp, fn, tn, reduction="macro"),
                 metrics.specificity(tp, fp, fn, tn, reduction="none")]
                + [m(prob, y.clamp_min(0)) for m in legacy_metrics])
    args = ((x, y), {})
    return step(run, eval_runs=args, train_runs=args, model=model)


def multilabel():
    import segmentation_models_pytorch as smp
    from segmentation_models_pytorch import losses, metrics
    c = 3
    models = [smp.DeepLabV3Plus("resnet18", encoder_weights=None, classes=c, encoder_output_stride=8),
              smp.UnetPlusPlus("resnet18", encoder_weights=None, classes=c, encoder_depth=4,
                               decoder_channels=(64, 32, 16, 8)),
              smp.MAnet("resnet18", encoder_weights=None, classes=c, encoder_depth=4,
                        decoder_channels=(64, 32, 16, 8))]
    mode = losses.MULTILABEL_MODE
    fns = [losses.DiceLoss(mode, ignore_index=-1), losses.JaccardLoss(mode, ignore_index=-1),
           losses.TverskyLoss(mode, ignore_index=-1, log_loss=True)]
    focal = losses.FocalLoss(mode)   # its multi-label `ignore_index` path fails in smp 0.6.0 (a 4-d mask on 3-d slices)
    x, y = _images(seed=621), _multilabel(c)
    net = torch.nn.ModuleList(models)

    def run(x, y):
        outs = [m(x) for m in net]
        if net.training:
            return sum(fn(o, y) for o in outs for fn in fns) + sum(focal(o, y.clamp_min(0)) for o in outs)
        res = []
        for o in outs:
            tp, fp, fn, tn = metrics.get_stats(o.sigmoid(), y.clamp_min(0).long(), mode="multilabel", threshold=0.5)
            res += [metrics.iou_score(tp, fp, fn, tn, reduction="macro"),
                    metrics.f1_score(tp, fp, fn, tn, reduction="weighted-imagewise", class_weights=[1.0, 2.0, 1.0]),
                    metrics.positive_predictive_value(tp, fp, fn, tn, reduction="micro")]
        return res
    args = ((x, y), {})
    return step(run, eval_runs=args, train_runs=args, net=net)


def more_architectures():
    import segmentation_models_pytorch as smp
    from segmentation_models_pytorch import losses
    c = 4
    net = torch.nn.ModuleList([
        smp.Linknet("resnet18", encoder_weights=None, classes=c),
        smp.PSPNet("resnet18", encoder_weights=None, classes=c, psp_out_channels=64),
        smp.PAN("resnet18", encoder_weights=None, classes=c, decoder_channels=32),
        smp.UPerNet("resnet18", encoder_weights=None, classes=c, decoder_channels=64),
        smp.DeepLabV3("resnet18", encoder_weights=None, classes=c, decoder_channels=64)])
    dice = losses.DiceLoss(losses.MULTICLASS_MODE, ignore_index=IGNORE)
    x, y = _images(size=128, seed=631), _class_map(c, size=128, seed=632)   # PAN pools to 1/256

    def run(x, y):
        outs = [m(x) for m in net]
        if net.training:
            return sum(dice(o, y) for o in outs)
        return [o.argmax(1) for o in outs]
    args = ((x, y), {})
    return step(run, eval_runs=args, train_runs=args, net=net)


def transformers():
    """Segformer (mit_b0), DPT on a tiny timm ViT, Unet on a timm `tu-` encoder."""
    import segmentation_models_pytorch as smp
    from segmentation_models_pytorch import losses
    c = 4
    net = torch.nn.ModuleList([
        smp.Segformer("mit_b0", encoder_weights=None, classes=c, decoder_segmentation_channels=32),
        smp.DPT("tu-vit_tiny_patch16_224", encoder_weights=None, classes=c, img_size=64,
                decoder_intermediate_channels=(16, 32, 64, 64), decoder_fusion_channels=32),
        smp.Unet("tu-resnet10t", encoder_weights=None, classes=c, encoder_depth=4,
                 decoder_channels=(64, 32, 16, 8))])
    lovasz = losses.LovaszLoss(losses.MULTICLASS_MODE, per_image=True, ignore_index=IGNORE)
    dice = losses.DiceLoss(losses.MULTICLASS_MODE, ignore_index=IGNORE, log_loss=True)
    x, y = _images(seed=641), _class_map(c, seed=642)

    def run(x, y):
        outs = [m(x) for m in net]
        if net.training:
            return sum(lovasz(o, y) + dice(o, y) for o in outs)
        return [o.softmax(1).argmax(1) for o in outs]
    args = ((x, y), {})
    return step(run, eval_runs=args, train_runs=args, net=net)


def legacy_epoch():
    """The legacy epoch loop with its meters over a two-batch loader (train: TrainEpoch with an
    optimizer; eval: ValidEpoch), handed the harness's accelerator stand-in as its `device`."""
    import segmentation_models_pytorch as smp
    from segmentation_models_pytorch.utils import losses as llosses
    from segmentation_models_pytorch.utils import metrics as lmetrics
    from segmentation_models_pytorch.utils.train import TrainEpoch, ValidEpoch
    model = smp.Linknet("resnet18", encoder_weights=None, classes=1, activation="sigmoid")
    loss = llosses.DiceLoss()
    mets = [lmetrics.IoU(threshold=0.5), lmetrics.Fscore(threshold=0.5)]
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    train_ep = TrainEpoch(model, loss=loss, metrics=mets, optimizer=opt, device=DEVICE, verbose=False)
    valid_ep = ValidEpoch(model, loss=loss, metrics=mets, device=DEVICE, verbose=False)
    loader = [(_images(seed=651 + i), _binary(seed=653 + i).clamp_min(0)) for i in range(2)]

    def run(loader):
        return (train_ep if model.training else valid_ep).run(loader)
    args = ((loader,), {})
    return step(run, eval_runs=args, train_runs=args, model=model)


MODELS = {
    "smp_unet_multiclass": unet_multiclass,
    "smp_fpn_binary": fpn_binary,
    "smp_multilabel": multilabel,
    "smp_more_architectures": more_architectures,
    "smp_transformers": transformers,
    "smp_legacy_epoch": legacy_epoch,
}
