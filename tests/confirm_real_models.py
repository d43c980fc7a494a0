"""Real models from three families the other tests do not use, built from configs with random
weights (nothing is downloaded), each with a data-dependent step in its own code (no tests here).

- kornia: LocalFeatureMatcher(SIFTFeature, DescriptorMatcher("snn")) on two views of a scene;
- monai: RetinaNetDetector (a one-stage 2-D detector) in eval mode, with its box selector;
- segment-anything: SamAutomaticMaskGenerator on a tiny SAM.
"""
from __future__ import annotations

import os
from functools import partial

import torch

SITE = os.path.dirname(os.path.dirname(torch.__file__))


# --- kornia -------------------------------------------------------------------------------------

def kornia_matcher():
    import kornia.feature as KF

    torch.manual_seed(0)
    return KF.LocalFeatureMatcher(KF.SIFTFeature(num_features=16, upright=True),
                                  KF.DescriptorMatcher("snn", 0.95)).eval()


def kornia_batches(steps: int = 2, size: int = 40, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(steps):
        img = torch.rand(1, 1, size, size, generator=gen)
        other = torch.roll(img, shifts=(3, 2), dims=(2, 3)) + 0.05 * torch.rand(1, 1, size, size, generator=gen)
        out.append(({"image0": img, "image1": other},))  # LocalFeatureMatcher takes one dict: model(data)
    return out


# --- monai --------------------------------------------------------------------------------------

def monai_detector():
    from monai.apps.detection.networks.retinanet_detector import RetinaNetDetector
    from monai.apps.detection.networks.retinanet_network import (
        RetinaNet,
        resnet_fpn_feature_extractor,
    )
    from monai.apps.detection.utils.anchor_utils import AnchorGeneratorWithAnchorShape
    from monai.networks.nets.resnet import ResNet

    torch.manual_seed(0)
    backbone = ResNet(block="basic", layers=[1, 1, 1, 1], block_inplanes=[8, 16, 32, 64], spatial_dims=2,
                      n_input_channels=1, conv1_t_stride=2, conv1_t_size=7)
    extractor = resnet_fpn_feature_extractor(backbone, spatial_dims=2, pretrained_backbone=False,
                                             trainable_backbone_layers=None, returned_layers=[1, 2])
    anchors = AnchorGeneratorWithAnchorShape(feature_map_scales=(2, 4, 8), base_anchor_shapes=((8, 8), (16, 12)))
    net = RetinaNet(spatial_dims=2, num_classes=3, num_anchors=2, feature_extractor=extractor, size_divisible=16)
    detector = RetinaNetDetector(net, anchors)
    # Random weights score every anchor near the classification prior (0.01): a threshold
    # there keeps a data-dependent number of candidates, as a trained detector would.
    detector.set_box_selector_parameters(score_thresh=0.0102, topk_candidates_per_level=50, nms_thresh=0.3,
                                         detections_per_img=20)
    return detector.eval()


def monai_batches(steps: int = 3, size: int = 64, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    return [torch.rand(2, 1, size, size, generator=gen) for _ in range(steps)]


# --- segment-anything ---------------------------------------------------------------------------

def tiny_sam(size: int = 64):
    from segment_anything.modeling import (
        ImageEncoderViT,
        MaskDecoder,
        PromptEncoder,
        Sam,
        TwoWayTransformer,
    )

    torch.manual_seed(0)
    embed, patch = 16, 16
    grid = size // patch
    return Sam(
        image_encoder=ImageEncoderViT(img_size=size, patch_size=patch, embed_dim=32, depth=1, num_heads=2,
                                      mlp_ratio=2, out_chans=embed, qkv_bias=True,
                                      norm_layer=partial(torch.nn.LayerNorm, eps=1e-6), use_rel_pos=True,
                                      window_size=0, global_attn_indexes=[0]),
        prompt_encoder=PromptEncoder(embed_dim=embed, image_embedding_size=(grid, grid),
                                     input_image_size=(size, size), mask_in_chans=4),
        mask_decoder=MaskDecoder(num_multimask_outputs=3, transformer_dim=embed, iou_head_depth=2,
                                 iou_head_hidden_dim=16,
                                 transformer=TwoWayTransformer(depth=1, embedding_dim=embed, mlp_dim=32,
                                                               num_heads=2)),
    ).eval()


class AutoMasks(torch.nn.Module):
    """model(image): the areas of the masks SamAutomaticMaskGenerator keeps for an HxWx3 uint8 image."""

    def __init__(self, sam):
        super().__init__()
        from segment_anything.automatic_mask_generator import SamAutomaticMaskGenerator

        self.sam = sam
        self.generator = SamAutomaticMaskGenerator(sam, points_per_side=4, points_per_batch=8,
                                                   pred_iou_thresh=0.0, stability_score_thresh=0.0)

    def forward(self, image):
        masks = self.generator.generate(image.numpy())
        return torch.tensor([m["area"] for m in masks])


def sam_batches(steps: int = 2, size: int = 64, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    return [(torch.rand(size, size, 3, generator=gen) * 255).to(torch.uint8) for _ in range(steps)]
