"""Diagnoses of the suite-c misses and false alarms (timm, torchmetrics, torchaudio) at first look,
written by reading the code and checked with `dynlint check --explain` and small fixtures that
reproduce each form (bench/results/firstlook.md, "Suite c"). Keys as in misslist.DIAGNOSES:
(file prefix, function or code fragment); a key matches the function's last name, its qualified
name, or a fragment of the line. Cause labels start with their group."""
from __future__ import annotations

HOOK = "scope: metric hook cold (only `plot` calls it in its file)"
XRET = "cross-file: return kind"
ONEHOT = "by design: one_hot range check (DYN217, off by default)"
MASKWRITE = "by design: bool-mask write (DYN112, off by default)"
ZERO_D = "form: 0-d tensor / tensor element as an index"
STMT = "line attribution: multi-line statement (a hit at statement level)"
_TM, _TMF, _TA, _TIMM = "torchmetrics/", "torchmetrics/functional/", "torchaudio/", "timm/"
_HOOK_TEXT = ("`{}` overrides a hook that `Metric.forward` (torchmetrics/metric.py) calls through `self.update()` / "
              "`self.compute()`; that call is not followed into subclasses in other files, and in its own file only "
              "`plot` (cold by name) calls it, so `--explain` says cold: only cold code in this file calls it")
_RET_TEXT = ("`preds, target = _check_retrieval_functional_inputs(preds, target)` (utilities/checks.py) replaces the "
             "`Tensor` parameters with a tuple return from another file whose items have no kind; the same test on "
             "the parameter is flagged")

DIAGNOSES_C = {
    # -- timm ------------------------------------------------------------------------------
    (_TIMM + "loss/poly_loss.py", "*"): (
        ONEHOT, "`F.one_hot(target, num_classes)` checks the label range with a host read; DYN217 is on only "
                "for `--target hpu` (on CUDA the check is not a sync)"),
    (_TIMM + "models/gemma4_vit.py", "*"): (
        ONEHOT, "`F.one_hot(clamped_positions, num_classes=...)`: as poly_loss"),
    # -- torchaudio ------------------------------------------------------------------------
    (_TA + "functional/filtering.py", "_measure"): (
        "scope: cold by a `-> float` annotation",
        "`_measure(...) -> float` is cold ('declared to return Python floats: a statistic or metric'), but `vad` "
        "calls it once per frame: `float(torch.sum(...))` is a sync per frame (reached from Vad.forward)"),
    (_TA + "functional/filtering.py", "vad"): (
        "form: tensor as an `or` operand",
        "`has_triggered = has_triggered or (mean_meas[i] >= trigger_level)`: after the first frame has_triggered "
        "is a tensor and `or` tests its truth on the host; `if mean_meas[i] >= ...:` is flagged, the `or` operand "
        "is not (fixture)"),
    (_TA + "models/rnnt_decoder.py", "_search"): (
        "by design: host-built tensor",
        "`[b_hypos[idx] for idx in sorted_idx]`: a list indexed by items of `torch.tensor([...]).topk(...)`, a "
        "tensor built on the host from Python floats (no device): reads of it cost nothing on an accelerator"),
    (_TA + "models/tacotron2.py", "*"): (
        "line attribution: sync inside torch",
        "`self.lstm(x)` on a PackedSequence reads `batch_sizes` on the host inside torch; dynlint flags the cause, "
        "`input_lengths.cpu()` for `pack_padded_sequence`, two lines up (DYN214)"),
    (_TA + "models/wav2vec2/components.py", "_compute_mask_indices"): (
        "by design: host-built tensor",
        "`torch.unique(mask_idc[mask_idc < sz])` with `mask_idc = torch.randperm(...)` / `torch.tensor(list)`: "
        "built on the host (no device), shape rules skip host tensors"),
    (_TA + "models/wav2vec2/components.py", "LogitGenerator.forward"): (
        "cross-file: parameter kind from callers",
        "`proj_x[mask_m]` with `mask_m: Tensor` a parameter of `LogitGenerator.forward`; the caller "
        "HuBERTPretrainModel.forward (model.py) passes `torch.logical_and(~padding_mask, mask)` through "
        "`self.logit_generator(...)`, an attribute injected by the factory. A fixture shows the parameter kind is "
        "not taken from callers even in one file when the call goes through `self.sub(...)` -> `forward`"),
    # -- torchmetrics: hooks -----------------------------------------------------------------
    (_TM + "aggregation.py", "*"): (
        HOOK, _HOOK_TEXT.format("MeanMetric.update -> _cast_and_nan_check_input")),
    (_TM + "classification/ranking.py", "*"): (HOOK, _HOOK_TEXT.format("MultilabelRankingAveragePrecision.compute")),
    (_TM + "detection/iou.py", "*"): (
        "kind: items of a list state",
        "`scores = mat[:, gt_lab == cl]` in `IntersectionOverUnion.compute` (model code now: Metric.compute -> "
        "the override in another file): `mat`, `gt_lab` are items of `zip(self.iou_matrix, "
        "self.groundtruth_labels)`, list states (`add_state(default=[])`) whose items have no kind, so "
        "`gt_lab == cl` is no mask [fixed since kinds29: the class body declares `iou_matrix: List[Tensor]`, "
        "an attribute whose items are then tensors; kept for the first-look report]"),
    (_TM + "retrieval/fall_out.py", "*"): (HOOK, _HOOK_TEXT.format("RetrievalFallOut.compute")),
    # -- torchmetrics: functional forms -------------------------------------------------------
    (_TMF + "classification/precision_recall_curve.py", "*"): (
        ONEHOT, "`one_hot(target, num_classes=num_classes)` in the vectorized PR-curve update"),
    (_TMF + "segmentation/utils.py", "*"): (ONEHOT, "`one_hot(preds|target, num_classes=...)` (index input format)"),
    (_TMF + "classification/eer.py", "*"): (
        ZERO_D, "`fpr[idx]` with `idx = torch.argmin(...)`: a 0-d tensor used as an index reads it on the host; not "
                "flagged in model code either (fixture)"),
    (_TMF + "classification/recall_fixed_precision.py", "*"): (
        ZERO_D, "`zipped_masked[idx]` with `idx = _lexargmax(...)[0]`: `_lexargmax` returns positions "
                "(`torch.where(c)[0]`), but through `idx = z if idx is None else idx[z]` in a loop with "
                "`idx: Optional[Tensor] = None` declared: `idx[z]` is a tensor of no known rank, and a "
                "conditional expression keeps only the flags both branches share, so the positions kind is "
                "lost (without the annotation, or with a helper returning `torch.where(c)[0]` directly, it "
                "is flagged) [fixed since host31: a name that holds `None` (declared `Optional[Tensor]` or "
                "not) or a 1-d tensor before a loop whose body rebinds it only to 1-d tensors when it is one "
                "at the top is 1-d (`paths._carried_vectors`); kept for the first-look report]"),
    (_TMF + "retrieval/ndcg.py", "_tie_average_dcg"): (
        ZERO_D, "`discount_cumsum[groups[0]]`: an element of a tensor used as an index (not flagged in model code "
                "either)"),
    (_TMF + "retrieval/ndcg.py", "all_irrelevant"): (MASKWRITE, "`gain[all_irrelevant] = 0` (CPU index_put syncs)"),
    (_TMF + "regression/explained_variance.py", "*"): (
        MASKWRITE, "`output_scores[nonzero_numerator & ~nonzero_denominator] = 0.0`"),
    (_TMF + "regression/r2.py", "cond_rss"): (MASKWRITE, "`raw_scores[cond_rss & ~cond_tss] = 0.0`"),
    (_TMF + "regression/r2.py", "num_obs"): (
        "form: `int | Tensor` parameter",
        "`if num_obs < 2:` with `num_obs: Union[int, Tensor]` (a tensor from the metric state): a comparison of "
        "an `int | Tensor` parameter is not flagged (fixture, model code too)"),
    (_TMF + "regression/pearson.py", "*"): (
        STMT, "`if (` header of a condition whose `.any()` terms on lines 124-128 are flagged; the sync is recorded "
              "on the header line"),
    (_TMF + "classification/precision_fixed_recall.py", "*"): (
        STMT, "`max(` header; the generator's filter `if r >= min_recall` on the next line is what the fixture flags"),
    (_TMF + "clustering/adjusted_rand_score.py", "*"): (
        XRET, "`(tn, fp), (fn, tp) = calculate_pair_cluster_confusion_matrix(...)` (another file): nested unpack of "
              "a tensor return gives no kind, `if fn == 0 and fp == 0:` missed (fixture)"),
    (_TMF + "retrieval/", "*"): (XRET, _RET_TEXT),
}

FP_C = {
    (_TIMM + "models/gemma4_vit.py", "*"): (
        "right code, not exercised", "`padding_positions is not None and padding_positions.any()`: None in the runs"),
    (_TA + "models/emformer.py", "*"): (
        "by design: DYN207", "slice by `past_left_context_length`, a host value read on an earlier line"),
    (_TA + "models/rnnt_decoder.py", "*"): (
        "intended: real host copy", "`next_token_probs.cpu()` every beam-search step"),
    (_TA + "models/tacotron2.py", "*"): (
        "intended: real host copy", "`input_lengths.cpu()` for pack_padded_sequence (the LSTM's sync two lines down)"),
    (_TMF + "regression/pearson.py", "*"): (STMT, "terms of the multi-line `if (` whose header line holds the site"),
    (_TMF + "detection/_panoptic_quality_common.py", "*"): (
        "right code, not exercised", "`... in stuffs_modified_metric and iou > 0`: short-circuited in the runs "
                                     "(the `iou > 0.5` twin on line 372 syncs)"),
    (_TM + "utilities/compute.py", "*"): (
        "right code, not exercised", "`zero_division == 'warn' and torch.any(denom == 0)`: never 'warn' in the runs"),
}
