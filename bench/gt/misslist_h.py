"""Diagnoses of the suite-h misses and executed false alarms (pykeen 1.11.1, pytorch_tabnet 4.1.0) at
first look, written by reading the code, checked with `dynlint check --explain` on the files the runs
touched and, for the kind, form and rule causes, with a small fixture package holding the same code
(flagged or not by the same dynlint, main 756868b). Keys as in misslist.DIAGNOSES: (file prefix,
function or code fragment); the first matching key wins. Cause labels start with their group."""
from __future__ import annotations

_PK = "pykeen/"
_TN = "pytorch_tabnet/"

API = "scope: the package's public API called by the user's step (neutral: only rules that apply everywhere)"
EVAL_COLD = "scope: the evaluation loop is cold by name (`evaluate`), and what only it calls"
FIT_COLD = "scope: the fit loop is cold by name (`fit`), and what only it calls (validation epoch, explanations)"
EVAL_OBJ = ("scope: evaluator methods called on the `evaluator` parameter of the (cold) batch loop are reached "
            "from no entry point")
CALLBACK = "scope: training callbacks called through the callback container are reached from no entry point"
HOSTBUILT = "by design: host-built tensor (every recorded read is of host memory in a GPU run too)"
BACKWARD = "by design: ground truth records the gradient of a forward mask index inside `loss.backward()`"
NOQA = "by design: a blanket `# noqa` on the line (the author's flake8 line-length suppression)"
NUMPY = "kind: numpy arrays (parameters annotated `np.ndarray`, results of numpy/scipy calls) read as possible tensors"

DIAGNOSES_H = {
    # -- pykeen --------------------------------------------------------------------------------
    (_PK + "evaluation/evaluator.py", "*"): (
        EVAL_COLD,
        "`(entity_filter_test & relation_filter).nonzero()` (create_sparse_positive_filter_) and `if ((scores != "
        "scores).sum(dim=1) == num_entities).any():` (filter_scores_): explain: `evaluate` (the module function "
        "running the batch loop) is cold by name ('code that runs outside the model'), so `_evaluate_batch` and "
        "the filter helpers it alone calls are cold; the filtered evaluation runs them for every batch and target "
        "[fixed since scope29: `_evaluate_batch` is the evaluation step of `evaluate`'s inference loop "
        "(evalsteps.py), in scope with what it calls; kept for the first-look report]"),
    (_PK + "evaluation/", "process_scores_"): (
        EVAL_OBJ,
        "`v.detach().cpu().numpy()` / `hrt_batch.cpu().tolist()` in `RankBasedEvaluator.process_scores_` (and the "
        "sampled, macro and classification evaluators'): called as `evaluator.process_scores_(...)` on the "
        "`evaluator` parameter of `_evaluate_batch`, so nothing reaches them (neutral; DYN214 is a "
        "model-code rule); were the call resolved, its only caller is cold (`evaluate`). A per-batch host copy "
        "of the ranks, every batch of every validation. (scope30: resolving `evaluator` by its callers' "
        "arguments would give `process_scores_` the role of `_evaluate_batch`, an evaluation step, neutral: its "
        "exports stay quiet by design unless the evaluation runs inside a fit loop of the file, which pykeen's "
        "does through a callback of another file; not done)"),
    (_PK + "nn/message_passing.py", "_real_forward_all"): (
        "kind: a buffer registered from a constructor parameter (`register_buffer(\"edge_types\", r)`) has no "
        "tensor kind",
        "`mask = edge_types == r` / `if mask.any():` / `edge_weights[mask] = self.edge_weighting(sources[mask], "
        "...)` in `RGCNRepresentation._real_forward_all` (model code by explain, through `Representation.forward` "
        "in another file): `edge_types = self.edge_types`, registered "
        "in `__init__` by `self.register_buffer(\"edge_types\", r)` with `r` a parameter; attributes.py reads the "
        "registered value's kind on its own (unknown), although `register_buffer` only takes a tensor. A fixture "
        "with `register_buffer(\"e\", r)` (even `r: torch.Tensor`) is missed, with `self.e = torch.as_tensor(r)` "
        "flagged DYN204 + DYN101. (The dropout branch's `edge_types[edge_keep_mask]` lines are flagged.)"),
    (_PK + "predict.py", "*"): (
        API,
        "`torch.isin(...).cpu()` (`TargetPredictions._contains`, via `filter_triples`) and `scores.tolist()` in "
        "`predict_target`: pykeen.predict's functions the user calls to query a trained model; no package "
        "entry point reaches them"),
    (_PK + "triples/utils.py", "tensor_to_df"): (
        API,
        "`tensor.cpu().numpy()` in `tensor_to_df`, reached from the prediction results' `.process(...).df` the "
        "user calls (pykeen.predict)"),
    (_PK + "training/callbacks.py", "self.optimizer.step()"): (
        HOSTBUILT,
        "`self.optimizer.step()`: Adam's `_get_value(state_steps)` reads its step counter, a host tensor unless "
        "`capturable`/`fused` (all 113 recorded reads host-built); also neutral (a callback method)"),
    (_PK + "training/callbacks.py", "*"): (
        CALLBACK,
        "`clip_grad_norm_(..., error_if_nonfinite=True)` in `GradientNormClippingTrainingCallback.pre_step`: torch "
        "reads `logical_or(norm.isnan(), norm.isinf())` on the host (a sync per step, chosen by pykeen's argument); "
        "the callback is called through `OptimizerTrainingCallback.pre_step_callbacks` and the "
        "`MultiTrainingCallback` container (`callbacks.post_batch(...)` in `_train_epoch`): neutral"),
    (_PK + "training/slcwa.py", "*"): (
        "kind: mask read from a batch dict (`batch.get(\"masks\")`)",
        "`negative_batch = negative_batch[positive_filter]` in `_process_batch_static` (model code, reached from "
        "the lightning module's `_step`): `positive_filter = batch.get(\"masks\")`, the filtered negative "
        "sampler's keep mask carried in the batch dict; its kind is unknown, so the index is not known to be a "
        "mask (`negative_batch = batch[\"negatives\"]` is unknown too). A fixture with the same two lines is "
        "missed; with `positive_filter: torch.BoolTensor` a parameter it is flagged DYN101 [fixed since kinds30: "
        "`batch: SLCWABatch` is a TypedDict (triples/instances.py) declaring `masks: NotRequired[BoolTensor]` "
        "and `negatives: LongTensor`; its items have the declared kinds, across files]"),
    (_PK + "training/training_loop.py", "backward"): (
        BACKWARD,
        "`loss.backward()` in `_forward_pass`: the NSSA and InfoNCE losses re-densify the filtered negatives "
        "with `negative_scores_[batch_filter] = negative_scores` (losses.py:1226, an `index_put_` the recorder "
        "does not count: its output shape is static), whose gradient is `grad[batch_filter]`, a bool-mask "
        "`aten.index` run by autograd; the innermost package frame is the `backward()` call. No line to flag"),
    # -- pytorch_tabnet ------------------------------------------------------------------------
    (_TN + "augmentations.py", "*"): (
        NOQA,
        "`X[idx_to_change] += (1 - random_betas[idx_to_change, None]) * X[index_permute][idx_to_change]"
        ".view(...)  # noqa` (and the `y` line): the line ends in a bare `# noqa` (flake8 E501), which dynlint "
        "honours as a blanket suppression (ruff's semantics); the lines before it (same mask, no noqa) are "
        "flagged DYN101 by the rules that apply everywhere (`SMOTE.__call__` is neutral: a plain class held "
        "in `self.augmentations`)"),
    (_TN + "pretraining.py", "loss.backward()"): (
        BACKWARD,
        "`loss.backward()` in `TabNetPretrainer._train_batch`: the gradient of `batch_stds[batch_stds == 0] = "
        "batch_means[batch_stds == 0]` (metrics.py:46, flagged; its `index_put_` part) is a bool-mask index of "
        "the gradient, run by autograd under the `backward()` call. No line to flag"),
    (_TN, "self._optimizer.step()"): (
        HOSTBUILT,
        "`self._optimizer.step()` (Adam's step counter, a host tensor: every recorded read host-built); the "
        "method is model code (`_train_batch` runs the backward pass)"),
    (_TN, "enumerate(dataloader)"): (
        HOSTBUILT,
        "`for batch_nb, data in enumerate(dataloader)` / `for data in dataloader`: the DataLoader iterator's "
        "`_BaseDataLoaderIter.__init__` draws its base seed with `torch.empty((), dtype=torch.int64).random_()"
        ".item()` (host memory); no device read"),
    (_TN, "for data in dataloader"): (HOSTBUILT, "the DataLoader iterator's base-seed `.item()` (host memory)"),
    (_TN, "batch_logs[\"loss\"]"): (
        "rule gap: `.cpu().numpy().item()`: DYN214 leaves the scalar read to DYN201, which sees a numpy receiver",
        "`batch_logs[\"loss\"] = loss.cpu().detach().numpy().item()` in `_train_batch` (model code: it runs the "
        "backward pass): DYN214 skips `loss.cpu()` because the value is `read_on_host_next` (the `.item()`), "
        "and DYN201 does not fire on `<ndarray>.item()`. A fixture: `loss.cpu().detach().numpy()` is flagged "
        "DYN214, the same with `.item()` appended is not. A device-to-host copy every training step"),
    (_TN + "abstract_model.py", "explain"): (
        FIT_COLD,
        "`value.cpu().detach().numpy()` / `M_explain.cpu()...` in `TabModel.explain`: explain says 'only cold code "
        "in this file calls it' (`_compute_feature_importances`, called by `fit`, cold by name); the user calls "
        "`explain` on every batch to predict"),
    (_TN, "_predict_batch"): (
        FIT_COLD,
        "`scores.cpu().detach().numpy()` in `TabModel._predict_batch`, called only by `_predict_epoch`, called "
        "only by `fit` (cold by name): the validation epoch `fit` runs after every training epoch [since scope29 "
        "`_predict_batch` is the evaluation step of `_predict_epoch`'s loop (evalsteps.py), neutral: its copy is "
        "the bulk hand-off of each batch's predictions, an export left quiet in neutral code by design] [fixed "
        "since scope30 for 593: `fit`'s epoch loop calls `_train_epoch` (whose loop around `_train_batch`'s "
        "backward is the training step) and `_predict_epoch`, the validation epoch, so `_predict_epoch`'s loop "
        "and `_predict_batch` are model code (reach._mark_validation_epochs); 595, `scores.cpu()` in the `else` "
        "of `if isinstance(scores, list):`, stays missed: `scores, _ = self.network(X)` has no tensor kind there] "
        "[595 fixed since leads31: the `else` read the if-body's binding (`scores = [...]`, a list); a name that "
        "held a tensor before the `if` and that the body rebinds to a plain value holds the tensor in the `else` "
        "(paths._else_block)]"),
    (_TN + "pretraining.py", "_predict_epoch"): (
        FIT_COLD,
        "`output.cpu().detach().numpy()` (x3) in `TabNetPretrainer._predict_epoch`, called only by `fit` (cold by "
        "name): the validation epoch [fixed since scope30: `fit`'s epoch loop also runs `_train_epoch`, whose loop "
        "calls the per-batch backward of `_train_batch`; the validation epoch it runs beside it, an inference loop "
        "calling the evaluation step `_predict_batch`, is model code (reach._mark_validation_epochs)]"),
    (_TN, "predict_proba"): (
        API,
        "`Softmax(dim=1)(output).cpu().detach().numpy()` in `predict_proba` (TabNetClassifier, "
        "TabNetMultiTaskClassifier): a public method the user calls, reached from no entry point"),
    (_TN, "predict"): (
        API,
        "`output.cpu().detach().numpy()` in `predict` / `predict_proba` of the sklearn-style estimators "
        "(TabModel, TabNetClassifier, TabNetMultiTaskClassifier, TabNetPretrainer): public methods the user "
        "calls, reached from no entry point (the estimators are plain classes, `BaseEstimator`)"),
}

FP_H = {
    # numpy28: numpy annotations and scipy results are arrays; the four left are these.
    **{(_PK + "metrics/ranking.py", helper + "("): (
        "kind (cross-file): `.item()` of a helper of another file annotated `-> np.ndarray`",
        "`stable_product(...).item()`, `weighted_harmonic_mean(...).item()`, `weighted_median(...).item()` "
        "(ranking.py 970/1090/1333/1418; the helpers in metrics/utils.py are annotated `-> np.ndarray`): the "
        "first walk of ranking.py knows nothing of another file's returns, so the result is a possible "
        "tensor, and the cross-file step (which exports the declared numpy return since numpy28) only adds "
        "findings, never takes one back. A same-file helper with the same annotation is quiet [fixed since "
        "kinds29: a cross-file answer that a value is no tensor withdraws what the first walk found on it; "
        "kept for the first-look report]")
       for helper in ("stable_product", "weighted_harmonic_mean", "weighted_median")},
    (_PK + "metrics/", "*"): (
        NUMPY,
        "`matrix[1, 1].item()`, `(matrix[0, 0] * matrix[1, 1]).item()` (26 lines of "
        "`extract_from_confusion_matrix(self, matrix: numpy.ndarray)`), `stats.gmean(ranks, ...).item()`, "
        "`weighted_median(...).item()`, `num_candidates[mask]` (`num_candidates: np.ndarray`, `mask = inverse == "
        "i` from `np.unique`), `(individual * ...).sum().item()` (`individual: np.ndarray`): pykeen's metrics "
        "run on numpy after the evaluator copied the ranks to the host. `annotation_kind` knows no numpy "
        "annotation (`NON_TENSOR_ANNOTATIONS` lacks `ndarray`), so the parameters stay possible tensors; the "
        "classes are model code through `ConfusionMatrixClassificationMetric.forward` (a plain class's "
        "`forward`) and `RankBasedMetric.__call__`"),
}
