"""segment-anything: the Sam model assembled as `build_sam._build_sam` does, but tiny (64-pixel
images, 32-dim prompt space), random weights; Sam.forward with point/box/mask prompts, the
SamPredictor prompt path and SamAutomaticMaskGenerator (grid prompts, NMS, mask post-processing)."""
from __future__ import annotations

from functools import partial

import numpy as np
import torch

from . import gen, step

IMG, PATCH, DIM = 64, 16, 32


def tiny_sam():
    from segment_anything.modeling import (ImageEncoderViT, MaskDecoder, PromptEncoder, Sam,
                                           TwoWayTransformer)
    emb = IMG // PATCH
    sam = Sam(
        image_encoder=ImageEncoderViT(depth=2, embed_dim=32, img_size=IMG, mlp_ratio=2,
                                      norm_layer=partial(torch.nn.LayerNorm, eps=1e-6), num_heads=2,
                                      patch_size=PATCH, qkv_bias=True, use_rel_pos=True,
                                      global_attn_indexes=[1], window_size=2, out_chans=DIM),
        prompt_encoder=PromptEncoder(embed_dim=DIM, image_embedding_size=(emb, emb),
                                     input_image_size=(IMG, IMG), mask_in_chans=4),
        mask_decoder=MaskDecoder(num_multimask_outputs=3,
                                 transformer=TwoWayTransformer(depth=2, embedding_dim=DIM, mlp_dim=64,
                                                               num_heads=2),
                                 transformer_dim=DIM, iou_head_depth=3, iou_head_hidden_dim=32),
        pixel_mean=[123.675, 116.28, 103.53], pixel_std=[58.395, 57.12, 57.375])
    return sam


def _batched_input():
    g = gen(21)
    img = (torch.rand(3, 48, 64, generator=g) * 255)
    return [
        {"image": img, "original_size": (48, 64),
         "point_coords": torch.tensor([[[10.0, 12.0], [30.0, 20.0]]]), "point_labels": torch.tensor([[1, 0]])},
        {"image": img.flip(-1), "original_size": (48, 64), "boxes": torch.tensor([[4.0, 4.0, 40.0, 30.0]]),
         "mask_inputs": torch.randn(1, 1, 4 * IMG // PATCH, 4 * IMG // PATCH, generator=g)},
    ]


def sam_forward():
    sam = tiny_sam()
    batch = _batched_input()
    return sam, [((batch, True), {})], [((batch, False), {})]


def sam_predictor():
    from segment_anything import SamPredictor
    sam = tiny_sam()
    pred = SamPredictor(sam)
    image = (np.random.RandomState(0).rand(48, 64, 3) * 255).astype(np.uint8)

    def run(image):
        pred.set_image(image)
        out = pred.predict(point_coords=np.array([[10, 12], [30, 20]]), point_labels=np.array([1, 0]),
                           box=np.array([4, 4, 40, 30]), multimask_output=True)
        low = torch.as_tensor(out[2][None, :1])
        return out, pred.predict(point_coords=np.array([[20, 20]]), point_labels=np.array([1]),
                                 mask_input=low[0], multimask_output=False)
    return step(run, eval_runs=((image,), {}), sam=sam)


def sam_automatic():
    from segment_anything import SamAutomaticMaskGenerator
    sam = tiny_sam()
    amg = SamAutomaticMaskGenerator(sam, points_per_side=4, points_per_batch=8, pred_iou_thresh=-10.0,
                                    stability_score_thresh=-10.0, crop_n_layers=1, crop_n_points_downscale_factor=2,
                                    min_mask_region_area=0,  # >0 needs cv2
                                    output_mode="uncompressed_rle")
    image = (np.random.RandomState(1).rand(48, 64, 3) * 255).astype(np.uint8)
    return step(amg.generate, eval_runs=((image,), {}), sam=sam)


MODELS = {
    "segment_anything_forward": sam_forward,
    "segment_anything_predictor": sam_predictor,
    "segment_anything_automatic": sam_automatic,
}
