"""Diagnoses of the suite-i misses and executed false alarms (torchrl 0.14.1, sbi 0.27.0) at first look,
written by reading the code, checked with `dynlint check --explain` on the 94 files the runs touched
and, for the kind, form and by-design causes, with a small fixture package holding the same code
(flagged or not by the same dynlint, main 55d8f92). Keys as in misslist.DIAGNOSES: (file prefix,
function or code fragment); the first matching key wins. Cause labels start with their group."""
from __future__ import annotations

_RL = "torchrl/"
_SBI = "sbi/"

HOSTBUILT = "by design: host-built tensor (every recorded read is of host memory in a GPU run too)"
BACKWARD = "by design: ground truth records the gradient of a forward mask index inside `loss.backward()`"
EAGER = "by design: eager-only branch (under a graph guard: never part of a compiled graph)"
PERIODIC = ("by design: a periodic block (`if iter_ % save_best_every == 0 or ...:` in a training step: "
            "paid once per period)")
LIBRARY = ("line attribution: the op runs inside a third-party library the package calls (zuko's ODE "
           "solver, nflows' spline), pinned on the package's call line")
LOG_COLD = "scope: cold by name (`log_*` read as logging)"
RUN_COLD = "scope: cold by name (`run`: an MCMC sampler's loop)"
CTOR = "scope: constructor of a plain class called in the step is cold by name (`__init__`, `__post_init__`)"
SAMPLER_COLD = ("scope: a replay-buffer sampler is cold by its base class (`Sampler`: data loading), though "
                "the training step samples from it and updates its priorities every step")
CALLABLE = ("kind: the result of a callable parameter (`accept_reject_fn(candidates)`, "
            "`potential_fn(theta)`) has no kind")

DIAGNOSES_I = {
    # -- torchrl -------------------------------------------------------------------------------
    (_RL + "collectors/utils.py", "get_traj_and_increment"): (
        "kind: unannotated parameter, callers in another file",
        "`out = torch.arange(v, v + n).to(device)` in `_TrajectoryPool.get_traj_and_increment(self, n=1, "
        "device=None)` (neutral; the `.item()` lines around it are flagged DYN201): `n` defaults to an int and "
        "the collector (collectors/_single.py) passes `traj_sop.sum()`, a 0-d tensor, so `v + n` is a tensor "
        "and `arange` reads its end on the host; no parameter kind comes from a caller in another file"),
    (_RL + "data/replay_buffers/samplers/prioritized.py", "max_p"): (
        SAMPLER_COLD,
        "`elif max_p > cur_max_priority:` / `index[max_p_idx]` in `PrioritizedSampler.update_priority` "
        "(`max_p, max_p_idx = priority.max(dim=0)` of the loss's TD errors, device tensors in a GPU run): "
        "explain: cold, its class derives from `.base.Sampler` (data loading). The SAC/DQN step calls "
        "`rb.update_tensordict_priority(batch)` every step. (scope30: with the class not cold, a copy of the "
        "file whose base is renamed is flagged DYN204 at 654 and at the host-built 521/630/632, not at 657; "
        "`.base.Sampler` is the project's own `class Sampler(ABC)`, so only the cross-file class facts could "
        "tell it from torch's data sampler: not done)"),
    (_RL + "data/replay_buffers/samplers/prioritized.py", "*"): (
        HOSTBUILT,
        "`while zero_weight.any():` (sample: weights read from the C++ sum tree, host memory), `elif not "
        "valid_index.any():` / `elif not valid_index.all():` (update_priority: the sampled indices, host "
        "memory with a host storage); every recorded read host-built. Also cold (a `Sampler` subclass)"),
    (_RL + "data/replay_buffers/samplers/slice.py", "*"): (
        HOSTBUILT,
        "`if (lengths < seq_length).any():` in `SliceSampler._sample_slices`: trajectory lengths computed "
        "from the storage's done flags (a host `LazyTensorStorage`): host-built. Also cold (a `Sampler` subclass)"),
    (_RL + "data/tensor_specs.py", "project"): (
        "scope: a method called on an object taken from a container attribute (`spec = self.spec[key]; "
        "spec.project(action)`) is reached from no entry point",
        "`if is_compiling() or not self.is_in(val):` in `TensorSpec.project` (neutral): called by "
        "`AdditiveGaussianModule` (modules/tensordict_module/exploration.py) as `spec = "
        "self.spec[self.action_key]; action = spec.project(action)` on every exploration step. `Bounded.is_in` "
        "returns `(val >= low).all() and (val <= high).all()` (line 2648, flagged), a 0-d tensor whatever its "
        "`-> bool` annotation says, so `not self.is_in(val)` reads it again"),
    (_RL + "envs/common.py", "if any_done:"): (
        "kind: a method's return joins a tensor (`done.any()`) with a call into another file "
        "(`_terminated_or_truncated(...)`): no kind at the first walk",
        "`any_done = self.any_done(tensordict); if any_done:` in `EnvBase.maybe_reset` (model code, from "
        "`rollout`): `any_done()` returns `done.any()` on the simple-done path (its own `if any_done:` at "
        "4284 is flagged) and `_terminated_or_truncated(...)` (envs/utils.py) otherwise. A fixture with the "
        "same method: flagged DYN204 when the other branch is `False`, quiet when it calls a function of "
        "another file (annotated `-> bool` or not). The rollout's per-step reset check [fixed since kinds30: a "
        "flag that is a bool tensor on one path of an `if` and an unknown call's value on the other stays a bool "
        "tensor after it]"),
    (_RL + "envs/utils.py", "_update_during_reset"): (
        "cross-file: a helper reached only from another file is checked with its parameters' kinds from "
        "the callers, and a value read from a TensorDict (`tensordict.pop(key, None)`) has none",
        "`if reset is None or reset.all():` in `_update_during_reset` (envs/utils.py; model code reached from "
        "common.py's `EnvBase.reset`): `reset = tensordict.pop(reset_key, None)`, the `_reset` mask, with "
        "`tensordict` a TensorDict parameter. Fixtures: the function copied next to a `forward` that calls it "
        "is flagged DYN204; called from a `forward` in another file it is quiet, and so is `if (x > "
        "0).all():` in such a helper unless the caller's argument is a known tensor (`x: torch.Tensor`): "
        "the cross-file step reports a helper's finding only on kinds its callers give"),
    (_RL + "modules/distributions/continuous.py", "*"): (
        CTOR,
        "`if is_compiling() or (self.non_trivial_max or self.non_trivial_min):` in `TanhNormal.__init__` "
        "(`self.non_trivial_max = (high != 1.0).any()` a few lines above): explain: cold by name "
        "(`__init__`); the policy builds a new distribution on every forward, but through tensordict's "
        "`ProbabilisticTensorDictModule` (`distribution_class(**dist_kwargs)`, another package, a class held "
        "in an attribute), so no instantiation in model code makes the constructor model code (a fixture "
        "`Distribution` subclass instantiated by name in a `forward` has its `__init__` checked)"),
    (_RL + "objectives/ppo.py", "self.clip_value"): (
        "kind: a buffer registered through a helper method (`self.register_coeff_buffer(\"clip_value\", v)`, "
        "which calls `self.register_buffer(name, value)`) has no tensor kind",
        "`if self.clip_value:` in `PPOLoss.loss_critic` (model code): `__init__` runs "
        "`self.register_coeff_buffer(\"clip_value\", clip_value, device=device)`, a method of `LossModule` "
        "(objectives/common.py) that converts a float to a tensor and registers it; the attribute is read as "
        "a tensor only when `register_buffer` is called with it directly (reinforce.py 428/467 are flagged "
        "that way). A fixture: `self.register_buffer(\"c\", t)` then `if self.c:` flagged DYN204, through "
        "a same-file `register_coeff_buffer(name, value)` helper quiet. A host read every PPO step "
        "[fixed since buffers29: a method calling `self.register_buffer(<its parameter>, value)` registers "
        "buffers for its callers, across files too; kept for the first-look report]"),
    (_RL + "objectives/value/functional.py", "_geom_series_like"): (
        EAGER,
        "`r = r.item()` in `_geom_series_like` (model code): the `else` of `if is_dynamo_compiling():` "
        "(`eager_only`; a compiled graph takes `rs = r.expand_as(t)`). A fixture without the guard is "
        "flagged DYN201"),
    (_RL + "objectives/value/utils.py", "*"): (
        "kind: a tuple holding a tensor element (`shape = (len(splits), torch.max(splits))`), splatted as "
        "sizes",
        "`empty_tensor = torch.zeros(*shape, *tensor.shape[1:], ...)` in `_split_and_pad_sequence._fill_tensor` "
        "(model code): `shape = (len(splits), max_seq_len)` with `max_seq_len = torch.max(splits)`; the "
        "`torch.arange(max_seq_len, ...)` lines (295, 316) are flagged DYN206, the starred tuple is not "
        "(a fixture: `torch.zeros(*shape)` quiet, in the enclosing function too) [fixed since kinds30: a splatted "
        "argument stands for its items, so a tuple holding a tensor passes a tensor size]"),
    # -- sbi -----------------------------------------------------------------------------------
    (_SBI + "inference/posteriors/vector_field_posterior.py", "*"): (
        LIBRARY,
        "`samples = self.potential_fn.neural_ode(self.potential_fn.x_o).sample(...)` in "
        "`VectorFieldPosterior.sample_via_ode`: the flow-matching posterior samples through zuko's adaptive "
        "ODE solver (`zuko.utils.odeint`), whose step-size control reads the error on the host "
        "(`torch.max(error / tolerance).clip(min=1e-9).item()`, `while sign * (t1 - t) > 0`); no line of sbi reads anything (also neutral)"),
    (_SBI + "inference/potentials/vector_field_potential.py", "*"): (
        LIBRARY,
        "`log_probs = self.flow.log_prob(flow_input)` in `VectorFieldBasedPotential.__call__`: the "
        "probability-flow ODE's log-density, integrated by zuko's adaptive `odeint` (the same step-error reads); no line of sbi reads "
        "anything"),
    (_SBI + "neural_nets/estimators/nflows_flow.py", "*"): (
        LIBRARY,
        "`log_probs = self.net.log_prob(input, context=condition)` in `NFlowsFlow.log_prob`: nflows' "
        "rational-quadratic spline runs `inputs[inside_interval_mask]` and `if torch.min(inputs) < left or "
        "torch.max(inputs) > right:`; the call line holds no op of its own. (Also cold by name: `log_prob` matches `log(_.*)?`)"),
    (_SBI + "inference/trainers/base.py", "backward"): (
        BACKWARD,
        "`train_loss.backward()` in `NeuralInference._train_epoch`: the gradient of the NSF's spline mask "
        "index (`inputs[inside_interval_mask]` inside nflows) is a bool-mask `aten.index` run by autograd "
        "under the `backward()` call. No line to flag"),
    (_SBI + "inference/trainers/base.py", "optimizer.step()"): (
        HOSTBUILT,
        "`self.optimizer.step()` (Adam's step counter, a host tensor: every recorded read host-built); the "
        "method is model code (`_train_epoch` runs the backward pass)"),
    (_SBI + "inference/trainers/base.py", "_validate_epoch"): (
        "scope: cold as a metric (declared `-> float`), though it is the validation epoch `train` runs "
        "after every epoch",
        "`val_loss_sum += val_losses.sum().item()` in `NeuralInference._validate_epoch`: explain: cold, 'it "
        "is declared to return Python floats: a statistic or metric, its reads are its result'; the same "
        "line in `_train_epoch` (1150) is flagged. A host read per validation batch [fixed since scope30: "
        "`train`'s epoch loop calls `_train_epoch` (a training step) and `_validate_epoch`, whose `no_grad` loop "
        "calls on each batch what the training step calls, `self._get_losses(batch=batch)`: the validation "
        "epoch, model code whatever its `-> float` (reach._mark_validation_epochs)]"),
    (_SBI + "neural_nets/estimators/base.py", "compose_enabled"): (
        "scope: cold as a predicate (every return is a Python bool)",
        "`return bool(getattr(self, \"_compose_standardization\", False))` in the `compose_enabled` property "
        "(`register_buffer(\"_compose_standardization\", torch.tensor(False))`): explain: cold, 'every return "
        "is a Python bool ... a predicate, its reads are its answer'; the vector-field estimators read it on "
        "every forward and sample (the buffer is also read through `getattr` with a string)"),
    (_SBI + "neural_nets/estimators/mog.py", "*"): (
        CTOR,
        "`if not torch.all(torch.isfinite(self.logits)):` (and means, precisions, precision factors) in "
        "`MoG.__post_init__`: explain: cold by name (`__post_init__`); `MultivariateGaussianMDN.forward -> "
        "get_mixture_components` builds `MoG(...)` (a dataclass of mog.py) from its outputs on every forward "
        "(model code by explain), and the generated `__init__` runs `__post_init__`: four host reads. A "
        "fixture: a plain class's `__init__` instantiated in a `forward` is checked, a dataclass's "
        "`__post_init__` is not (same file too) [fixed since buffers29: building a dataclass runs its "
        "`__post_init__` in the step, same file and across files; kept for the first-look report]"),
    (_SBI + "samplers/mcmc/slice_numpy.py", "*"): (
        RUN_COLD,
        "`log_probs[c] >= sc[\"logu\"]`, `if outside_lower:`, `if outside_upper:`, `if rejected:` in "
        "`SliceSamplerVectorized.run`: explain: cold by name (`run`); the vectorised slice sampler compares "
        "the potential's log-probabilities (device tensors: the potential runs on the device) per chain and "
        "step, two syncs per slice step. (scope30: not scope alone: a copy with `run` renamed is neutral and "
        "still quiet, `log_probs = self._log_prob_fn(params)`, a callable stored from a parameter, has no kind)"),
    (_SBI + "samplers/rejection/rejection.py", "*"): (
        CALLABLE,
        "`accepted[i].append(candidates_to_reject[are_accepted[:, i], i])` in `accept_reject_sample` (model "
        "code): `are_accepted = accept_reject_fn(candidates)`, a parameter annotated `AcceptRejectFn` (a "
        "Protocol whose `__call__` returns `Tensor`, a bool mask by its docstring). A fixture: the same "
        "index quiet, flagged DYN101 when the mask is `torch.rand(n) > 0.5`"),
    (_SBI + "utils/sbiutils.py", "backward"): (
        BACKWARD,
        "`loss.backward()` in `gradient_ascent` (the rejection sampler's search for the potential's maximum): "
        "the gradient of the NSF likelihood's spline mask index, run by autograd. No line to flag"),
    (_SBI + "utils/sbiutils.py", "optimizer.step()"): (
        HOSTBUILT, "`optimizer.step()` in `gradient_ascent`: Adam's step counter (host memory)"),
    (_SBI + "utils/sbiutils.py", "*"): (
        PERIODIC,
        "`best_theta_iter = optimize_inits[torch.argmax(log_probs_of_optimized)]` (DYN210 form) and `if "
        "best_log_prob_iter > best_log_prob_overall:` in `gradient_ascent` (model code: it runs a backward "
        "pass) sit under `if iter_ % save_best_every == 0 or iter_ == num_iter - 1:`; `_periodic` reads a "
        "`%` test as logging every few steps. A copy of the function with that test replaced by `if True:` is "
        "flagged DYN210 + DYN204 (the runs took it at 2 of 10 iterations)"),
}

FP_I = {
    (_RL + "data/replay_buffers/utils.py", "*"): (
        "unconfirmed: the `.item()` branch of a conditional expression not taken (`dim` given in the runs)",
        "`return result.item() if dim is None else result` in `_reduce` (neutral; DYN201 applies everywhere): "
        "the SAC run's `update_tensordict_priority` calls `_reduce(priority, reduction, dim=1)`; the callers "
        "without `dim` (replay_buffers/tensordict.py:239, prioritized_tensordict.py:371) read the priority "
        "on the host. Right in general"),
    (_RL + "envs/common.py", "*"): (
        "unconfirmed: a short-circuited `and` (the first operand False in the runs)",
        "`if (done_key not in tensordict.keys(True) and done_val[~reset_value].any()):` in "
        "`EnvBase._reset_check_done`: the done key was present in every reset input, so the `.any()` never "
        "ran; a partial reset without it reads the mask on the host (the warning path). Right in general"),
    (_RL + "objectives/ppo.py", "*"): (
        "unconfirmed: a short-circuited `and` (the first operand False in the runs)",
        "`if analytic_entropy and not compiling and not entropy.isfinite().all():` in `PPOLoss._get_entropy`: "
        "TanhNormal has no analytic entropy, so the check never ran; with a Normal or categorical policy it "
        "is a host read every PPO step. Right in general"),
    (_RL + "objectives/a2c.py", "*"): (
        "unconfirmed: an optional buffer registered as None in the runs",
        "`if self.clip_value:` (490, 534) in `A2CLoss.loss_critic` (flagged since buffers29): "
        "`self.register_coeff_buffer(\"clip_value\", clip_value, device=device)` sets the attribute to "
        "`None` for the default (the A2C run sets no value clipping); with a value it is a 0-d buffer and a "
        "host read every step, as ppo.py 960/1000 show in the PPO run. Right in general"),
    (_RL + "objectives/reinforce.py", "*"): (
        "unconfirmed: an optional buffer registered as None in the runs",
        "`if self.clip_value:` in `ReinforceLoss.loss_critic`: `self.register_buffer(\"clip_value\", "
        "clip_value)` with the default `None` (the run sets no value clipping); with a value it is a tensor "
        "and a host read every step, as ppo.py 960/1000 show in the PPO run. Right in general"),
}
