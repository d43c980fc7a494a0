"""MONAI: segmentation networks (UNet, SegResNet, DynUNet with deep supervision, SwinUNETR,
AttentionUnet, BasicUNet) with the MONAI losses, sliding-window inference and post transforms
(AsDiscrete, FillHoles) and metrics, and the
RetinaNet detector of monai.apps.detection (anchors, ATSS matching, hard-negative sampling,
box selection with NMS). 2D, 32-64 pixel inputs, random weights."""
from __future__ import annotations

import torch

from . import gen, step


def _seg_batch(b=2, c=1, size=32, classes=3, seed=61):
    g = gen(seed)
    x = torch.rand(b, c, size, size, generator=g)
    y = torch.randint(0, classes, (b, 1, size, size), generator=g)
    return x, y


def seg(net_fn, loss_names, size=32, classes=3):
    def build():
        import monai.losses as L
        net = net_fn()
        x, y = _seg_batch(size=size, classes=classes)
        losses = []
        for name in loss_names:
            cls = getattr(L, name)
            kw = {"to_onehot_y": True, "softmax": True} if name not in ("FocalLoss",) else {"to_onehot_y": True}
            if name == "GeneralizedWassersteinDiceLoss":
                kw = {"dist_matrix": torch.ones(classes, classes) - torch.eye(classes)}
            losses.append(cls(**kw))

        def run(x, y):
            out = net(x)
            if out.dim() == x.dim() + 1:           # DynUNet deep supervision: (B, heads, C, H, W)
                out = out[:, 0]
            if isinstance(out, (list, tuple)):
                out = out[0]
            target = y[:, 0] if losses and type(losses[0]).__name__ == "GeneralizedWassersteinDiceLoss" else y
            return sum(fn(out, target) for fn in losses)
        return step(run, eval_runs=((x, y), {}), train_runs=((x, y), {}), net=net)
    return build


def _unet():
    from monai.networks.nets import UNet
    return UNet(spatial_dims=2, in_channels=1, out_channels=3, channels=(8, 16, 32), strides=(2, 2), num_res_units=1)


def _segresnet():
    from monai.networks.nets import SegResNet
    return SegResNet(spatial_dims=2, init_filters=8, in_channels=1, out_channels=3, blocks_down=(1, 1), blocks_up=(1,))


def _dynunet():
    from monai.networks.nets import DynUNet
    return DynUNet(spatial_dims=2, in_channels=1, out_channels=3, kernel_size=[3, 3, 3], strides=[1, 2, 2],
                   upsample_kernel_size=[2, 2], filters=[8, 16, 32], deep_supervision=True, deep_supr_num=1)


def _swin():
    from monai.networks.nets import SwinUNETR
    return SwinUNETR(in_channels=1, out_channels=3, feature_size=12, depths=(1, 1, 1, 1), num_heads=(1, 1, 1, 1),
                     spatial_dims=2, window_size=4)


def _attention():
    from monai.networks.nets import AttentionUnet
    return AttentionUnet(spatial_dims=2, in_channels=1, out_channels=3, channels=(8, 16, 32), strides=(2, 2))


def _basic():
    from monai.networks.nets import BasicUNet
    return BasicUNet(spatial_dims=2, in_channels=1, out_channels=3, features=(8, 8, 16, 16, 32, 8))


def inference_post():
    """Sliding-window inference, then the usual post-processing and metrics of a validation step."""
    from monai.inferers import SlidingWindowInferer
    from monai.metrics import DiceMetric, MeanIoU, SurfaceDiceMetric
    # KeepLargestConnectedComponent / RemoveSmallObjects need scikit-image (not installed)
    from monai.transforms import AsDiscrete, FillHoles
    net = _unet()
    inferer = SlidingWindowInferer(roi_size=(32, 32), sw_batch_size=2, overlap=0.25, mode="gaussian")
    x, y = _seg_batch(size=48, seed=62)
    argmax, onehot = AsDiscrete(argmax=True, to_onehot=3), AsDiscrete(to_onehot=3)
    holes = FillHoles(applied_labels=[1])
    dice, iou = DiceMetric(include_background=False), MeanIoU(include_background=False)
    surf = SurfaceDiceMetric(class_thresholds=[1.0, 1.0])

    def run(x, y):
        logits = inferer(x, net)
        preds = [argmax(p) for p in logits]
        labels = [onehot(t) for t in y]
        p = torch.stack(preds)
        dice(p, torch.stack(labels))
        iou(p, torch.stack(labels))
        surf(p, torch.stack(labels))
        extra = [holes(p[0])]
        return dice.aggregate(), iou.aggregate(), surf.aggregate(), extra
    return step(run, eval_runs=((x, y), {}), net=net)


def retinanet():
    from monai.apps.detection.networks.retinanet_detector import RetinaNetDetector
    from monai.apps.detection.networks.retinanet_network import RetinaNet, resnet_fpn_feature_extractor
    from monai.apps.detection.utils.anchor_utils import AnchorGeneratorWithAnchorShape
    from monai.networks.nets import resnet10
    backbone = resnet10(spatial_dims=2, n_input_channels=1, conv1_t_stride=2, conv1_t_size=3)
    feat = resnet_fpn_feature_extractor(backbone, 2, returned_layers=[1, 2])
    anchors = AnchorGeneratorWithAnchorShape(feature_map_scales=(1, 2, 4), base_anchor_shapes=((8, 8), (16, 12)))
    net = RetinaNet(spatial_dims=2, num_classes=3, num_anchors=2, feature_extractor=feat, size_divisible=16)
    det = RetinaNetDetector(net, anchors, debug=False)
    det.set_atss_matcher(num_candidates=4, center_in_gt=False)
    det.set_hard_negative_sampler(batch_size_per_image=32, positive_fraction=0.3, pool_size=4, min_neg=4)
    det.set_target_keys(box_key="boxes", label_key="labels")
    det.set_box_selector_parameters(score_thresh=0.02, topk_candidates_per_level=50, nms_thresh=0.22,
                                    detections_per_img=10)
    g = gen(63)
    images = [torch.rand(1, 64, 64, generator=g), torch.rand(1, 48, 64, generator=g)]
    targets = [{"boxes": torch.tensor([[4.0, 6.0, 30.0, 28.0], [20.0, 20.0, 50.0, 40.0]]), "labels": torch.tensor([0, 2])},
               {"boxes": torch.tensor([[10.0, 8.0, 40.0, 30.0]]), "labels": torch.tensor([1])}]
    return det, [((images,), {})], [((images, targets), {})]


MODELS = {
    "monai_unet_dice": seg(_unet, ["DiceCELoss", "DiceFocalLoss", "TverskyLoss"]),
    "monai_segresnet_gdice": seg(_segresnet, ["GeneralizedDiceLoss", "FocalLoss"]),
    "monai_dynunet_ds": seg(_dynunet, ["DiceLoss"]),
    "monai_swinunetr": seg(_swin, ["DiceCELoss"], size=64),
    "monai_attention_unet": seg(_attention, ["GeneralizedWassersteinDiceLoss"]),
    "monai_basic_unet": seg(_basic, ["GeneralizedDiceFocalLoss"]),
    "monai_inference_post": inference_post,
    "monai_retinanet": retinanet,
}
