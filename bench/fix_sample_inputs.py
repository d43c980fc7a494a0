"""Inputs for bench/fix_sample.py: per sampled site, how to call its enclosing function.

Each case builds (callable, args, kwargs) from a module (the original or the rewritten one),
so a method runs on an instance of that module's own class. Weights come from the seed the
runner sets before each build. Where a mask is involved there are cases with an empty input,
an all-false mask, and inf/nan in the slots the mask drops. Only inputs are written here: the
comparison and the verdict are computed by fix_sample.py.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch


@dataclass
class Case:
    label: str
    build: Callable
    seed: int = 0
    grad: bool = False


# -- torchvision ------------------------------------------------------------------------------
def _ssd(mod, n_anchors=24, foreground=True, nan_slot=False, classes=4):
    from torchvision.models.detection.anchor_utils import DefaultBoxGenerator
    backbone = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, stride=16, padding=1))
    model = mod.SSD(backbone, DefaultBoxGenerator([[2]]), (64, 64), classes)
    targets = [{"boxes": torch.tensor([[0.0, 0.0, 10.0, 10.0], [5.0, 5.0, 30.0, 40.0]]),
                "labels": torch.tensor([1, 3])} for _ in range(2)]
    anchors = [torch.rand(n_anchors, 4) * 32 + torch.tensor([0.0, 0.0, 32.0, 32.0]) for _ in range(2)]
    if foreground:
        matched = [torch.randint(-2, 2, (n_anchors,)) for _ in range(2)]
    else:
        matched = [torch.full((n_anchors,), -1) for _ in range(2)]
    logits = torch.randn(2, n_anchors, classes)
    if nan_slot and n_anchors:
        # A slot neither foreground nor a sampled negative: the last anchor of image 0 is
        # background with the highest-ranked... any slot left out of both masks.
        matched[0][-1] = -1
        logits[0, -1] = float("nan")
    head = {"bbox_regression": torch.randn(2, n_anchors, 4), "cls_logits": logits}
    return model.compute_loss, (targets, head, anchors, matched), {}


def _nms(mod, n=30, classes=3, kind="random"):
    boxes = torch.rand(n, 4) * 50
    boxes[:, 2:] += boxes[:, :2] + 1
    scores = torch.rand(n)
    idxs = torch.randint(0, classes, (n,))
    if kind == "one class":
        idxs = torch.zeros(n, dtype=torch.long)
    return mod._batched_nms_vanilla, (boxes, scores, idxs, 0.5), {}


# -- transformers: losses ---------------------------------------------------------------------
def _dfine(mod, per_image=(2, 1), nan_unmatched=False, all_matched=False):
    from transformers import DFineConfig
    config = DFineConfig(num_labels=3)
    loss = mod.DFineLoss(config)
    bins, queries, batch = config.max_num_bins + 1, 4, 2
    if all_matched:
        per_image = (queries, queries)
    indices = [(torch.randperm(queries)[:k], torch.arange(k)) for k in per_image]
    targets = [{"boxes": torch.rand(k, 4) * 0.5 + 0.25, "class_labels": torch.randint(0, 3, (k,))}
               for k in per_image]
    pred = torch.randn(batch, queries, 4 * bins)
    if nan_unmatched:
        matched = {(b, int(q)) for b, (src, _) in enumerate(indices) for q in src}
        for b in range(batch):
            for q in range(queries):
                if (b, q) not in matched:
                    pred[b, q, 0] = float("nan")
    outputs = {"pred_corners": pred, "ref_points": torch.rand(batch, queries, 4),
               "pred_boxes": torch.rand(batch, queries, 4) * 0.5 + 0.25,
               "teacher_corners": torch.randn(batch, queries, 4 * bins),
               "teacher_logits": torch.randn(batch, queries, 3)}
    return loss.loss_local, (outputs, targets, indices, max(1, sum(per_image))), {}


def _fastspeech(mod, batch=2, frames=6, tokens=4, mels=3, kind="random"):
    from transformers import FastSpeech2ConformerConfig
    loss = mod.FastSpeech2ConformerLoss(
        FastSpeech2ConformerConfig(use_masking=False, use_weighted_masking=True))
    spec_mask = torch.rand(batch, frames, 1) > 0.3
    dur_mask = torch.rand(batch, tokens) > 0.3
    if kind == "all-false":
        spec_mask[:] = False
        dur_mask[:] = False
    args = [torch.randn(batch, frames, mels), torch.randn(batch, frames, mels),
            torch.randn(batch, tokens), torch.randn(batch, tokens, 1), torch.randn(batch, tokens, 1),
            torch.randn(batch, frames, mels), torch.randint(0, 5, (batch, tokens)),
            torch.randn(batch, tokens, 1), torch.randn(batch, tokens, 1), dur_mask, spec_mask]
    if kind == "inf/nan in masked slots":
        spec_mask[0, 0] = False
        dur_mask[0, 0] = False
        args[0][0, 0, 0] = float("inf")
        args[2][0, 0] = float("nan")
        args[3][0, 0, 0] = float("inf")
        args[4][0, 0, 0] = float("nan")
    return loss, tuple(args), {}


def _speecht5(mod, batch=2, heads=2, out_len=5, in_len=4, kind="random"):
    from transformers import SpeechT5Config
    loss = mod.SpeechT5GuidedMultiheadAttentionLoss(SpeechT5Config())
    attn = torch.rand(batch, heads, out_len, in_len)
    in_mask = torch.rand(batch, in_len) > 0.3
    out_mask = torch.rand(batch, out_len) > 0.3
    in_mask[:, 0] = out_mask[:, 0] = True
    if kind == "all-false":
        in_mask[:] = False
    if kind == "inf/nan in masked slots":
        in_mask[0, -1] = False
        attn[0, :, :, -1] = float("inf")
        attn[0, 0, 0, -1] = float("nan")
    return loss, (attn, in_mask, out_mask), {}


# -- transformers: data-dependent helpers -----------------------------------------------------
def _segmap(mod, shape=(6, 7), kind="random", reduce=False):
    fn = mod.convert_segmentation_map_to_binary_masks_fast
    seg = torch.randint(0, 4, shape)
    kwargs = {}
    if kind == "instances":
        kwargs["instance_id_to_semantic_id"] = {i: 10 + i for i in range(5)}
    if reduce:
        kwargs["ignore_index"] = 255
        if "do_reduce_labels" in fn.__code__.co_varnames:
            kwargs["do_reduce_labels"] = True
    return fn, (seg,), kwargs


def _label_maps(mod, batch=2, seq=9, kind="random"):
    ids = torch.tensor([[101, 3869, 1012, 11420, 2, 1012, 102, 0, 0],
                        [101, 7, 8, 1012, 102, 0, 0, 0, 0]])[:batch, :seq]
    if kind == "no labels":
        ids = torch.full((batch, seq), 1012)
    logits = torch.randn(batch, 3, 12)
    return mod.build_label_maps, (logits, ids), {}


def _vilt(mod, kind="random"):
    from transformers import ViltConfig
    config = ViltConfig(hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, image_size=64, patch_size=16, max_image_length=-1)
    emb = mod.ViltEmbeddings(config)
    pixels = torch.randn(2, 3, 64, 64)
    mask = torch.ones(2, 64, 64, dtype=torch.long)
    if kind == "padded":
        mask[0, 40:] = 0
        mask[1, :, 20:] = 0
    return emb.visual_embed, (pixels, mask), {"max_image_length": 10}


def _vits(mod, shape=(2, 3, 5), bins=4, kind="random"):
    inputs = torch.randn(*shape) * 4
    if kind == "all inside":
        inputs = inputs.clamp(-4.9, 4.9)
    if kind == "inf/nan":
        inputs.view(-1)[0] = float("inf")
        inputs.view(-1)[1] = float("-inf")
        inputs.view(-1)[2] = float("nan")
    w, h, d = (torch.randn(*shape, bins), torch.randn(*shape, bins), torch.randn(*shape, bins - 1))
    return mod._unconstrained_rational_quadratic_spline, (inputs, w, h, d), {}


def _windows(mod, grid=((1, 8, 8), (2, 4, 12))):
    return mod.get_vision_window_index, (torch.tensor(grid), 2, 16, 4), {}


_ESMFOLD = {}


def _esmfold(mod, kind="two chains"):
    """EsmFold2Model from a small config (one trunk layer, a one-layer ESMC). It is large
    even so: built once per module, with the same seed, so both sides share weights."""
    if id(mod) not in _ESMFOLD:
        from transformers import EsmFold2Config
        config = EsmFold2Config(
            folding_trunk_num_hidden_layers=1, parcae_num_coda_layers=1, num_loops=1,
            esmc_config={"model_type": "esmc", "hidden_size": 32, "num_hidden_layers": 1,
                         "num_attention_heads": 2, "intermediate_size": 64})
        state = torch.random.get_rng_state()
        torch.manual_seed(0)
        _ESMFOLD[id(mod)] = (mod, mod.EsmFold2Model(config).eval())
        torch.random.set_rng_state(state)
    model = _ESMFOLD[id(mod)][1]
    ids = torch.randint(4, 20, (2, 6))
    asym = torch.tensor([[0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1]])
    res = torch.tensor([[0, 1, 1, 0, 1, 2], [0, 1, 0, 1, 2, 2]])   # repeated keys collapse
    mol = torch.zeros(2, 6, dtype=torch.long)
    mask = torch.ones(2, 6, dtype=torch.bool)
    if kind == "padded with a ligand":
        mask[1, 4:] = False
        mol[0, 5] = 1
    if kind == "one chain":
        asym = torch.zeros(2, 6, dtype=torch.long)
    return model._compute_lm_hidden_states, (ids, asym, res, mol, mask), {}


def _cases(builder, *variants, grad=False):
    return [Case(label, (lambda m, kw=kw: builder(m, **kw)), seed=i, grad=grad)
            for i, (label, kw) in enumerate(variants)]


_SEGMAP = _cases(_segmap, ("random", {}), ("empty", {"shape": (0, 5)}),
                 ("instances", {"kind": "instances"}), ("reduced labels", {"reduce": True}))
_LABELS = _cases(_label_maps, ("random", {}), ("no labels", {"kind": "no labels"}),
                 ("empty batch", {"batch": 0}))
_SSD = _cases(_ssd, ("random", {}), ("no foreground", {"foreground": False}),
              ("nan logit in a dropped slot", {"nan_slot": True}), ("no anchors", {"n_anchors": 0}),
              grad=True)
_DFINE = _cases(_dfine, ("random", {}), ("nothing matched (all-false mask)", {"per_image": (0, 0)}),
                ("all matched (~mask all-false)", {"all_matched": True}),
                ("nan in unmatched slots", {"nan_unmatched": True}), grad=True)
_FASTSPEECH = _cases(_fastspeech, ("random", {}), ("all-false masks", {"kind": "all-false"}),
                     ("inf/nan in masked slots", {"kind": "inf/nan in masked slots"}),
                     ("empty batch", {"batch": 0}), grad=True)
_ESM = _cases(_esmfold, ("two chains", {}), ("padded with a ligand", {"kind": "padded with a ligand"}),
               ("one chain", {"kind": "one chain"}))

# Keyed by the site's file and its source line (stripped), not its number: a new release
# of transformers moves lines, and inputs keyed by number silently stop matching.
CASES = {
    ("torchvision/models/detection/ssd.py",
     '"classification": (cls_loss[foreground_idxs].sum() + cls_loss[background_idxs].sum()) / N,'): _SSD,
    ("torchvision/ops/boxes.py",
     'for class_id in torch.unique(idxs):'):
        _cases(_nms, ("random", {}), ("empty", {"n": 0}), ("one class", {"kind": "one class"})),
    ("torchvision/transforms/_functional_tensor.py",
     'img[mask] = fill_img[mask]'):
        "not written (not in the sample)",
    ("transformers/loss/loss_d_fine.py",
     'loss_match_local1 = loss_match_local[mask].mean() if mask.any() else 0'): _DFINE,
    ("transformers/loss/loss_d_fine.py",
     'loss_match_local2 = loss_match_local[~mask].mean() if (~mask).any() else 0'): _DFINE,
    ("transformers/models/eomt/image_processing_eomt.py",
     'all_labels = torch.unique(segmentation_map)'): _SEGMAP,
    ("transformers/models/mask2former/image_processing_mask2former.py",
     'all_labels = torch.unique(segmentation_map)'): _SEGMAP,
    ("transformers/models/maskformer/image_processing_maskformer.py",
     'all_labels = torch.unique(segmentation_map)'): _SEGMAP,
    ("transformers/models/esmfold2/modeling_esmfold2.py",
     'unique_keys, inverse = torch.unique(keys, dim=0, return_inverse=True)'): _ESM,
    ("transformers/models/esmfold2/modular_esmfold2.py",
     'unique_keys, inverse = torch.unique(keys, dim=0, return_inverse=True)'): _ESM,
    ("transformers/models/fastspeech2_conformer/modeling_fastspeech2_conformer.py",
     'l1_loss = l1_loss.mul(out_weights).masked_select(spectrogram_mask).sum()'): _FASTSPEECH,
    ("transformers/models/fastspeech2_conformer/modeling_fastspeech2_conformer.py",
     'duration_loss = duration_loss.mul(duration_weights).masked_select(duration_mask).sum()'): _FASTSPEECH,
    ("transformers/models/fastspeech2_conformer/modeling_fastspeech2_conformer.py",
     'pitch_loss = pitch_loss.mul(pitch_weights).masked_select(pitch_and_energy_masks).sum()'): _FASTSPEECH,
    ("transformers/models/fastspeech2_conformer/modeling_fastspeech2_conformer.py",
     'energy_loss = energy_loss.mul(pitch_weights).masked_select(pitch_and_energy_masks).sum()'): _FASTSPEECH,
    ("transformers/models/grounding_dino/modeling_grounding_dino.py",
     'unique_labels = torch.unique(label_group)[1:, None]'): _LABELS,
    ("transformers/models/mm_grounding_dino/modeling_mm_grounding_dino.py",
     'unique_labels = torch.unique(label_group)[1:, None]'): _LABELS,
    ("transformers/models/speecht5/modeling_speecht5.py",
     'loss = torch.mean(losses.masked_select(masks))'):
        _cases(_speecht5, ("random", {}), ("all-false mask", {"kind": "all-false"}),
               ("inf/nan in masked slots", {"kind": "inf/nan in masked slots"}),
               ("empty batch", {"batch": 0}), grad=True),
    ("transformers/models/vilt/modeling_vilt.py",
     'unique_rows = valid_idx[:, 0].unique()'):
        _cases(_vilt, ("full images", {}), ("padded images", {"kind": "padded"})),
    ("transformers/models/vits/modeling_vits.py",
     'outputs[outside_interval_mask] = inputs[outside_interval_mask]'):
        _cases(_vits, ("random", {}), ("all inside (all-false mask)", {"kind": "all inside"}),
               ("inf/nan inputs", {"kind": "inf/nan"}), ("empty", {"shape": (0, 3, 5)}), grad=True),
    ("transformers/vision_utils.py",
     'cu_window_seqlens = torch.unique_consecutive(cu_window_seqlens)'):
        _cases(_windows, ("two grids", {}), ("one grid", {"grid": ((1, 4, 4),)})),
}
