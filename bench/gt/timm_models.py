"""timm (PyTorch Image Models): vision backbones created with `timm.create_model(name,
pretrained=False, **tiny)` from the architectures registered in the package (random weights,
nothing downloaded), run in timm's own training task (`ClassificationTask`: forward + criterion)
and validation evaluator (`ClassificationEvaluator.update` / `compute`). Families: ViT with patch
dropout (token dropping) and stochastic depth, EVA-02 (rope + patch dropout), Swin, ConvNeXt,
EfficientNet and its CondConv mixture-of-experts variant, ResNet-T with DropBlock, a
dynamic-image-size ViT with register tokens, the Gemma-4 vision tower (2-D rope, pooling), NaFlexViT on variable-size
pre-patchified inputs (patch coordinates and a validity mask, as timm's NaFlex collator yields
them), Hiera with MAE token masking; Mixup/CutMix applied on the batch tensor inside the train
step (`timm.data.Mixup.__call__`); every classification loss timm ships; logit distillation
(`LogitDistillationTask`); multi-label task and evaluator (mAP, F1). 32-56 px inputs.

Set up outside the step: model creation, the NaFlex patchification (timm does it in the collate
function of its loader, a CPU data-pipeline step), the evaluator's construction.
"""
from __future__ import annotations

import os

import torch

from . import gen, step

os.environ["HF_HUB_OFFLINE"] = "1"      # pretrained=False everywhere; belt and braces
NC = 5


def _create(name, **kw):
    import timm
    return timm.create_model(name, pretrained=False, num_classes=kw.pop("num_classes", NC), **kw)


def _images(b=4, size=32, seed=91):
    g = gen(seed)
    return torch.rand(b, 3, size, size, generator=g), torch.randint(0, NC, (b,), generator=g)


def _task_step(task, model, evaluator, x, y, mix=None):
    """Train: the task (forward + criterion), after Mixup/CutMix on the batch if `mix`; eval: forward,
    then the evaluator's `update` and `compute` (a validation step)."""
    def run(x, y):
        if task.training:
            if mix is not None:
                x, y = mix(x, y)
            return task(x, y)["loss"]
        evaluator.reset()
        evaluator.update(model(x), y)
        return evaluator.compute()
    return step(run, eval_runs=((x, y), {}), train_runs=((x, y), {}), task=task)


def classify(name, size=32, mixup=None, criterion=None, batch=4, **kw):
    """Train: `ClassificationTask(model, criterion)(x, y)`, with Mixup/CutMix applied to the batch
    first when `mixup` is set (what timm's train loop does on device). Eval: forward, then the
    evaluator's `update` and `compute` (validation step)."""
    def build():
        from timm.loss import SoftTargetCrossEntropy
        from timm.task import ClassificationTask
        from timm.task.evaluator import ClassificationEvaluator
        model = _create(name, **kw)
        mix = None
        if mixup:
            from timm.data import Mixup
            mix = Mixup(num_classes=NC, **mixup)
        crit = criterion() if criterion else (SoftTargetCrossEntropy() if mix else None)
        task = ClassificationTask(model, criterion=crit, verbose=False)
        evaluator = ClassificationEvaluator()
        x, y = _images(b=batch, size=size)
        return _task_step(task, model, evaluator, x, y, mix)
    return build


def naflex():
    """NaFlexViT on a batch of two images of different sizes, patchified as timm's NaFlex collator
    does (padded patch sequence, patch_coord, patch_valid); train and eval."""
    def build():
        from timm.models.naflexvit import batch_patchify
        model = _create("naflexvit_base_patch16_gap", embed_dim=32, depth=2, num_heads=2, patch_size=8,
                        pos_embed_grid_size=(4, 4))
        g = gen(92)
        seqs = []
        for h, w in ((32, 48), (40, 24)):
            img = torch.rand(1, 3, h, w, generator=g)
            p, (gh, gw) = batch_patchify(img, (8, 8))
            yy, xx = torch.meshgrid(torch.arange(gh), torch.arange(gw), indexing="ij")
            seqs.append((p[0], torch.stack([yy.flatten(), xx.flatten()], -1)))
        n = max(s[0].shape[0] for s in seqs)
        patches = torch.zeros(2, n, seqs[0][0].shape[-1])
        coord = torch.zeros(2, n, 2, dtype=torch.long)
        valid = torch.zeros(2, n, dtype=torch.bool)
        for i, (p, c) in enumerate(seqs):
            patches[i, :len(p)], coord[i, :len(p)], valid[i, :len(p)] = p, c, True
        batch = {"patches": patches, "patch_coord": coord, "patch_valid": valid}
        y = torch.tensor([1, 3])
        crit = torch.nn.CrossEntropyLoss()

        def run(batch, y):
            out = model(batch)
            return crit(out, y) if model.training else out
        return step(run, eval_runs=((batch, y), {}), train_runs=((batch, y), {}), model=model)
    return build


def hiera_mae():
    """Hiera with MAE-style token masking (`mask_ratio`): `forward_features(x, mask=...)` keeps the
    unmasked units (the mask is made in the builder with timm's own `get_random_mask`)."""
    def build():
        model = _create("hiera_tiny_224", img_size=64, embed_dim=16, num_heads=1, stages=(1, 1, 1, 1))
        x, _ = _images(b=2, size=64)
        mask = model.get_random_mask(x, mask_ratio=0.5)

        def run(x, mask):
            return model.forward_features(x, mask=mask)
        return step(run, eval_runs=((x, mask), {}), train_runs=((x, mask), {}), model=model)
    return build


def losses():
    """Every classification loss timm ships, on random logits (single- and multi-label)."""
    def build():
        from timm.loss import (AsymmetricLossMultiLabel, AsymmetricLossSingleLabel, BinaryCrossEntropy,
                               DistributionBalancedLoss, JsdCrossEntropy, LabelSmoothingCrossEntropy,
                               PolyBinaryCrossEntropy, PolyCrossEntropy, SoftTargetCrossEntropy,
                               TwoWayLoss, ZlprLoss)
        g = gen(93)
        logits = torch.randn(6, NC, generator=g, requires_grad=True)
        y = torch.randint(0, NC, (6,), generator=g)
        multi = (torch.rand(6, NC, generator=g) > 0.6).float()
        soft = torch.softmax(torch.randn(6, NC, generator=g), -1)
        counts = torch.tensor([30., 10., 5., 2., 1.])
        single = [LabelSmoothingCrossEntropy(0.1), AsymmetricLossSingleLabel(), PolyCrossEntropy(),
                  BinaryCrossEntropy(smoothing=0.1, target_threshold=0.2)]
        multi_l = [AsymmetricLossMultiLabel(), BinaryCrossEntropy(), PolyBinaryCrossEntropy(), TwoWayLoss(),
                   ZlprLoss(), DistributionBalancedLoss(class_counts=counts, num_samples=40)]
        jsd = JsdCrossEntropy(num_splits=2, smoothing=0.1)
        soft_ce = SoftTargetCrossEntropy()

        def run(logits, y, multi, soft):
            total = sum(f(logits, y) for f in single) + sum(f(logits, multi) for f in multi_l)
            total = total + soft_ce(logits, soft) + jsd(torch.cat([logits, logits * 0.9]), torch.cat([y, y]))
            return total
        args = ((logits, y, multi, soft), {})
        return step(run, eval_runs=args, train_runs=args)
    return build


def multilabel():
    """MultiLabelClassificationTask (BCE) in train; eval: MultiLabelClassificationEvaluator (mAP, F1)."""
    def build():
        from timm.task import MultiLabelClassificationTask
        from timm.task.evaluator import MultiLabelClassificationEvaluator
        model = _create("convnext_atto", dims=(8, 16, 16, 16), depths=(1, 1, 1, 1))
        task = MultiLabelClassificationTask(model, verbose=False)
        evaluator = MultiLabelClassificationEvaluator()
        x, _ = _images()
        y = (torch.rand(4, NC, generator=gen(94)) > 0.5).float()
        return _task_step(task, model, evaluator, x, y)
    return build


def distill():
    """LogitDistillationTask: a random-weight teacher (a timm model instance, not a download)."""
    def build():
        from timm.task import LogitDistillationTask
        student = _create("vit_tiny_patch16_224", img_size=32, patch_size=8, embed_dim=32, depth=1, num_heads=2)
        teacher = _create("convnext_atto", dims=(8, 16, 16, 16), depths=(1, 1, 1, 1))
        task = LogitDistillationTask(student, teacher, verbose=False)
        x, y = _images()

        def run(x, y):
            return task(x, y)["loss"]
        return step(run, eval_runs=None, train_runs=((x, y), {}), task=task)
    return build


VIT = dict(img_size=32, patch_size=8, embed_dim=32, depth=2, num_heads=2)
MODELS = {
    "timm_vit_patchdrop_mixup": classify("vit_tiny_patch16_224", patch_drop_rate=0.25, drop_path_rate=0.1,
                                         mixup=dict(mixup_alpha=0.8, cutmix_alpha=1.0, label_smoothing=0.1),
                                         **VIT),
    "timm_eva02_patchdrop": classify("eva02_tiny_patch14_224", size=28, img_size=28, patch_size=7, embed_dim=32,
                                     depth=2, num_heads=2, patch_drop_rate=0.25),
    "timm_swin": classify("swin_tiny_patch4_window7_224", size=56, img_size=56, embed_dim=16, depths=(1, 1),
                          num_heads=(1, 2), window_size=7, drop_path_rate=0.1,
                          mixup=dict(mixup_alpha=0.0, cutmix_alpha=1.0, mode="elem")),
    "timm_swinv2_cr": classify("swinv2_cr_tiny_224", size=56, img_size=56, embed_dim=16, depths=(1, 1),
                               num_heads=(1, 2), window_size=7),
    "timm_convnext": classify("convnext_atto", dims=(8, 16, 16, 16), depths=(1, 1, 1, 1), drop_path_rate=0.1,
                              mixup=dict(mixup_alpha=0.8, cutmix_alpha=0.0, mode="pair")),
    "timm_efficientnet": classify("efficientnet_b0", size=16, batch=2, drop_path_rate=0.1),
    "timm_efficientnet_condconv_moe": classify("efficientnet_cc_b0_4e", size=16, batch=2),
    "timm_naflexvit": naflex(),
    "timm_vit_dynamic_size": classify("vit_tiny_patch16_224", size=40, dynamic_img_size=True, reg_tokens=2, **VIT),
    "timm_gemma4_vit": classify("gemma4_vit_167m", size=48, img_size=48, patch_size=8, embed_dim=32, depth=1,
                                num_heads=2, head_dim=16, intermediate_size=64),
    "timm_resnet_dropblock": classify("resnet10t", batch=2, drop_block_rate=0.2, drop_path_rate=0.1),
    "timm_hiera_mae": hiera_mae(),
    "timm_losses": losses(),
    "timm_multilabel": multilabel(),
    "timm_distill": distill(),
}
