"""Diagnoses of the suite-d misses and false alarms (effdet, demucs, torchdiffeq, open_clip) at
first look, written by reading the code and checked with `dynlint check --explain` on the installed
package (the report's role column is the single-file pre-pass; the verdict with the whole project
is often "model code (reached from another file)"). Keys as in misslist.DIAGNOSES: (file prefix,
function or code fragment). Cause labels start with their group."""
from __future__ import annotations

REGISTRY = ("kind: solver state and callable parameters "
            "(code reached via a class registry)")
HOSTALG = "scope: cold by the heapq/bisect heuristic"
ELEM = "kind: element of an iterated tensor held by a parameter"
HOSTBUILT = "by design: host-built tensor"
PARAM = "kind: unannotated parameter, callers in another file or package"
INSIDE = "by design: sync inside a callee outside the package"
_ED, _DM, _TD, _OC = "effdet/", "demucs/", "torchdiffeq/_impl/", "open_clip/"
_REG_TEXT = ("the time values and error ratios come from the solver's state (`self.rk_state.t1`, a NamedTuple), "
             "unannotated parameters (`next_t`, `error_ratio`, `t0`/`t`) and calls of callable parameters "
             "(`norm(...)`, `event_fn(...)`), none of which has a kind. The code is also neutral: "
             "`solver = SOLVERS[method](...)` then `solver.integrate(t)` (odeint.py) makes the instance from a dict of "
             "classes, so no entry point reaches integrate/_advance/_adaptive_step; but neutral code gets the "
             "host-read "
             "rules, so the kinds are what misses (a fixture with the kinds known is flagged as neutral code)")

DIAGNOSES_D = {
    # -- effdet ----------------------------------------------------------------------------
    (_ED + "anchors.py", "batch_label_anchors"): (
        PARAM, "`valid_idx = gt_classes[i] > -1; gt_boxes[i][valid_idx]`: model code (DetBenchTrain.forward -> "
               "batch_label_anchors), but the parameters are unannotated; the caller passes `target['cls']` "
               "where `target: Dict[str, torch.Tensor]` is annotated, and a subscript of a Dict[str, Tensor] "
               "gets no kind, so the comparison is not a mask"),
    (_ED + "anchors.py", "label_anchors"): (
        PARAM, "`AnchorLabeler.label_anchors` is called by effdet's data loader (the builder calls it on device) and "
               "by no code of the package's step (neutral, where shape rules apply); its parameters are "
               "unannotated and no caller in the package passes anything: no evidence they are tensors"),
    (_ED + "soft_nms.py", "keep[top_idx]"): (
        "form: 0-d tensor as an index of a write",
        "`keep[top_idx] = torch.tensor(False)`, `top_idx = torch.argmax(...)`: a 0-d integer tensor as the "
        "index of an assignment syncs (`__index__`); the same index on a read (`idxs[top_idx]`, line 91) is "
        "flagged"),
    (_ED + "soft_nms.py", "idxs = idxs[keep]"): (
        HOSTBUILT,
        "`idxs = torch.arange(num_elem)` has no device: dynlint takes it for a host tensor and its mask read "
        "for a CPU op (on a GPU the mask lives on the device, so this line would even fail); the twins "
        "`boxes_remain[keep]` on 108/109 are flagged"),
    # -- demucs ----------------------------------------------------------------------------
    (_DM + "wiener.py", "*"): (
        HOSTBUILT, "`for index in torch.cartesian_prod(torch.arange(n), torch.arange(n)): "
                   "x[:, :, index[0], index[1]]`: "
                   "`index[0]` is a 0-d tensor used as an index, but the tensor is built on the host (`arange` "
                   "without a device): on a GPU its read is no device sync, so DYN210 (`read_from_device`) leaves "
                   "it, as it should; the same loop over a device tensor is flagged (model code: HTDemucs.forward "
                   "-> _wiener -> wiener)"),
    (_DM + "spec.py", "*"): (
        "by design: sync inside a torch op",
        "`th.istft(...)` checks its window envelope with a host read inside torch (no rule; the line is "
        "model code)"),
    (_DM + "demucs.py", "resample_frac"): (
        INSIDE, "`julius.resample_frac(x, 1, 2)`: the sync runs inside julius (not a package root), so the "
                "ground truth pins it on the calling line; no rule knows julius"),
    # -- open_clip -------------------------------------------------------------------------
    (_OC + "coca_model.py", "*"): (
        "kind: return of a third-party callable",
        "`if all(stopping_criteria(out, None)):`: builtin `all()` over the bool tensor that transformers' "
        "`StoppingCriteriaList.__call__` returns; a call into another package gives no kind (model code: "
        "CoCa.generate)"),
    # -- torchdiffeq -----------------------------------------------------------------------
    (_TD + "rk_common.py", "_before_integrate"): (
        "scope: methods of a plain object built from a class registry (`SOLVERS[method](...)`)",
        "`bisect.bisect(self.jump_t.tolist(), t[0])`: `_before_integrate` is neutral (its `unique` and "
        "`(counts > 1).any()` are flagged there; DYN202 is a model-code rule): `odeint` (model code) builds "
        "`solver = SOLVERS[method](...)` from a dict of classes and calls `solver.integrate(t)`, defined in a "
        "base in another file (solvers.py), which calls `self._before_integrate(t)`. Reaching it needs the "
        "registry's classes and the methods of plain objects built in the step with a base in another file "
        "(a fixture with `solver = Dopri()` instead of the registry is not reached either)"),
    (_TD + "rk_common.py", "_sort_tvals"): (
        HOSTALG, "`tvals[tvals >= t0]`: `_sort_tvals` is cold only because its one caller, `_before_integrate`, "
                 "is cold by the heapq/bisect heuristic"),
    (_TD + "rk_common.py", "_runge_kutta_step"): (
        ELEM, "`for alpha_i, beta_i in zip(tableau.alpha, tableau.beta): if alpha_i == 1.:`: `tableau.alpha` is "
              "a tensor field of a NamedTuple instance built at module level; iterating it yields 0-d tensors"),
    (_TD + "rk_common.py", "other"): (REGISTRY, _REG_TEXT),
    (_TD + "solvers.py", "_grid_constructor"): (
        "scope: cold by a closure's enclosing function",
        "`niters = torch.ceil(...).item()` in `_grid_constructor`, nested in the static method "
        "`_grid_constructor_from_step_size` (cold: nothing in scope calls it); the closure it returns is "
        "stored (`self.grid_constructor = ...`) and called by `integrate` every solve"),
    (_TD + "solvers.py", "_linear_interp"): (
        PARAM, "`if t == t0:` in `_linear_interp(self, t0, t1, y0, y1, t)` (model code): parameters unannotated, "
               "callers pass elements of the time grid (`t[j]`, `time_grid[i]`), whose kind is lost through the "
               "solver instance"),
    (_TD + "solvers.py", "other"): (REGISTRY, _REG_TEXT),
    (_TD + "fixed_adams.py", "_update_history"): (
        PARAM, "`self.prev_t != t`: `t` is an unannotated parameter and `self.prev_t` an attribute assigned from "
               "it; the time value is a 0-d tensor only at runtime"),
    (_TD + "fixed_adams.py", "_step_func"): (
        "kind: bool tensor returned by a method",
        "`converged = self._has_converged(dy_old, dy); if converged:`: `_has_converged` returns `error_ratio < 1` "
        "where `error_ratio` comes from `_compute_error_ratio` (misc.py), a tensor across files; the method's "
        "return has no kind"),
    (_TD + "interp.py", "*"): (REGISTRY, _REG_TEXT + "; the assert tests `(t0 <= t) & (t <= t1)`"),
    (_TD + "misc.py", "_mixed_norm"): (
        PARAM, "`max([_rms_norm(tensor) for tensor in tensor_tuple])` (model code: `_check_inputs` stores "
               "`norm = _mixed_norm`; the only call, in adjoint.py, passes `*adj_params` of an unannotated "
               "tuple): the items have no kind, and `_rms_norm`'s `.abs().pow(2).mean().sqrt()` is no tensor "
               "evidence (pandas and polars series have these methods). The same code with a caller passing "
               "a module's input is flagged (DYN212)"),
    (_TD + "misc.py", "_select_initial_step"): (REGISTRY, _REG_TEXT),
    (_TD + "misc.py", "_optimal_step_size"): (REGISTRY, _REG_TEXT),
    (_TD + "misc.py", "other"): (
        PARAM, "`_assert_increasing(name, t)`, `_check_inputs(func, y0, t, ...)`, `_check_timelike(name, "
               "timelike, ...)`: tests on `t`, an unannotated parameter of the public `odeint(func, y0, t)`; only "
               "the user's code shows it is a tensor (model code via the adjoint's backward)"),
    (_TD + "odeint.py", "dense_output_fn"): (
        HOSTBUILT, "`times[idx - 1]` with `times = torch.stack(times).reshape(-1).cpu()` (a host copy) and "
                   "`idx = torch.searchsorted(times, t_eval)`: reads of a host tensor"),
    (_TD + "odeint.py", ".cpu()"): (
        "scope: neutral (public API no code of the package calls); host copies (DYN202/DYN214) are "
        "model-code rules",
        "`torch.stack(times).reshape(-1).cpu()` in `odeint_dense`, which no code of the package calls"),
    (_TD + "odeint.py", "*"): (
        REGISTRY, "`odeint_dense` (and the `dense_output_fn` closure it returns) is called by no code of the package "
                  "(neutral, where host-read rules apply): `t1 != t0` compares the solver state's times, "
                  "`times[idx]` indexes with the result of `torch.searchsorted` on an unannotated parameter"),
}

FP_D = {
    (_TD + "rk_common.py", "if on_step_t:"): (
        "right code, not exercised",
        "`on_step_t = t0 < next_step_t < t0 + dt` (a bool tensor) when `step_t` is given, `False` otherwise "
        "and after a jump: the runs gave `jump_t` only, so `on_step_t` was the constant here; the twin "
        "`if on_jump_t:` (line 344) is a GT site"),
    (_DM + "apply.py", "*"): (
        "by design: DYN207", "slice by `offset`/`segment_length`: `int(0.5 * model.samplerate)`, a conversion "
        "of an attribute only probably a tensor (no DYN203 there), marks them host values; the read is not "
        "reported in the function, so the slice still is"),
    ("x_transformers/entropy_based_tokenizer.py", "*"): (
        "GT artefact: provenance lost", "`one_token_length` comes from `pad_sequence` of device tensors "
        "(arange on `seq.device`); groundtruth.Provenance does not mark pad_sequence's output as device memory "
        "(checked with a probe), so this real host copy is not recorded"),
    ("x_transformers/nonautoregressive_wrapper.py", "*"): (
        "host-read: not derivable", "`times = torch.linspace(...)` is host memory, but it reaches "
        "`.tolist()` through `self.schedule_fn`, a callable attribute that may be a user's schedule"),
    ("kornia/augmentation/_2d/intensity/color_jiggle.py", "*"): (
        "host-read: depends on the caller", "`params['order']`: ColorJitter (the run) draws it with "
        "`torch.randperm(4)` on the host; ColorJiggle moves it to the input's device; the function is shared"),
    (_DM + "utils.py", "*"): (
        "false alarm: isinstance narrowing",
        "`center_trim(tensor, reference: Union[Tensor, int])`: `ref_size: int` is declared, and set from "
        "`reference.size(-1)` under `isinstance(reference, torch.Tensor)` or from `reference` in the else "
        "branch (an int there); `delta = tensor.size(-1) - ref_size` is an int, `if delta < 0:` reads nothing"),
}
