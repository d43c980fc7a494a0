"""open_clip (vision-language): CLIP, CustomTextCLIP (SigLIP-style) and CoCa built from configs
shipped in `open_clip/model_configs` (read with `get_model_config`), shrunk to 32-px images, two
layers and width 32-64, random weights (`pretrained=None` equivalent: the classes are constructed
directly, nothing is downloaded). Train steps: forward with patch dropout, `ClipLoss` (with the
label cache), `SigLipLoss`, `CoCaLoss` (contrastive + captioning), `DistillClipLoss` with a random
teacher. Eval steps: zero-shot classification as open_clip's eval runs it
(`build_zero_shot_classifier` with the shipped BPE `SimpleTokenizer`, the ImageNet templates, then
top-k accuracy), and CoCa captioning with `generate` (top-k and top-p sampling; its beam search needs
`BeamSearchScorer`, which transformers 5 no longer has).
"""
from __future__ import annotations

import copy

import torch

from . import DEVICE, gen, step

IMG = 32


def _shrink(cfg: dict) -> dict:
    """A shipped config at toy size: same keys and code paths, tiny widths."""
    cfg = copy.deepcopy(cfg)
    cfg["embed_dim"] = 32
    v = cfg["vision_cfg"]
    v.update(image_size=IMG, width=64 if isinstance(v.get("layers"), int) else 16)
    if isinstance(v.get("layers"), int):
        v.update(layers=2, patch_size=8, head_width=32)
    else:                                       # ModifiedResNet: blocks per stage
        v.update(layers=[1, 1, 1, 1])
    for key in ("text_cfg", "multimodal_cfg"):
        if key in cfg:
            cfg[key].update(width=32, heads=2, layers=2)
            cfg[key].pop("hf_tokenizer_name", None)
    if "attn_pooler_heads" in v:
        v["attn_pooler_heads"] = 2
    if "multimodal_cfg" in cfg:
        cfg["multimodal_cfg"]["attn_pooler_heads"] = 2
    return cfg


def _build(name, **over):
    from open_clip import CLIP, CoCa, CustomTextCLIP, get_model_config
    cfg = _shrink(get_model_config(name))
    for k, val in over.items():
        cfg[k].update(val) if isinstance(val, dict) else cfg.__setitem__(k, val)
    custom = cfg.pop("custom_text", False)
    if "multimodal_cfg" in cfg:
        return CoCa(**cfg)
    return (CustomTextCLIP if custom else CLIP)(**cfg, output_dict=True)


def _batch(b=4, ctx=77, vocab=49408, seed=501):
    g = gen(seed)
    images = torch.randn(b, 3, IMG, IMG, generator=g)
    text = torch.zeros(b, ctx, dtype=torch.long)
    lens = [5, 9, 3, 7][:b]
    for i, n in enumerate(lens):       # SOT, random BPE ids, EOT, zero padding (as `tokenize` pads)
        text[i, 0] = vocab - 2
        text[i, 1:n + 1] = torch.randint(1, vocab - 2, (n,), generator=g)
        text[i, n + 1] = vocab - 1
    return images, text


CLASSES = ["cat", "dog", "ship", "truck", "frog", "horse"]


def _zero_shot(model, images, labels):
    """open_clip's zero-shot eval (training/zero_shot.py does the same with ImageNet)."""
    from open_clip import SIMPLE_IMAGENET_TEMPLATES, build_zero_shot_classifier, get_tokenizer
    tok = get_tokenizer("ViT-B-32")
    clf = build_zero_shot_classifier(model, tok, CLASSES, SIMPLE_IMAGENET_TEMPLATES[:3], num_classes_per_batch=4,
                                     device=DEVICE)
    feats = model.encode_image(images, normalize=True)
    logits = 100.0 * feats @ clf
    pred = logits.topk(3, 1, True, True)[1].t()
    correct = pred.eq(labels.view(1, -1).expand_as(pred))
    return [correct[:k].reshape(-1).float().sum().item() for k in (1, 3)]


def clip_contrastive(name, loss="clip", **over):
    def build():
        from open_clip import ClipLoss
        from open_clip.loss import SigLipLoss
        model = _build(name, **over)
        images, text = _batch(ctx=model.context_length, vocab=model.vocab_size)
        labels = torch.tensor([0, 1, 2, 3])
        crit = ClipLoss(cache_labels=True) if loss == "clip" else SigLipLoss()

        def run(images, text, labels):
            if model.training:
                out = model(images, text)
                args = [out["image_features"], out["text_features"], out["logit_scale"]]
                if loss != "clip":
                    args.append(out["logit_bias"])
                return crit(*args) + crit(*args)        # twice: the second hits the label cache
            if loss != "clip":   # SigLIP's tokenizer comes from the hub: score the batch's own captions
                return model.get_logits(images, text)
            return _zero_shot(model, images, labels)
        a = ((images, text, labels), {})
        return step(run, eval_runs=a, train_runs=a, model=model, crit=crit)
    return build


def distill():
    def build():
        from open_clip import DistillClipLoss
        student = _build("RN50")
        teacher = _build("ViT-B-32").eval()
        images, text = _batch(seed=502)
        crit = DistillClipLoss()

        def run(images, text):
            out = student(images, text)
            with torch.no_grad():
                t = teacher(images, text)
            return crit(out["image_features"], out["text_features"], out["logit_scale"], t["image_features"],
                        t["text_features"], t["logit_scale"], output_dict=False)[0]
        a = ((images, text), {})
        return step(run, eval_runs=None, train_runs=a, student=student, teacher=teacher)
    return build


def _enable_generate():
    """open_clip imports `BeamSearchScorer` with the generation helpers; transformers 5 removed it,
    so `coca_model` marks generation unavailable although every helper the sampling paths use
    still exists. Those helpers are bound here (beam search stays unavailable, it is not run)."""
    import open_clip.coca_model as cm
    import transformers as tr
    for name in ("LogitsProcessorList", "TopPLogitsWarper", "TopKLogitsWarper", "RepetitionPenaltyLogitsProcessor",
                 "MinLengthLogitsProcessor", "MaxLengthCriteria", "StopStringCriteria", "EosTokenCriteria",
                 "StoppingCriteriaList"):
        setattr(cm, name, getattr(tr, name))
    cm.GENERATION_TYPES.update(top_k=tr.TopKLogitsWarper, top_p=tr.TopPLogitsWarper)
    cm._has_transformers = True


def coca():
    def build():
        from open_clip import CoCaLoss
        _enable_generate()
        model = _build("coca_ViT-B-32")
        images, text = _batch(ctx=76, seed=503)
        crit = CoCaLoss(caption_loss_weight=2.0, clip_loss_weight=1.0, pad_id=0)

        def run(images, text):
            if model.training:
                out = model(images, text)
                return sum(crit(**out))
            topk = model.generate(images[:2], seq_len=8, min_seq_len=2, generation_type="top_k", top_k=5)
            topp = model.generate(images[:2], seq_len=8, min_seq_len=2, generation_type="top_p", top_p=0.5,
                                  fixed_output_length=True)
            return topk, topp
        a = ((images, text), {})
        return step(run, eval_runs=a, train_runs=a, model=model, crit=crit)
    return build


MODELS = {
    "openclip_vit_clip": clip_contrastive("ViT-B-32", vision_cfg=dict(patch_dropout=0.5)),
    "openclip_rn_clip": clip_contrastive("RN50"),
    "openclip_siglip": clip_contrastive("ViT-B-16-SigLIP", loss="siglip",
                                        vision_cfg=dict(timm_model_name=None, timm_pool=None, timm_proj=None,
                                                        layers=2, width=64, patch_size=8, head_width=32)),
    "openclip_distill": distill(),
    "openclip_coca": coca(),
}
