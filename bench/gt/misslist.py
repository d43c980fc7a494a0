#!/usr/bin/env python
"""Human-readable miss and false-alarm lists per package from a precision_recall.py report.

    python bench/gt/misslist.py /tmp/pr_new.json > MISSES.md
    python bench/gt/misslist.py REPORT.json --packages ultralytics,torch_geometric   # suite b only
    python bench/gt/misslist.py REPORT.json --packages timm,torchmetrics,torchaudio  # suite c only
    python bench/gt/misslist.py REPORT.json --packages effdet,demucs,torchdiffeq,open_clip  # suite d
    python bench/gt/misslist.py REPORT.json --packages speechbrain                          # suite e
    python bench/gt/misslist.py REPORT.json --packages segmentation_models_pytorch,torchsde  # suite f
    python bench/gt/misslist.py REPORT.json --packages pytorch_metric_learning,gpytorch,linear_operator  # g
    python bench/gt/misslist.py REPORT.json --packages pykeen,pytorch_tabnet                 # suite h
    python bench/gt/misslist.py REPORT.json --packages torchrl,sbi                           # suite i
    python bench/gt/misslist.py REPORT.json --packages botorch,deepxde                       # suite j
    python bench/gt/misslist.py REPORT.json --packages k_diffusion,normflows                 # suite k

Each site: file:line, the source line, the enclosing function with dynlint's role for it, the ops
the run saw, and a one-line diagnosis of why dynlint misses (or wrongly flags) it. Diagnoses come
from DIAGNOSES (written by reading the code; keyed by file suffix and function or line), with a
fallback derived from the role.
"""
from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict

try:   # run as a script (bench/gt on sys.path) or imported as bench's `gt.misslist`
    from misslist_b import DIAGNOSES_B, FP_B
    from misslist_c import DIAGNOSES_C, FP_C
    from misslist_d import DIAGNOSES_D, FP_D
    from misslist_e import DIAGNOSES_E, FP_E
    from misslist_f import DIAGNOSES_F, FP_F
    from misslist_g import DIAGNOSES_G, FP_G
    from misslist_h import DIAGNOSES_H, FP_H
    from misslist_i import DIAGNOSES_I, FP_I
    from misslist_j import DIAGNOSES_J, FP_J
    from misslist_k import DIAGNOSES_K, FP_K
except ImportError:
    from .misslist_b import DIAGNOSES_B, FP_B
    from .misslist_c import DIAGNOSES_C, FP_C
    from .misslist_d import DIAGNOSES_D, FP_D
    from .misslist_e import DIAGNOSES_E, FP_E
    from .misslist_f import DIAGNOSES_F, FP_F
    from .misslist_g import DIAGNOSES_G, FP_G
    from .misslist_h import DIAGNOSES_H, FP_H
    from .misslist_i import DIAGNOSES_I, FP_I
    from .misslist_j import DIAGNOSES_J, FP_J
    from .misslist_k import DIAGNOSES_K, FP_K

SCOPE = "scope: function is `neutral` (not reachable by name from forward/loss in its own file)"
EAGER = "by design: eager-only branch (under a graph guard: never part of a compiled graph)"
ONEHOT = "by design: one_hot range check (DYN217, off by default)"
API = "scope: neutral (public API no code of the package calls); host copies (DYN202/DYN214) are model-code rules"
CONVERT = "kind: return of a type-converting helper"
# (file suffix, function-or-line) -> (cause label, diagnosis)
DIAGNOSES = {
    ("diffusers/schedulers/", "index_for_timestep"): (
        "scope: plain class, not nn.Module",
        "explicit .item() in a scheduler method; schedulers are not nn.Module and the denoising loop calling "
        "`scheduler.step` is no entry point, so the whole scheduler is out of scope"),
    ("diffusers/schedulers/", "alphas_cumprod"): (
        "0-d tensor used as index / in condition",
        "`self.alphas_cumprod[timestep]` / `if prev_t >= 0`: a 0-d tensor (timestep from the loop) used as an "
        "index or condition syncs; no kind for 0-d timestep tensors and the scheduler is out of scope"),
    ("diffusers/schedulers/", "set_timesteps"): (
        "numpy of a tensor",
        "np.array/np.concatenate over a tensor element copies it to the host; no rule for numpy conversion "
        "of tensors; set_timesteps runs in every pipeline call"),
    ("diffusers/schedulers/", "get_lms_coefficient"): (
        "tensor passed to a host library",
        "0-d tensors passed to scipy.integrate.quad (float conversion inside scipy)"),
    ("diffusers/schedulers/", "other"): (
        "0-d tensor used as index / in condition",
        "0-d tensor (timestep/sigma/index) compared or used as index in scheduler code, which is out of "
        "scope (not nn.Module, reached only from the denoising loop)"),
    ("kornia/augmentation/_2d/geometric/base.py", "*"): (
        "mask returned by a method",
        "`to_apply = self._gate(params)`: a bool mask returned by a method (defined in another file) is not "
        "known to be a mask; inverse_* is reached from inverse() via self.x(), not from forward"),
    ("kornia/augmentation/_2d/intensity/color_jiggle.py", "*"): (
        "helper reached only via another file",
        "module-level helper called from apply_transform of a class; condition on factors from the params "
        "dict; not reachable by name"),
    ("kornia/augmentation/base.py", "*"): (
        "mask arrives as parameter",
        "bool(to_apply.any()) on a parameter in a base-class helper (_blend_by_prob) reached via self.x() "
        "from subclasses in other files"),
    ("kornia/augmentation/container/image.py", "*"): (
        "kind: list holding tensor elements (slice-assigned row of a dict item)",
        "`new_batch_shape[-k:] = data['output_size'][0]; torch.Size(new_batch_shape)`: model code (reached from "
        "another file: ImageSequential.forward_parameters -> VideoSequential.forward_parameters -> "
        "_get_new_batch_shape); `data` is a dict parameter whose items have no kind, and a slice assignment adds "
        "no item kind to the list, so `torch.Size(...)` converting tensor elements is missed [host31's reading: "
        "the slice assignment is not the gap (a fixture with the function and its model in one file is flagged, "
        "DYN206); `data = param.data` reads a field of a NamedTuple of another file (params.py), and no field "
        "kind crosses files (`fields.py` is per file); its declaration `Optional[Union[Dict[str, Tensor], "
        "List[ParamItem]]]` would read as a probable tensor (a union naming Tensor), too weak for the list store: "
        "what decides it is a str key on the union's only mapping member; fixed since host31: "
        "`annotations.keyed_item_kind`, fields of another file's classes as `Class.field[str]`]"),
    ("kornia/filters/canny.py", "while ((edges_old - edges)"): (
        EAGER,
        "`while (...).any():` in the `else` of `if is_exporting(): ... elif torch.jit.is_tracing():` "
        "(`eager_only`: the hysteresis loop compiled graphs take through `torch.while_loop`)"),
    ("kornia/filters/gaussian.py", "positive = bool("): (
        EAGER,
        "`bool((host_sigma > 0).all())` under `if not is_compiling():` (`eager_only`); `host_sigma` is the "
        "device `sigma` cast in place when a tensor is passed"),
    ("monai/apps/detection/networks/retinanet_network.py", "torch.isnan("): (
        EAGER, "NaN/Inf check under `if not torch.compiler.is_compiling():` (`eager_only`)"),
    ("kornia/feature/integrated.py", "*"): (
        "mask returned by helper in another file",
        "valid0 = filled0[batch_idx] where filled0 = laf_is_filled(lafs0), a helper in another file "
        "returning a bool mask; the mask is then used as an index"),
    ("kornia/feature/loftr/utils/coarse_matching.py", "*"): (
        "mask from value of unknown kind",
        "`b_ids[mconf != 0]` inside a dict literal; mconf comes from an advanced index of conf_matrix "
        "(from the data dict), so it is not known to be a tensor"),
    ("kornia/geometry/epipolar/fundamental.py", "*"): (
        "mask arrives as parameter",
        "x1[mask[0]] with `mask` a parameter (the same `if` even checks mask.dtype == torch.bool); the "
        "refinement helper is neutral"),
    ("kornia/geometry/homography.py", "*"): (
        "mask arrives as parameter",
        "x1[mask[0]] with `mask` a parameter (the same `if` checks mask.dtype == torch.bool)"),
    ("kornia/geometry/ransac.py", "*"): (
        "mask returned by helper in another file",
        "`oriented = sample_is_valid_for_homography(...)` returns a bool mask from another file"),
    ("kornia/losses/", "*"): (
        ONEHOT,
        "F.one_hot(x, num_classes=C) checks the label range with a host read (DYN217, on for `--target hpu`)"),
    ("monai/apps/detection/utils/box_coder.py", "*"): (
        "helper reached only via another file",
        "`if torch.isnan(t).any()` in a BoxCoder helper; BoxCoder is no nn.Module and is called from "
        "RetinaNetDetector in another file"),
    ("monai/apps/detection/utils/box_selector.py", "*"): (
        "kind: return of a type-converting helper",
        "`boxes_per_level, keep = clip_boxes_to_image(...)` (box_utils.py): `keep` is "
        "`convert_to_dst_type(src=keep_t, dst=boxes)[0]`, a helper returning the type of `dst` (numpy "
        "or tensor), so the summary has no kind for it (the bool mask `keep_t` is known inside)"),
    ("monai/data/box_utils.py", "non_max_suppression"): (
        "helper reached only via another file",
        "pure-python NMS loop (.item(), mask index) in a box utility called from the detector in another file"),
    ("monai/data/box_utils.py", "convert_box_mode"): (
        "kind: return of a method of an object picked at run time",
        "`if (corners[spatial_dims + axis] < corners[axis]).sum() > 0:` (model code, reached from "
        "RetinaNetDetector.forward in another file): `corners = src_boxmode.boxes_to_corners(boxes_t)` with "
        "`src_boxmode = get_boxmode(src_mode)`, a box-mode object picked from a string or class at run time; "
        "its method's return has no kind [fixed since kinds29: `get_boxmode` is declared `-> BoxMode`, so the "
        "call runs `boxes_to_corners` of BoxMode or of a subclass, whose returns are tensors; kept for the "
        "first-look report]"),
    ("monai/data/box_utils.py", "*"): (
        "helper reached only via another file",
        "validity/NaN checks (`if (...).sum() > 0`, `.isnan().any()`) in box utilities called from the "
        "detector in another file"),
    ("monai/data/meta_tensor.py", "*"): (
        "GT attribution (tensor subclass)",
        "MetaTensor.__torch_function__ forwards the op: the real site is the caller (fixed in groundtruth.py "
        "by skipping __torch_function__ frames)"),
    ("monai/metrics/meandice.py", "*"): (
        "helper reached only via another file",
        "`if y_o > 0` on a tensor sum in DiceHelper (a metric helper, no nn.Module) called from DiceMetric"),
    ("monai/data/utils.py", "*"): (
        "helper reached only via another file",
        ".item() in compute_importance_map, called from sliding_window_inference in another file"),
    ("monai/metrics/utils.py", "*"): (
        CONVERT,
        "model code (reached from another file: IterationMetric.__call__ -> ... -> get_edge_surface_distance): "
        "`edges_pred = get_mask_edges(...)[0]` returns `converter(...)` (`convert_to_tensor` or "
        "`convert_to_numpy`, picked at run time; the annotation `tuple[NdarrayTensor, ...]` is a TypeVar no "
        "parameter binds: numpy or tensor), and `lib.any(seg_pred)` calls `lib = torch if isinstance(...) else "
        "np`: no kind, so `bool(edges_pred.any())` / `if not lib.any(...)` are missed"),
    ("monai/transforms/utils.py", "generate_spatial_bounding_box"): (
        CONVERT,
        "`dt = any_np_pt(dt, ax); if not dt.any():` (model code, reached from another file): `any_np_pt` "
        "returns numpy or a tensor as its argument is, so `dt` has no kind"),
    ("monai/transforms/utils.py", "compute_divisible_spatial_size"): (
        "by design: host-built tensor",
        "`int(np.ceil(dim / k_d) * k_d)` over `spatial_shape: Sequence[int]`: the caller in "
        "apps/detection/utils/detector_utils.py passes `list(max_spatial_size_t)`, a list of 0-d tensors; the "
        "annotation says ints [host31's reading: `max_spatial_size_t, _ = torch.max(torch.tensor(image_sizes), "
        "dim=0)` with `image_sizes` the images' `.shape` tuples: built in host memory, no device; a read of it "
        "waits for no device in a GPU run either]"),
    ("segment_anything/automatic_mask_generator.py", "*"): (
        "scope: plain class, not nn.Module",
        "SamAutomaticMaskGenerator is a plain class whose generate() drives the model: not an entry point"),
    ("segment_anything/utils/amg.py", "filter"): (
        "mask arrives as parameter",
        "MaskData.filter(keep): `keep` is a parameter (a bool mask from the caller), wrapped in torch.as_tensor; "
        "line 55 iterates a tensor in a comprehension"),
    ("segment_anything/utils/amg.py", "*"): (
        API,
        "`.detach().cpu()` in `MaskData.to_numpy` / `mask_to_rle_pytorch`, called by "
        "`SamAutomaticMaskGenerator._generate_masks` (a plain class whose `generate` the user calls): neutral, "
        "where host copies are not reported"),
    ("segment_anything/predictor.py", "predict"): (
        API,
        "`masks[0].detach().cpu().numpy()` after `self.predict_torch(...)` ran the held model: `SamPredictor` is "
        "a plain class whose `predict` the user calls (neutral, where host copies are not reported; applying "
        "them to all neutral code was measured and dropped)"),
    ("timm/task/evaluator.py", "update"): (
        API, "`self.outputs.append(output.cpu())` in an evaluator's `update` the user's validation loop calls"),
    ("torchaudio/functional/_alignment.py", "merge_tokens"): (
        API, "`tokens.tolist()` in the public `merge_tokens` (called by the user after `forced_align`)"),
    ("ultralytics/engine/validator.py", "match_predictions"): (
        API, "`iou.cpu().numpy()` before scipy matching, in the validator (a plain class the trainer drives)"),
    ("ultralytics/utils/loss.py", "stride=self.stride.tolist()"): (
        "by design: once per object (a loss built lazily on the first step)",
        "`v8OBBLoss.__init__`: the model's `loss()` builds its criterion on the first call "
        "(`if getattr(self, 'criterion', None) is None: self.criterion = self.init_criterion()`); an "
        "`__init__` runs once per object"),
    ("transformers/", "one_hot("): (
        ONEHOT, "`F.one_hot(index, num_classes=...)` checks the label range with a host read (DYN217)"),
    ("transformers/models/qwen2_vl/", "max(grid_thw[1]"): (
        "kind: row of a tensor taken with `next(iter(t))`",
        "`grid_thw = next(grid_iters[modality_type])` with `grid_iters = {1: iter(image_grid_thw), ...}`: a row "
        "of a tensor through a dict of iterators has no kind, so `max(grid_thw[1], grid_thw[2])` (DYN209) "
        "is missed [fixed since kinds30: `next()` of an iterator over a tensor (`iter(t)`, a local or a dict "
        "literal's values bound to one) gives a row, as a loop over `t` does]"),
    ("whisper/decoding.py", "run"): (
        "cold by name",
        "DecodingTask.run is cold by name (`run` matches the cold-function pattern) although it is the decode loop"),
    ("whisper/decoding.py", "update"): (
        "scope: decode loop not model code",
        "token decoder update (.item(), Categorical with argument validation) in a plain class used by the "
        "decoding loop; decoding loops over a model's outputs are not entry points"),
    ("whisper/decoding.py", "*"): (
        "scope: decode loop not model code",
        "decoding-loop class (DecodingTask / LogitFilter / TokenDecoder), not nn.Module and not an entry point"),
    ("x_transformers/autoregressive_wrapper.py", "pad_at_dim"): (
        "tuple holding tensor elements",
        "`pad` is a tuple holding tensor elements (built by the caller from prompt_lens); `pad == (0, 0)` and "
        "F.pad(..., pad) read them on the host"),
    ("x_transformers/autoregressive_wrapper.py", "align_right"): (
        "scope: decode loop not model code",
        "assert on lens.amax() in a helper called only from generate(), which is not an entry point"),
    ("x_transformers/autoregressive_wrapper.py", "generate"): (
        "scope: decode loop not model code",
        "eos check in the generate() loop, which is not an entry point"),
    ("x_transformers/entropy_based_tokenizer.py", "*"): (
        "kind: item of zip_longest over an unannotated parameter",
        "`for one_seq, one_len, ... in zip_longest(seq, lens, token_lengths): one_seq[:one_len]` (model code: "
        "EntropyBasedTokenizer.forward): `lens = default(lens, (None,))`, a parameter, so `one_len` (a 0-d "
        "tensor in the runs) has no kind and the slice bound is not known to be read from a tensor"),
}
FP_DIAGNOSES = {   # the category's meaning (bench/precision_recall.py), when no note names the line
    "by-design": "a rule whose finding is no dispatched op by design (e.g. DYN207: a slice by a host "
                 "value that was read on an earlier line)",
    "caller": "the data-dependent op ran in a function this line calls (the ground truth pins it there)",
    "host-read": "a host read or copy the ground truth did not record: the tensor was not derived from "
                 "the device in the runs (built on the host), or the read dispatched nothing",
    "unconfirmed": "the construct did not reach a data-dependent op in the runs (a short-circuit, a "
                   "Python number where a tensor may arrive, a branch not taken)",
}


def _lookup(f: dict, table: dict) -> tuple[str, str] | None:
    for (suffix, key), diag in table.items():
        if not f["file"].startswith(suffix):
            continue
        fn = f["function"].rsplit(".", 1)[-1]
        if key in ("*", fn, f["function"]) or (key not in ("other",) and key in f["code"]):
            return diag
    for (suffix, key), diag in table.items():
        if f["file"].startswith(suffix) and key == "other":
            return diag
    return None


def diagnose(f: dict) -> tuple[str, str]:
    found = (_lookup(f, DIAGNOSES) or _lookup(f, DIAGNOSES_B) or _lookup(f, DIAGNOSES_C)
             or _lookup(f, DIAGNOSES_D) or _lookup(f, DIAGNOSES_E)
             or _lookup(f, DIAGNOSES_F) or _lookup(f, DIAGNOSES_G) or _lookup(f, DIAGNOSES_H)
             or _lookup(f, DIAGNOSES_I) or _lookup(f, DIAGNOSES_J) or _lookup(f, DIAGNOSES_K))
    if found:
        return found
    return ("scope" if f["role"] == "neutral" else "unknown", SCOPE if f["role"] == "neutral" else "?")


def diagnose_fp(f: dict) -> tuple[str, str]:
    return (_lookup(f, FP_B) or _lookup(f, FP_C) or _lookup(f, FP_D) or _lookup(f, FP_E)
            or _lookup(f, FP_F) or _lookup(f, FP_G) or _lookup(f, FP_H) or _lookup(f, FP_I)
            or _lookup(f, FP_J) or _lookup(f, FP_K)
            or (f["category"], FP_DIAGNOSES.get(f["category"], "?")))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("report", help="JSON report of bench/precision_recall.py")
    ap.add_argument("--packages", help="comma-separated top-level packages to list (default: all)")
    args = ap.parse_args(argv)
    keep = set(args.packages.split(",")) if args.packages else None
    rep = json.load(open(args.report))
    det = rep["line"]["details"]
    by_pkg = defaultdict(lambda: {"fn": [], "fp": []})
    causes, fp_causes = Counter(), Counter()
    for f in det["false_negatives"]:
        if keep is None or f["file"].split("/", 1)[0] in keep:
            label, text = diagnose(f)
            causes[label] += 1
            by_pkg[f["file"].split("/", 1)[0]]["fn"].append((f, text))
    for f in det["false_positives_executed"]:
        if keep is None or f["file"].split("/", 1)[0] in keep:
            label, text = diagnose_fp(f)
            fp_causes[label] += 1
            by_pkg[f["file"].split("/", 1)[0]]["fp"].append((f, text))
    out = [f"# First-look misses and false alarms (dynlint {rep['dynlint_version']})", "",
           f"Ground truth: {', '.join(rep['gt'])}. Misses = GT sites (a data-dependent op ran there inside the "
           "step) that dynlint does not flag; false alarms = flagged lines that executed without a "
           "data-dependent op. Role = dynlint's scope for the enclosing function. Regenerate with "
           "`python bench/gt/misslist.py REPORT.json` (report from bench/precision_recall.py).", "",
           "## Miss causes by count", ""]
    out += [f"- {n:3d}  {label}" for label, n in causes.most_common()]
    out += ["", "## False-alarm causes by count", ""]
    out += [f"- {n:3d}  {label}" for label, n in fp_causes.most_common()]
    for pkg, d in sorted(by_pkg.items()):
        out += ["", f"## {pkg}", "", f"### misses ({len(d['fn'])})", ""]
        for f, text in d["fn"]:
            ops = ",".join(sorted(f["op_class"]))
            out.append(f"- `{f['file']}:{f['line']}` `{f['code'][:110]}`  \n  [{f['role']} {f['function']}; {ops}] "
                       f"{text}")
        out += ["", f"### false alarms: executed, flagged, no op at runtime ({len(d['fp'])})", ""]
        for f, text in d["fp"]:
            out.append(f"- `{f['file']}:{f['line']}` `{f['code'][:110]}`  \n  [{','.join(f['rules'])} "
                       f"{f['category']}; {f['function']}] {text}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
