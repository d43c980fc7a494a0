"""Diagnoses of the suite-g misses and executed false alarms (pytorch_metric_learning 2.9.0, gpytorch
1.15.2, linear_operator 0.6.1) at first look, written by reading the code, checked with `dynlint
check --explain` on the files the runs touched and, for the kind and form causes, with a small
fixture package holding the same code (flagged or not by the same dynlint, main 4bd24da). Keys as
in misslist.DIAGNOSES: (file prefix, function or code fragment); the first matching key wins.
Cause labels start with their group. Fixed since (objects28, kinds across files): TripletMarginMiner's
`self.distance(...)` (a module's attribute no base defines as a method), CrossBatchMemory's
`labels[enqueue_mask]` (`to_device` hands back its argument), the NaN mask `observed` of
`settings.observation_nan_policy._get_observed` (a static method through an imported module's class)
in the exact MLL and the prediction strategy."""
from __future__ import annotations

_PML = "pytorch_metric_learning/"
_GP = "gpytorch/"
_LO = "linear_operator/"

API = "scope: the package's public API called by the user's step (neutral: only rules that apply everywhere)"
XRET = "cross-file: return kind"
GETATTR = "scope: method picked by `getattr(self, name)` (dynamic dispatch) is reached from no entry point"
OBJ = "scope: methods of a plain object built in the step (reached through its base class's API) are not reached"
CTOR = "scope: constructor of a plain class called in the step is cold by name (`__init__`)"
LINE = "line attribution: a finding inside a multi-line `if` test starts on the test's first line (a hit at statement level)"
ONE_HOT = "by design: one_hot label check (DYN217, --target hpu)"
HOSTBUILT = "by design: host-built tensor"

DIAGNOSES_G = {
    # -- pytorch_metric_learning ---------------------------------------------------------------
    (_PML + "losses/cross_batch_memory.py", "labels[enqueue_mask]"): (
        XRET,
        "`labels = c_f.to_device(labels, device=device)` (common_functions.py: `if x.device != dv: x = x.to(dv)`, "
        "returns `x`) leaves `labels` without a kind, and `enqueue_mask` is a parameter: `labels[enqueue_mask]` is "
        "missed while `embeddings[enqueue_mask]` (line 63) and `labels[~enqueue_mask]` (66, `~` makes the mask "
        "certain) are flagged. A fixture with the same helper in another file is missed, indexing the parameter "
        "itself is flagged [fixed since session 28: objects28 kinds across files; kept for the first-look report]"),
    (_PML + "losses/dynamic_soft_margin_loss.py", "update_histogram"): (
        XRET,
        "`momentum = self.momentum if self.hist_.sum() != 0 else 1.0` (model code: `compute_loss` -> "
        "`update_histogram`): `self.hist_` is `torch.zeros(...)` in `__init__` but reassigned in `compute_loss` "
        "from `c_f.to_device(self.hist_, tensor=embeddings, dtype=...)` (a helper in another file returning its "
        "argument), so the attribute has no kind. A fixture without that reassignment is flagged DYN204, with it "
        "(helper in another file) it is missed. Since objects28 the helper's summary hands back its argument "
        "(`passthrough.py`) and the attribute is a tensor in `compute_loss`'s walk again, but `update_histogram` "
        "(a callee of the function that asked, not a caller) is not walked again"),
    (_PML + "losses/generic_pair_loss.py", "_assert_either_pos_or_neg"): (
        "scope: bound method stored in `__init__` and called through the attribute is cold",
        "`assert not torch.any((pos_mask != 0) & (neg_mask != 0))` in `_assert_either_pos_or_neg`, called by "
        "`mat_based_loss`, which `compute_loss` calls as `self.loss_method(mat, indices_tuple)` after `__init__` "
        "set `self.loss_method = self.mat_based_loss if mat_based_loss else self.pair_based_loss`: explain says "
        "'only cold code in this file calls it' (the reference in `__init__`); every pair loss (Contrastive, "
        "MultiSimilarity, NTXent, SupCon, Circle, ...) runs it per step"),
    (_PML + "losses/proxy_anchor_loss.py", "one_hot"): (
        ONE_HOT,
        "`pos_mask = torch.nn.functional.one_hot(labels, self.num_classes)` in `ProxyAnchorLoss.compute_loss` "
        "(model code) checks the labels' range on the host on CPU and HPU; DYN217 flags it with "
        "`target = \"hpu\"`"),
    (_PML + "losses/ranked_list_loss.py", "compute_loss"): (
        "form: a mask written as a product of bool tensors (`(~y) * (mat < a)`) is not known to be a mask",
        "`N_star[(~y) * (mat < self.alpha)] = mat[(~y) * (mat < self.alpha)]` and the `P_star` line: the mask is "
        "the product of two bool tensors (a logical and). A fixture with the same code is missed, with `&` "
        "instead of `*` flagged DYN101 (even with `mat` from the same cross-file `to_device` helper)"),
    (_PML + "losses/subcenter_arcface_loss.py", "get_outliers"): (
        API,
        "`SubCenterArcFaceLoss.get_outliers(embeddings, labels, ...)` is a public method the user calls (the "
        "run calls it in eval): no package code calls it, so it is neutral and the model-code rules (0-d "
        "tensor index `sub_centers[:, dominant_idx]`, `.tolist()`) do not look at it; the rules that apply "
        "everywhere found its `nonzero`, mask index and `bincount` lines"),
    (_PML + "miners/batch_easy_hard_miner.py", "mine"): (
        "kind: tuple returned by a method picked at run time",
        "`self.set_stats(positive_dists[a1p_keep], ...)` / `p = positive_indices[a1p_keep]`: "
        "`(positive_dists, positive_indices), a1p_keep = self.get_positives(...)`, whose body calls "
        "`pos_func = self.get_mine_function(...)` (returns `self.get_min_per_row` or `self.get_max_per_row`), so "
        "the unpacked values have no kind; line 102 `a[a1p_keep]` (`a` from `torch.arange`) is flagged with the "
        "same mask. A fixture of the same shape is missed; calling `self.get_max_per_row(...)` directly is "
        "flagged DYN101"),
    (_PML + "miners/triplet_margin_miner.py", "mine"): (
        "kind: result of a module held in an attribute set in another file (`self.distance(...)`)",
        "`anchor_idx[threshold_condition]` (x3): `threshold_condition = triplet_margin <= self.margin` with "
        "`triplet_margin` from `mat = self.distance(embeddings, ref_emb)`; `self.distance` is set in the "
        "`ModuleWithRecordsAndDistance` base (another file) from a constructor argument or "
        "`get_default_distance()`, so `mat` and the comparison have no kind. A fixture with the distance module "
        "set in a base class in another file is missed; with `mat = emb @ emb.t()` it is flagged [fixed since session 28: objects28 kinds across files; kept for the first-look report]"),
    (_PML + "reducers/", "*"): (
        GETATTR,
        "`if divisor != 0:` (DivisorReducer.sum_and_divide) and `losses = losses[low_condition]` "
        "(ThresholdReducer.element_reduction_helper): `BaseReducer.reduce_the_loss` calls "
        "`reduction_func = self.get_reduction_func(reduction_type)` = `getattr(self, f\"{reduction_type}_reduction\")`, "
        "so `element_reduction`/`pos_pair_reduction`/... and their helpers are neutral. Reaching them is not "
        "enough: `divisor` and `losses` are parameters of unknown kind (the classes are modules only through a "
        "base of another file, so their methods' parameters are not taken as probable tensors)"),
    (_PML + "utils/accuracy_calculator.py", "maybe_get_avg_of_avgs"): (
        "by design: a metric function returning Python floats is cold",
        "`return torch.mean(accuracy_per_sample).item()`: explain: 'every return converts tensor data to Python "
        "floats: a statistic or metric' (the accuracy metrics, run on every validation)"),
    (_PML + "utils/accuracy_calculator.py", "torch.allclose"): (
        LINE,
        "`torch.allclose(query, reference[: len(query)])` / `torch.allclose(query_labels, ...)` (lines 438/439) "
        "inside `if ref_includes_query and not (...)`: both DYN208 findings span from 437:9 (the `if`) to the end "
        "of each call (438:59, 439:77), so the flagged line is 437 (counted a false alarm) and 438/439 are misses"),
    (_PML + "utils/accuracy_calculator.py", "*"): (
        API,
        "`AccuracyCalculator.get_accuracy` (a plain class's public method the user calls in validation) and the "
        "module functions it calls (`get_relevance_mask`: a 0-d `max_column` as slice bound; "
        "`get_lone_query_labels`, `try_getting_not_lone_labels`: mask indexes, `if not any(mask)`) are neutral; "
        "the rules that apply everywhere found its `unique`, `nonzero` and `.item()` lines"),
    (_PML + "utils/inference.py", "*"): (
        API,
        "`MatchFinder.get_matching_pairs` / `is_match` (a plain class the user calls): `matches.cpu().numpy()`, "
        "`output.cpu().numpy()` in neutral code (DYN214 is a model-code rule)"),
    (_PML + "utils/loss_and_miner_utils.py", "convert_to_pos_pairs_with_unique_labels"): (
        "kind: unannotated parameter, callers in another file",
        "`np.unique(labels[a].cpu().numpy(), return_index=True)` (model code: NPairsLoss.compute_loss -> here): "
        "`labels` is a parameter whose callers are in other files (the loss's `compute_loss`, itself called "
        "from `BaseMetricLossFunction.forward`); a same-file fixture whose caller uses `labels` as a tensor is "
        "flagged DYN214, the same helper in another file is missed"),
    (_PML + "utils/loss_and_miner_utils.py", "not_self_comparisons"): (
        "kind: 0-d elements of a tensor parameter passed on as parameters",
        "`if e <= s:` with `s, e = curr_batch_idx[0], curr_batch_idx[-1]` in the caller "
        "`remove_self_comparisons` (`curr_batch_idx` a parameter, CrossBatchMemory's index tensor), passed to "
        "`not_self_comparisons(a, p, s, e, ...)`: the int subscripts of a parameter of unknown rank are not "
        "known to be 0-d tensors"),
    # -- gpytorch ------------------------------------------------------------------------------
    (_GP + "likelihoods/bernoulli_likelihood.py", ".cdf("): (
        "rule gap: a distribution method's value validation (`.cdf(x)`, `.log_prob(x)`) is not flagged",
        "`output_probs = base_distributions.Normal(0, 1).cdf(link)` in `BernoulliLikelihood.marginal` (model "
        "code): `Normal(0, 1)` validates Python numbers (host-built, rightly not flagged by DYN215), but "
        "`.cdf(link)` validates its device argument (`_validate_sample`: a host read per call); DYN215 matches "
        "constructors only [rule extended since leads31: DYN215 flags `log_prob`/`cdf` of a validating "
        "distribution built in place or bound to a name or `self.attr`; this line stays missed because "
        "`base_distributions` is a re-exported alias, the next entry's cause]"),
    (_GP + "likelihoods/bernoulli_likelihood.py", "Bernoulli(probs"): (
        "kind: torch.distributions through a re-exported alias is not recognised (DYN215)",
        "`base_distributions.Bernoulli(probs=output_probs)`: `base_distributions` is "
        "`from ..distributions import base_distributions`, which gpytorch/distributions/__init__.py binds as "
        "`import torch.distributions as base_distributions` (or pyro's, in a try); `validated_distribution` "
        "reads the qualified name `gpytorch.distributions.base_distributions.Bernoulli`, not `torch.distributions.`"),
    (_GP + "likelihoods/gaussian_likelihood.py", "log_marginal"): (
        "scope: cold by name (`log_*` read as logging)",
        "`base_distributions.Normal(marginal.mean, ...)` / `indep_dist.log_prob(observations)` in "
        "`_GaussianLikelihoodBase.log_marginal`: explain: 'its name `log_marginal` is one of code that runs "
        "outside the model' (the log-marginal likelihood of the predictive log likelihood, every SVGP step); "
        "in scope, the re-exported `base_distributions` alias would still hide the constructor from DYN215"),
    (_GP + "metrics/metrics.py", "quantile_coverage_error"): (
        HOSTBUILT,
        "`torch.distributions.Normal(loc=0.0, scale=1.0)` validates two Python numbers (host-built tensors: no "
        "device read; DYN215 skips Python-number arguments by design); the metric is also neutral (public API)"),
    # -- linear_operator -----------------------------------------------------------------------
    (_GP + "mlls/exact_marginal_log_likelihood.py", "*"): (
        XRET,
        "`output.mean[..., observed]` / `target[..., observed]` with `observed = "
        "settings.observation_nan_policy._get_observed(target, ...)`, a static method of a class in another "
        "module (`-> Tensor`, returns `~torch.any(torch.isnan(...), dim=0)`): its return has no kind here. A "
        "fixture with the same static method in another module is missed, the same function in the file is "
        "flagged DYN101 (the `[..., mask]` form is recognised) [fixed since session 28: objects28 kinds across files; kept for the first-look report]"),
    (_GP + "models/exact_prediction_strategies.py", "*"): (
        OBJ,
        "`mean_cache[..., observed] = ...` (`_mean_cache`) and `mean_cache[..., observed]` "
        "(`exact_predictive_mean`) of `DefaultPredictionStrategy`, a plain class that `ExactGP.__call__` builds "
        "through the factory `prediction_strategy(...)` into `self.prediction_strategy` and calls as "
        "`self.prediction_strategy.exact_prediction(...)`: neutral (and `observed` comes from the same static "
        "method as in exact_marginal_log_likelihood.py) [fixed since session 28: objects28 kinds across files; kept for the first-look report]"),
    (_LO + "operators/masked_linear_operator.py", "__init__"): (
        CTOR,
        "`self.row_eq_col_mask = torch.equal(row_mask, col_mask)` in `MaskedLinearOperator.__init__`: the "
        "operator is built in the step (`ExactMarginalLogLikelihood.forward` under the `mask` NaN policy, "
        "`_mean_cache`), every call; `__init__` is cold by name (suite f's cause 1)"),
    (_LO + "operators/masked_linear_operator.py", "*"): (
        OBJ,
        "`res_expanded[..., self.row_mask, :]` (`_matmul`) and `full_dense[..., self.row_mask, :][..., :, "
        "self.col_mask]` (`to_dense`): methods of a plain (non-Module) LinearOperator built in the step, called "
        "by linear_operator's generic code (`matmul`, `solve`, `to_dense`) on an object of unknown class: "
        "neutral, and the row/column masks are constructor arguments"),
    (_LO + "utils/linear_cg.py", "*"): (
        LINE,
        "`and bool(residual_norm.mean() < tolerance)` (line 305) inside `if (k >= min(10, max_iter - 1) and "
        "... )`: the DYN203 finding spans from 304:13 (the start of the `and` chain) to 305:55, so 304 is counted a "
        "false alarm and 305 a miss"),
}

FP_G = {
    (_GP + "kernels/grid_kernel.py", "*"): (
        "right code, not reached: short-circuited by a flag",
        "`if self.interpolation_mode or (torch.equal(x1, full_grid) and torch.equal(x2, full_grid)):` — the runs "
        "use GridKernel inside GridInterpolationKernel, which sets `interpolation_mode=True`; a GridKernel used "
        "directly reads both comparisons on every call (a real sync)"),
    (_LO + "utils/linear_cg.py", "*"): (
        LINE,
        "the `bool(residual_norm.mean() < tolerance)` finding starts on the first line of the `and` chain "
        "(the sync ran on line 305, a miss)"),
    (_PML + "miners/uniform_histogram_miner.py", "get_bins"): (
        "ground truth blind spot: a host read inside an ATen kernel",
        "`torch.linspace(torch.min(pairs), torch.max(pairs), steps=...)`: eager ATen's `linspace(Tensor start, "
        "Tensor end, steps)` is `at::linspace(start.item(), end.item(), ...)`, two host reads on an accelerator "
        "every call; the recorder sees only `aten.linspace.Tensor_Tensor` (untagged; the `.item()` runs below "
        "the dispatch mode). Right line, although DYN206's message calls the endpoints sizes"),
    (_PML + "utils/accuracy_calculator.py", "get_accuracy"): (
        LINE,
        "the two `torch.allclose` findings start at 437:9 (the `if`); they ran on 438/439 (misses)"),
}
