"""Diagnoses of the suite-b misses and false alarms (ultralytics, torch_geometric) at first look,
written by reading the code and checked with `dynlint check --explain` and small fixtures that
reproduce each form. Keys as in misslist.DIAGNOSES: (file prefix, function or code fragment);
a key matches the function's last name, its qualified name, or a fragment of the line.
Cause labels start with their group (cross-file, same-file, form, scope, by design, no fact)."""
from __future__ import annotations

XRET = "cross-file: return kind"
XPARAM = "cross-file: parameter kind from callers"
SAMEFILE = "same-file: parameter kind from callers"
_UL, _PYG = "ultralytics/", "torch_geometric/"

DIAGNOSES_B = {
    # -- torch_geometric -----------------------------------------------------------------
    (_PYG + "index.py", "ptr2index"): (
        XPARAM,
        "`repeat_interleave(..., output_size=output_size)` forwards an Optional parameter; DYN106 is off when "
        "`output_size=` is passed, but the callers (utils/sparse.py, message_passing.py) pass None"),
    (_PYG + "nn/conv/rgcn_conv.py", "masked_edge_index"): (
        SAMEFILE,
        "`edge_index[:, edge_mask]` with `edge_mask: Tensor` a parameter; the caller in the same file passes "
        "`edge_type == i`, a bool mask"),
    (_PYG + "nn/conv/rgcn_conv.py", "segment_count.max()"): (
        XRET,
        "`segment_count = scatter(...)` imported through the `torch_geometric.utils` re-export (annotated "
        "`-> Tensor` in utils/_scatter.py): its kind is unknown here, so `int(segment_count.max())` is missed"),
    (_PYG + "utils/_coalesce.py", "*"): (
        "form: isinstance narrowing",
        "`edge_index` is a Tensor on one branch and a tuple on another; the `if isinstance(edge_index, Tensor):` "
        "around `edge_index[:, mask]` does not narrow it back (reproduced: an unknown base is flagged, a "
        "Tensor|tuple join is not)"),
    (_PYG + "utils/_subgraph.py", "subgraph"): (
        XRET,
        "`node_mask = index_to_mask(...)` (utils/mask.py, builds a bool tensor) on one branch, the parameter "
        "`subset` narrowed by `subset.dtype != torch.bool` on the other; the joined kind is unknown"),
    (_PYG + "utils/_subgraph.py", "k_hop_subgraph"): (
        "form: Tensor.new_empty(dtype=torch.bool)",
        "`edge_mask = row.new_empty(n, dtype=torch.bool)` (filled by `index_select(..., out=)`) is no mask "
        "kind: `torch.zeros(n, dtype=torch.bool)` is, the `Tensor.new_*` constructors with a bool dtype are not"),
    (_PYG + "utils/_to_dense_adj.py", "*"): (
        XRET,
        "`num_nodes = scatter(...)` through the `torch_geometric.utils` re-export: `int(num_nodes.max())` on a "
        "value of unknown kind (`int(batch.max())` two lines up, on a parameter, is flagged)"),
    (_PYG + "utils/_to_dense_batch.py", "*"): (
        XRET,
        "`num_nodes = scatter(...)` through the `torch_geometric.utils` re-export, as in to_dense_adj"),
    (_PYG + "utils/loop.py", "remove_self_loops"): (
        XRET,
        "`edge_index, value = to_edge_index(edge_index)` (utils/sparse.py) on a sparse-input branch: the join "
        "of the Tensor parameter with that return of unknown kind loses the kind, so the mask index is missed"),
    # -- ultralytics ---------------------------------------------------------------------
    (_UL + "models/rtdetr/predict.py", "*"): (
        "scope: cold by name",
        "`RTDETRPredictor.postprocess` is cold by name (`postprocess`), although it is the inference step's "
        "score filtering (`[idx]` with `idx = score > conf`)"),
    (_UL + "models/utils/ops.py", "get_cdn_group"): (
        "by design: host-built tensor",
        "`torch.nonzero(torch.rand(shape) < p)`: the mask is made on the CPU (no device=), and shape rules "
        "skip host-built tensors; on an accelerator it is a host op (still a graph break under torch.compile)"),
    (_UL + "models/yolo/detect/val.py", "*"): (
        "no static fact: dict items from the data loader",
        "`batch['cls'][batch['batch_idx'] == si]`: items of the loader's batch dict have no kind (and the "
        "validator loop that drives the model is a plain class in another file)"),
    (_UL + "models/yolo/segment/predict.py", "*"): (
        XRET,
        "`keep = masks.amax(...) > 0` with `masks = ops.process_mask(...)` (utils/ops.py, a module-attribute "
        "call) or None: the mask's kind is unknown"),
    (_UL + "utils/loss.py", "RotatedBboxLoss.forward"): (
        XPARAM,
        "`target_scores[fg_mask]` with `fg_mask: torch.Tensor` a parameter; the caller (v8OBBLoss.loss through "
        "`self.bbox_loss(...)`) passes the mask returned by RotatedTaskAlignedAssigner in utils/tal.py. In the "
        "caller the same mask is flagged as `likely` (name); the annotation `torch.Tensor` blocks the name "
        "evidence on the parameter"),
    (_UL + "utils/loss.py", "v8DetectionLoss.preprocess"): (
        "form: tensor | int join",
        "`n = counts.max()`, then `n = 1 << (int(n) - 1).bit_length()` on an MPS-only branch: the join of a "
        "0-d tensor and a Python int is unknown, so `torch.zeros(batch_size, n, ...)` is missed (flagged "
        "without the branch)"),
    (_UL + "utils/loss.py", "v8OBBLoss.preprocess"): (
        "form: tensor | int join", "as v8DetectionLoss.preprocess"),
    (_UL + "utils/loss.py", "calculate_segmentation_loss"): (
        "form: two-step unpack of zip items",
        "`for i, single_i in enumerate(zip(fg_mask, ...)):` then `fg_mask_i, ... = single_i`: the items get no "
        "kind (the one-step `for i, (a, b) in enumerate(zip(...))` works); fg_mask itself is the assigner's "
        "mask from utils/tal.py (cross-file)"),
    (_UL + "utils/loss.py", "calculate_rle_loss"): (
        SAMEFILE,
        "`pred_kpt[kpt_mask]` with `kpt_mask: torch.Tensor` a parameter; the caller in the same file computes "
        "`kpt_mask = gt_kpt[..., 2] != 0`"),
    (_UL + "utils/loss.py", "calculate_keypoints_loss"): (
        XPARAM,
        "`target_bboxes[masks]` with `masks: torch.Tensor` a parameter; callers pass fg_mask from "
        "get_assigned_targets_and_loss, i.e. from the assigner in utils/tal.py (`if masks.any():` and "
        "`masks.nonzero()` on the lines above are flagged)"),
    (_UL + "utils/nms.py", "non_max_suppression"): (
        XPARAM,
        "`x[filt]` with `filt = xc[xi]`, `xc = prediction[...].amax(1) > conf_thres`; `prediction` is an "
        "unannotated parameter (model outputs passed by predictors/validators in other files), so the "
        "comparison has no kind"),
    (_UL + "utils/tal.py", "make_anchors"): (
        XPARAM,
        "`new_full(size, stride)` with `stride = strides[i]`; callers pass `self.stride`, a tensor attribute "
        "copied from the Detect head (nn/tasks.py) in another file [host31's reading: the head builds it in host "
        "memory (`torch.zeros(self.nl)`, `torch.tensor([...])` in tasks.py), and the model's `_apply` override "
        "maps it with `fn` (`m.stride = fn(m.stride)`), so `.to(device)` moves it: a device tensor in a GPU run; "
        "needs that fact, the loss's `self.stride = m.stride` with `m = model.model[-1]`, and the three callers' "
        "kinds across files]"),
}

# false alarms: executed flagged lines with no data-dependent op at that line in the runs
FP_B = {
    (_PYG + "utils/_negative_sampling.py", "batched_negative_sampling"): (
        "host-read: harness-built input", "`num_src.tolist()` of `degree(batch)`: the harness builds `batch` "
        "with `torch.zeros(n)` on the host; a training batch vector is on the device (the finding holds there)"),
    (_PYG + "utils/_to_dense_batch.py", "*"): (
        "by design: DYN207", "slice by `max_num_nodes`, a host value whose sync ran on an earlier line"),
    (_UL + "utils/tal.py", "pair_overlaps"): (
        "by design: DYN207", "slice by a host value `m` read earlier"),
    (_PYG + "nn/pool/edge_pool.py", "*"): (
        "intended: real host copy", "`.tolist()` / `.cpu()` of a device tensor before a Python merge loop"),
    (_UL + "models/utils/ops.py", "*"): (
        "intended: real host copy", "`.cpu()` of the cost matrix / denoising indices (scipy matching)"),
    (_PYG + "nn/dense/linear.py", "*"): (
        "right code, not exercised",
        "`not self.is_sorted and (...).any()`: is_sorted was True in the runs (short-circuit); syncs otherwise"),
    (_PYG + "utils/mask.py", "*"): (
        "right code, not exercised", "`int(index.max())` only when `size is None`; callers passed a size"),
    (_PYG + "utils/map.py", "*"): (
        "right code, not exercised",
        "`max_index: int | Tensor`; callers passed an int (it is a tensor when left None)"),
    (_PYG + "nn/aggr/basic.py", "*"): (
        "false alarm: isinstance in a short-circuit",
        "`if not isinstance(t, (int, float)) or t != 1:` -- `t != 1` runs only when t is a number"),
}
