"""Diagnoses of the suite-j misses and executed false alarms (botorch 0.18.1, deepxde 1.15.0) at first look,
written by reading the code and checked with `dynlint check --explain` on botorch and deepxde (main 5ae6c99);
the kind and form causes marked "fixture" were checked with a small fixture package holding the same code
(flagged or not by the same dynlint). Keys as in misslist.DIAGNOSES: (file prefix, function or code
fragment); the first matching key wins. Cause labels start with their group.

Two executed false alarms (pairwise_gp.py's numpy callbacks for scipy) are in FP_J."""
from __future__ import annotations

_BO = "botorch/"
_DX = "deepxde/"

HOSTBUILT = "by design: host-built tensor (every recorded read is of host memory in a GPU run too)"
LIBRARY = ("line attribution: the op runs inside a library the package calls (gpytorch's ExactGP posterior, "
           "linear_operator's Cholesky and dense conversions, torch.optim), pinned on the package's call line")
VALIDATE = ("line attribution: torch.distributions validates a sample at `cdf` / `log_prob` (`validate_args` on by "
            "default); DYN215 flags the distribution's construction line, not each call")
HOSTLIB = "form: 0-d tensors handed to a host library (scipy's `brentq(f, lo_, hi_)` converts them to floats)"
BRIDGE = ("scope: neutral numpy bridge of the optimisers (public API no entry point reaches); host copies "
          "(DYN202/DYN214) are model-code rules")
CTOR = ("scope: what only an acquisition function's or a sampler's constructor calls is cold (by name `__init__`), "
        "though a BO loop builds a new acquisition function every iteration")
TRANSFORM_COLD = ("scope: an outcome transform is cold by its base class (`OutcomeTransform`: data transforms), though "
                  "every `posterior` call untransforms through it")
METRIC = "scope: cold as a metric (declared `-> float`), though the BO loop computes it every iteration"
RECEIVER = ("scope: a method called on a model held in an attribute (`self.model.posterior(X)`) is reached from no "
            "entry point (the receiver's class is not known)")
FIELDS = ("kind: the fields of a `torch.max(..., dim=)` result (`max_res.values`, `max_res.indices`) have no "
          "tensor kind (fixture)")
UNPACKED_LISTS = ("kind: a list bound by unpacking list literals (`a, b = [], []`) is neither a Python sequence nor a "
                  "possible tensor, so a tensor index into it is flagged by neither DYN213 nor DYN210 (fixture)")

DIAGNOSES_J = {
    # -- botorch: by design -------------------------------------------------------------------------
    (_BO + "acquisition/multi_objective/logei.py", "*"): (
        HOSTBUILT,
        "`if self.incremental_nehvi:` in `qLogNoisyExpectedHypervolumeImprovement.forward` (model code): the "
        "attribute is a buffer registered as `torch.tensor(incremental_nehvi, dtype=torch.bool)` "
        "(utils/multi_objective/hypervolume.py:630), built without a device; a BO script does not move the "
        "acquisition function, so the truth test reads host memory"),
    (_BO + "utils/multi_objective/hypervolume.py", "_set_cell_bounds"): (
        HOSTBUILT,
        "`if self.partitioning is None and not self.incremental_nehvi:`: the same host-built bool buffer"),
    (_BO + "utils/multi_objective/hypervolume.py", "set_X_pending"): (
        HOSTBUILT,
        "`if self.cache_pending:`, `if num_new_points > self._max_iep:`, `if not self.incremental_nehvi:` in "
        "`NoisyExpectedHypervolumeMixin.set_X_pending` (run by the sequential `optimize_acqf`): buffers "
        "registered as `torch.tensor(<python value>)` without a device"),
    (_BO + "utils/multi_objective/box_decompositions/box_decomposition.py", "if not self.sort:"): (
        HOSTBUILT,
        "`if not self.sort:` in `BoxDecomposition._compute_pareto_Y`: `self.sort = torch.tensor(sort, "
        "dtype=torch.bool)` in `__init__`, host memory"),
    (_BO + "sampling/base.py", "*"): (
        HOSTBUILT,
        "`int(torch.randint(0, 1000000, (1,)).item())` in `MCSampler.__init__` (the sampler's seed): a host "
        "tensor drawn without a device. Also cold by name (`__init__`)"),
    (_BO + "optim/initializers.py", "initialize_q_batch"): (
        HOSTBUILT,
        "`if torch.any(Ystd == 0):` / `if max_idx not in idcs:` in `initialize_q_batch`: `acq_vals` are the raw "
        "samples' acquisition values copied to the host by `gen_batch_initial_conditions` "
        "(`acq_function(x_.to(device=device)).cpu()`, line 456): host memory in a GPU run too. Also cold by "
        "name (`initialize_*`)"),
    (_BO + "optim/batched_lbfgs_b.py", "*"): (
        HOSTBUILT,
        "`bounds = np.array(old_bound_to_new(bounds))` in `_minimize_lbfgsb`: the bounds were already "
        "converted to host arrays/tensors by `gen_candidates_scipy`; every read host-built"),
    (_BO + "optim/core.py", "optimizer.step()"): (
        HOSTBUILT,
        "`optimizer.step()` in `torch_minimize` (the torch fit loop): Adam's step counter, a host tensor"),
    (_BO + "generation/gen.py", "_optimizer.step"): (
        HOSTBUILT,
        "`_optimizer.step(assign_grad)` in `gen_candidates_torch`: Adam's step counter, a host tensor"),
    # -- botorch: line attribution -----------------------------------------------------------------
    (_BO + "acquisition/max_value_entropy_search.py", "normal."): (
        VALIDATE,
        "`normal.cdf(normalized_mvs_new)`, `normal.cdf(normalized_mvs)`, `torch.exp(normal.log_prob(...))` in "
        "`qMaxValueEntropy` / `qLowerBoundMaxValueEntropy._compute_information_gain` (model code): the "
        "`torch.distributions.Normal(...)` built a few lines above (387, 547) is flagged DYN215; its "
        "`_validate_sample` (`support.check(value).all()`) reads a bool on every call, attributed to the call "
        "lines [fixed since leads31: DYN215 also flags `log_prob`/`cdf`/`icdf` of a name or `self.attr` every binding of which builds a validating distribution; kept for the first-look report]"),
    (_BO + "acquisition/max_value_entropy_search.py", "psd_safe_cholesky"): (
        LIBRARY,
        "`L = psd_safe_cholesky(variance_m)` (model code): linear_operator's `psd_safe_cholesky` checks the "
        "factorisation (`torch.any(info)` / NaN checks) inside linear_operator; the botorch line holds no read"),
    (_BO + "acquisition/max_value_entropy_search.py", "brentq"): (
        HOSTLIB,
        "`brentq(lambda y: np.exp(np.sum(N.logcdf(y))) - p, lo_, hi_)` in `_sample_max_value_Gumbel` with "
        "`lo_, hi_ = lo[i], hi[i]`, 0-d device tensors: scipy converts them to floats (12 reads). Also cold "
        "(only the constructor path calls it)"),
    (_BO + "acquisition/max_value_entropy_search.py", "_sample_max_value_Gumbel"): (
        CTOR,
        "`N = norm(mu[:, i].numpy(force=True), sigma[:, i].numpy(force=True))` in `_sample_max_value_Gumbel`: "
        "explain: cold, 'only cold code in this file calls it' (`__init__` -> `set_X_pending` -> "
        "`_sample_max_values`); the posterior's mean and variance over the candidate set copied to numpy, "
        "once per acquisition function, i.e. per BO iteration"),
    (_BO + "generation/gen.py", "torch.autograd.grad"): (
        LIBRARY,
        "`gradf = _arrayify(torch.autograd.grad(loss, X)[0]...)` in `gen_candidates_scipy`'s numpy wrapper: "
        "the 'any' reads run in linear_operator's / gpytorch's backward functions under `autograd.grad` (the "
        "host copy of the gradient is recorded at parameter_constraints.py:196)"),
    (_BO + "models/gpytorch.py", "get_fantasy_model"): (
        LIBRARY,
        "`fantasy_model = self.get_fantasy_model(inputs=X, targets=Y, **kwargs)` in "
        "`GPyTorchModel.condition_on_observations` (also the knowledge gradient's `fantasize`): gpytorch's "
        "`ExactGP.get_fantasy_model` (its prediction-strategy update, linear_operator's Cholesky checks) does "
        "the reads"),
    (_BO + "models/gpytorch.py", "self(X"): (
        LIBRARY,
        "`mvn = self(X)` / `mvn = self(X_full)` in `BatchedMultiOutputGPyTorchModel.posterior` and "
        "`MultiTaskGPyTorchModel.posterior`: gpytorch's `ExactGP.__call__` (`settings.debug` input checks with "
        "`torch.equal`, the prediction strategy's Cholesky with its jitter retries). Also neutral: "
        "`posterior` is called on `self.model`, a model held in an attribute (see the RECEIVER cause)"),
    (_BO + "models/gpytorch.py", "from_independent_mvns"): (
        LIBRARY,
        "`MultitaskMultivariateNormal.from_independent_mvns(mvns=mvns)` in `ModelListGPyTorchModel.posterior`: "
        "gpytorch builds the block-diagonal covariance (its reads); no read on the botorch line"),
    (_BO + "models/gpytorch.py", "tolist"): (
        RECEIVER,
        "`_make_X_full(X=X, output_indices=task_features.tolist(), ...)` in `MultiTaskGPyTorchModel.posterior` "
        "(`task_features = torch.tensor(self._output_tasks, device=X.device)`): explain: neutral, reached from "
        "no entry point; acquisition functions call `self.model.posterior(X)` and the attribute's class is "
        "not known, and DYN202 is a model-code rule. A copy of a tensor built from Python values on the device"),
    (_BO + "optim/closures/model_closures.py", "*"): (
        LIBRARY,
        "`model_output = model(*model.train_inputs)` / `log_likelihood = mll(...)` in the fit's loss closure "
        "(`_get_loss_closure_exact_internal.closure`): gpytorch's `ExactGP.__call__` in train mode (the "
        "`torch.equal` checks of the inputs against `train_inputs`) and `ExactMarginalLogLikelihood` "
        "(linear_operator's Cholesky, `_is_all_true` validation) do the reads. Also cold by nesting (the "
        "closure factory is cold)"),
    (_BO + "posteriors/gpytorch.py", "*"): (
        LIBRARY,
        "`self.distribution.rsample(...)` and `self.distribution.variance` in `GPyTorchPosterior`: gpytorch's "
        "`MultivariateNormal` (linear_operator's root decomposition and Cholesky checks) does the reads. Also "
        "neutral (a posterior's methods are reached from no entry point)"),
    (_BO + "utils/low_rank.py", "*"): (
        LIBRARY,
        "`lazy_covar[..., -q:, :].to_dense()` and `psd_safe_cholesky(br_to_chol, ...)` in "
        "`sample_cached_cholesky` (model code from qNEHVI's forward): linear_operator's dense conversion and "
        "Cholesky checks; its own `if contains_nans or contains_infs:` (164) is flagged"),
    (_BO + "acquisition/preference.py", "self.std_norm"): (
        VALIDATE,
        "`ucdf = self.std_norm.cdf(u)` / `torch.exp(self.std_norm.log_prob(u))` in "
        "`AnalyticExpectedUtilityOfBestOption.forward` (model code): the `Normal` built in `__init__` (83, cold) "
        "and kept in an attribute validates each sample (`std_norm = Normal(...); self.std_norm = std_norm`) [fixed since leads31: DYN215 also flags `log_prob`/`cdf`/`icdf` of a name or `self.attr` every binding of which builds a validating distribution; kept for the first-look report]"),
    (_BO + "acquisition/preference.py", "*"): (
        CTOR,
        "`std_norm = torch.distributions.normal.Normal(...)` in `AnalyticExpectedUtilityOfBestOption.__init__` "
        "(the distribution's argument validation, DYN215's form): cold by name; the acquisition function is "
        "built every BO iteration"),
    (_BO + "models/likelihoods/pairwise.py", "*"): (
        VALIDATE,
        "`return std_norm.cdf(z)` in `PairwiseProbitLikelihood.p` (model code): the `Normal` of line 138 "
        "(flagged DYN215) validates the sample [fixed since leads31: DYN215 also flags `log_prob`/`cdf`/`icdf` of a name or `self.attr` every binding of which builds a validating distribution; kept for the first-look report]"),
    (_BO + "models/pairwise_gp.py", "psd_safe_cholesky"): (
        LIBRARY,
        "`chol = psd_safe_cholesky(matrix, jitter=jitter)` in `_scaled_psd_safe_cholesky` (model code): "
        "linear_operator's Cholesky checks; the caller's own `if psd:` / `if not psd:` (105/109) are flagged"),
    (_BO + "models/pairwise_gp.py", "to_dense"): (
        LIBRARY,
        "`covar = self.covar_module(X1, X2).to_dense()` in `PairwiseGP._calc_covar`: gpytorch's kernel call "
        "(`torch.equal(x1, x2)` to detect a symmetric kernel matrix) inside gpytorch"),
    (_BO + "models/pairwise_gp.py", "while i < max_iter"): (
        "kind: a loop condition reads a variable the loop body rebinds to a tensor (its first binding a float) "
        "(fixture)",
        "`while i < max_iter and diff > xtol:` in `PairwiseGP._util_newton_updates` (model code: the Newton "
        "steps of the Laplace approximation in `forward`): `diff = float(\"Inf\")` before the loop, `diff = "
        "torch.linalg.norm(x - x_next)` at its end. A fixture: quiet; flagged DYN204 when the binding before "
        "the loop is already `torch.linalg.norm(x)` [fixed since leadsj30: a loop's test and the body's reads before a rebinding see the body's tensor rebinding; kept for the first-look report]"),
    # -- botorch: scope ----------------------------------------------------------------------------
    (_BO + "models/transforms/outcome.py", "*"): (
        TRANSFORM_COLD,
        "`if not self._is_trained:` in `Standardize.untransform_posterior`: `_is_trained` is a bool buffer "
        "(`register_buffer(\"_is_trained\", torch.tensor(False))`), moved with the model (its outcome_transform "
        "is a submodule), so a device read on every `posterior` call (150 reads). explain: cold, its class "
        "derives from `OutcomeTransform` (data loading, training, ...)"),
    (_BO + "acquisition/multi_objective/utils.py", "*"): (
        CTOR,
        "`if infeas.any():`, `idcs = probs.nonzero().view(-1)`, `(idcs / effective_n_w).long().unique()` in "
        "`prune_inferior_points_multi_objective`: explain (whole package): cold, called only from cold code "
        "(qLogNEHVI's `__init__` with `prune_baseline=True`); the per-file report calls it neutral. The "
        "pruning of the baseline runs whenever the loop builds the acquisition function"),
    (_BO + "utils/multi_objective/box_decompositions/box_decomposition.py", "*"): (
        CTOR,
        "`if Y.isnan().any():` in `BoxDecomposition.__init__` (a partitioning built per BO iteration from the "
        "observed outcomes): cold by name"),
    (_BO + "utils/sampling.py", "_convert_bounds_to_inequality_constraints"): (
        CTOR,
        "`eye[lower_finite]`, `lower[lower_finite]` in `_convert_bounds_to_inequality_constraints` (bool masks "
        "of `bounds.isfinite()`): explain: cold, only cold code (`PolytopeSampler.__init__`) calls it"),
    (_BO + "utils/sampling.py", "find_interior_point"): (
        CTOR,
        "`A=self.A.cpu().numpy(), b=self.b.cpu().numpy()` in `PolytopeSampler.find_interior_point` (the "
        "interior point for the hit-and-run sampler, found by scipy's linprog): cold, called from `__init__`"),
    (_BO + "utils/sampling.py", "draw"): (
        BRIDGE,
        "`A=self.new_A.cpu()`, `b=(self.b - self.A @ self.x0).cpu()` in `HitAndRunPolytopeSampler.draw` "
        "(explicit host copies: 'run this on the cpu since there is a lot of looping'): neutral, DYN214 is a "
        "model-code rule"),
    (_BO + "utils/multi_objective/hypervolume.py", "*"): (
        METRIC,
        "`pareto_Y = pareto_Y[better_than_ref]` in `Hypervolume.compute` and `return hvol.item()` in "
        "`_hv_recursive`: explain: cold, 'declared to return Python floats: a statistic or metric'. The "
        "hypervolume of the observed Pareto front is the loop's progress measure, a host float by contract"),
    (_BO + "generation/gen.py", "*"): (
        BRIDGE,
        "`losses.detach().view(-1).cpu().numpy()` in `gen_candidates_scipy`'s `f_np_wrapper` (the values scipy's "
        "L-BFGS-B reads at every evaluation): neutral (public API); DYN214 is a model-code rule"),
    (_BO + "optim/initializers.py", "*"): (
        BRIDGE,
        "`acq_function(x_.to(device=device)).cpu()` in `gen_batch_initial_conditions` (the raw samples' "
        "acquisition values gathered on the host): neutral; DYN214 is a model-code rule"),
    (_BO + "optim/parameter_constraints.py", "*"): (
        BRIDGE,
        "`X.cpu().detach().contiguous().double().clone().numpy()` in `_arrayify` (scipy's view of the candidates "
        "and gradients): neutral; DYN214 is a model-code rule"),
    (_BO + "optim/utils/numpy_utils.py", "*"): (
        BRIDGE,
        "`values.cpu()` in `as_ndarray`, `lower.cpu().numpy()` / `upper.cpu().numpy()` in "
        "`get_bounds_as_ndarray` (the scipy fit's parameter vector and bounds, every L-BFGS-B evaluation): "
        "neutral; DYN214 is a model-code rule"),
    # -- botorch: kind -----------------------------------------------------------------------------
    (_BO + "optim/optimize.py", "infeasible"): (
        "kind: the return of a function of another file annotated `-> Tensor` (`evaluate_feasibility(...)`) "
        "has no tensor kind (fixture)",
        "`if nonlinear_inequality_constraints is None and infeasible.any():` and `if (... (not "
        "is_feasible.any())) or infeasible.all():` in `_optimize_acqf_batch` (neutral; DYN204 applies in step "
        "code): `is_feasible = evaluate_feasibility(...)` (optim/parameter_constraints.py, `-> Tensor`), "
        "`infeasible = ~is_feasible`. Most of the runs' reads were host-built (scipy's candidates), the "
        "`gen_candidates_torch` run's were not. Fixtures: `infeasible = ~f(X); if infeasible.any():` with `f` "
        "annotated `-> Tensor` in another file is quiet, in a neutral function and in a `forward` alike (also "
        "without the `~`); with `f` in the same file, or the mask computed in place, it is flagged DYN204 [fixed since leadsj30: `evaluate_feasibility` is cold by its name, so never walked, and its declared `-> Tensor` was exported only for walked functions; kept for the first-look report]"),
    (_BO + "optim/optimize.py", "[best]"): (
        "form: `torch.argmax(v.view(-1), dim=0)` (0-d: a flattened tensor reduced over its only dim) is not "
        "taken for a tensor element (fixture)",
        "`batch_candidates = batch_candidates[best]` / `batch_acq_values[best]` in `_optimize_acqf_batch` with "
        "`best = torch.argmax(batch_acq_values.view(-1), dim=0)`. A fixture with both operands annotated "
        "`torch.Tensor`: quiet; `torch.argmax(vals)` without `dim=` flagged DYN210 (as `choices_batched"
        "[best_idx]` at 1479 is) [fixed since leadsj30: a reduction over the only dim of a 1-d tensor is 0-d; kept for the first-look report]"),
    (_BO + "optim/optimize.py", "best_acq_values = ff_acq"): (
        UNPACKED_LISTS,
        "`best_acq_values = ff_acq_value_list[best_batch_idx]` in `optimize_acqf_mixed` (neutral), "
        "`best_batch_idx = torch.argmax(max_res.values)`: see `ff_candidate_list[...]` [fixed since leadsj30; kept for the first-look report]"),
    (_BO + "optim/optimize.py", "best_batch_candidates = ff_"): (
        UNPACKED_LISTS,
        "`best_batch_candidates = ff_candidate_list[best_batch_idx]` in `optimize_acqf_mixed` (neutral; DYN213 "
        "and DYN210 apply in step code): `ff_candidate_list, ff_acq_value_list = [], []`, then appended the "
        "candidates of each `optimize_acqf` call; `best_batch_idx = torch.argmax(max_res.values)` is a device "
        "tensor element. A fixture: the same code quiet; with `ff_candidate_list = []` on its own line "
        "flagged DYN213 [fixed since leadsj30: unpacking a literal tuple binds each name to its item in the binding table; kept for the first-look report]"),
    (_BO + "optim/optimize.py", "optimize_acqf_mixed"): (
        FIELDS,
        "`best_idx = max_res.indices[best_batch_idx]` and `best_batch_candidates[best_idx]` in "
        "`optimize_acqf_mixed` with `max_res = torch.max(ff_acq_values, dim=-1)`: `max_res.indices` has no "
        "tensor kind, so neither it indexed by a tensor element nor `best_idx` taken from it is flagged (the "
        "second also indexes an element of the unpacked list). A fixture: `max_res.indices[i]` quiet [1342 fixed since leadsj30: the `values`/`indices` fields of a tensor-kind value are tensors; 1345 still missed, `best_idx` an item of a tensor of unknown rank; kept for the first-look report]"),
    # -- deepxde -----------------------------------------------------------------------------------
    (_DX + "backend/pytorch/tensor.py", "*"): (
        BRIDGE,
        "`return input_tensor.detach().cpu().numpy()` in the backend's `to_numpy` (explain: neutral, reached "
        "from no entry point): `Model._outputs_losses` copies the outputs and the loss vector of the display's "
        "test pass (every `display_every` iterations and after the last) and `predict` its result; deepxde "
        "keeps its train state in numpy. DYN214 is a model-code rule"),
    (_DX + "callbacks.py", "*"): (
        "scope: cold by name (`on_train_begin`: a training callback)",
        "`self.value = [var.detach().item() for var in self.var_list]` in `VariableValue.on_train_begin`, "
        "which `on_epoch_end` calls every `period` iterations (1 here): the inverse problem's trainable "
        "coefficient printed as the user asked (a logging callback)"),
    (_DX + "model.py", "*"): (
        LIBRARY,
        "`self.opt.step(closure ...)` in the pytorch backend's `train_step` (explain: cold by name "
        "`train_step`): Adam's step counter (host-built, 80 reads) and, in the L-BFGS run, torch.optim.LBFGS's "
        "own loss and gradient tests (`float(loss)`, `flat_grad.abs().max() <= tolerance_grad`; 45 device "
        "reads) inside torch"),
}

FP_J = {
    (_BO + "models/pairwise_gp.py", "*"): (
        "cross-call: a host copy of values the caller already copied to the host and scipy hands back",
        "`return g.cpu().numpy()` in `PairwiseGP._grad_posterior_f` and `return hess.numpy() if ret_np else "
        "hess` in `_hess_posterior_f` (model code: `_util_newton_updates` calls them directly, without "
        "`ret_np`): the `ret_np` branch runs only as scipy's `fsolve(func=..., fprime=..., args=(datapoints.cpu(), "
        "self.D.cpu(), self.covar_chol.cpu(), self.covar_inv.cpu(), True))` callbacks (lines 581-584, recorded "
        "copies, flagged), with `utility = torch.tensor(utility)` built from scipy's numpy array: every operand "
        "is host memory, so the copies read nothing from the device. Deciding it needs the `ret_np=True` "
        "callers' arguments, which reach the function through scipy"),
}
