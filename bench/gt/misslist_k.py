"""Diagnoses of the suite-k misses and executed false alarms (k-diffusion 0.1.1.post1, normflows 1.7.3) at first
look, written by reading the code and checked with `dynlint check --explain` on both packages (main 8533cf6 =
c4bfcd8 for dynlint and rules); the kind causes marked "fixture" were checked with a small fixture package holding
the same code (flagged or not by the same dynlint). Keys as in misslist.DIAGNOSES: (file prefix, function or code
fragment); the first matching key wins. Cause labels start with their group.

The first look has no executed false alarm; FP_K lists those after it."""
from __future__ import annotations

_KD = "k_diffusion/"
_NF = "normflows/"

SIGMAS = ("kind: a public sampler's parameter (`sigmas`, the schedule the user's script passes; no caller in the "
          "package) has no kind, so its elements compared in Python are not known tensors (fixture)")
SIGMAS_ARGS = ("kind: the arguments come from a public sampler's `sigmas` parameter (no kind), so the helper's "
               "parameters learn nothing from its callers (fixture: flagged DYN209 when the caller's schedule is a "
               "local `torch.linspace`)")
SIGMAS_TUPLE = ("kind: the unpacked return of a same-file helper whose elements derive from its arguments "
                "(`sigma_down, sigma_up = get_ancestral_step(sigmas[i], sigmas[i + 1], eta=eta)`): no return kind per "
                "call site, and the arguments come from the `sigmas` parameter (fixture: quiet even with a local "
                "`torch.linspace` schedule)")
LOCAL_INSTANCE = ("kind: arguments passed to a method of a locally built instance of a same-file class "
                  "(`pid = PIDStepSizeController(...); pid.propose_step(error)`, `dpm_solver = DPMSolver(...); "
                  "dpm_solver.dpm_solver_fast(x, dpm_solver.t(torch.tensor(sigma_max)), ...)`) do not reach the "
                  "method's parameters (fixture: the same call to a plain function is flagged)")
CALLABLE_ATTR = ("kind: the values come through a callable held in an attribute (`self.transform(torch.as_tensor("
                 "sigma))`, an identity lambda by default), so `BatchedBrownianTree`'s parameters have no kind")
TORCHSDE = ("line attribution: the op runs inside torchsde (`BrownianTree` construction and queries compare its "
            "times in Python), pinned on k-diffusion's call line")
SPLINE_PARAMS = ("kind: the spline's tensor parameters (`inputs`, `unnormalized_widths`, ...) get no kind from their "
                 "callers in other files: the call goes through a local alias (`spline_fn = "
                 "splines.unconstrained_rational_quadratic_spline; spline_fn(inputs=inputs, ...)`) and the argument is "
                 "itself a parameter passed down from `forward` (fixture: a call through a local alias is quiet even with "
                 "a `torch.relu(x)` argument; a `forward` parameter passed straight to a function in another file is "
                 "quiet, in the same file flagged; a direct call with `torch.relu(x)` flags it)")

DIAGNOSES_K = {
    # -- k-diffusion: kind (the samplers' `sigmas`) ------------------------------------------------
    (_KD + "sampling.py", "get_ancestral_step"): (
        SIGMAS_ARGS,
        "`sigma_up = min(sigma_to, eta * (...) ** 0.5)` in `get_ancestral_step` (model code, reached from every "
        "ancestral sampler): builtin `min` of two 0-d tensors is a `bool(t)`; the callers pass `sigmas[i]`, "
        "`sigmas[i + 1]` of their `sigmas` parameter"),
    (_KD + "sampling.py", "if sigma_down == 0:"): (
        SIGMAS_TUPLE,
        "`if sigma_down == 0:` in `sample_dpm_2_ancestral` / `sample_dpmpp_2s_ancestral` (model code: they call "
        "`model`)"),
    (_KD + "sampling.py", "s_tmin <= sigmas[i] <= s_tmax"): (
        SIGMAS,
        "`gamma = ... if s_tmin <= sigmas[i] <= s_tmax else 0.` in `sample_euler` / `sample_heun` / `sample_dpm_2` "
        "(model code, entry point by calling `model`): the churn window tests a schedule element every step"),
    (_KD + "sampling.py", "sigmas[i + 1]"): (
        SIGMAS,
        "`if sigmas[i + 1] > 0:` / `if sigmas[i + 1] == 0:` (the last step of every sampler: Euler-ancestral, Heun, "
        "DPM-2, DPM-Solver++ 2S/SDE/2M/2M-SDE/3M-SDE; model code): each test reads a schedule element on the host. "
        "In `sample_dpmpp_sde`, `_2m_sde` and `_3m_sde` the same function mask-indexes `sigmas[sigmas > 0]` (flagged "
        "DYN101), a use that only an array takes"),
    # -- k-diffusion: kind (methods of local instances, callable attributes) -------------------------
    # (First-look causes: found since session 31, summaries.LocalCalls.local_methods binds
    # `pid.propose_step(error)` and `dpm_solver.dpm_solver_fast/_adaptive(x, dpm_solver.t(...), ...)`
    # like calls of functions of the file, so sampling.py 319/390/432/434/443/445 and
    # `get_ancestral_step`'s 56, reached from the solver's `get_ancestral_step(self.sigma(t), ...)`,
    # are flagged.)
    (_KD + "sampling.py", "propose_step"): (
        LOCAL_INSTANCE,
        "`inv_error = 1 / (float(error) + self.eps)` in `PIDStepSizeController.propose_step` (model code from "
        "`DPMSolver.dpm_solver_adaptive`): `error = torch.linalg.norm(...) / x.numel() ** 0.5`, a 0-d tensor"),
    (_KD + "sampling.py", "dpm_solver_fast"): (
        LOCAL_INSTANCE,
        "`if not t_end > t_start and eta:` in `DPMSolver.dpm_solver_fast` (model code: an nn.Module method): "
        "`t_start`/`t_end` are `dpm_solver.t(torch.tensor(sigma_max))`, i.e. `-sigma.log()`, from "
        "`sample_dpm_fast`"),
    (_KD + "sampling.py", "dpm_solver_adaptive"): (
        LOCAL_INSTANCE,
        "`forward = t_end > t_start`, then `if not forward and eta:`, `h_init = abs(h_init) * (1 if forward else "
        "-1)`, `while s < t_end - 1e-5 if forward else ...:` and `t = torch.minimum(...) if forward else ...` in "
        "`DPMSolver.dpm_solver_adaptive` (model code): the adaptive loop's condition and direction read 0-d "
        "tensors every step; the times reach the method as in `dpm_solver_fast`"),
    (_KD + "sampling.py", "BatchedBrownianTree.sort"): (
        CALLABLE_ATTR,
        "`return (a, b, 1) if a < b else (b, a, -1)` in the static `BatchedBrownianTree.sort` (model code from "
        "the SDE samplers), called with the noise sampler's `t0, t1` on every query"),
    # -- k-diffusion: line attribution ----------------------------------------------------------------
    (_KD + "sampling.py", "torchsde.BrownianTree"): (
        TORCHSDE,
        "`self.trees = [torchsde.BrownianTree(t0, w0, t1, entropy=s, **kwargs) for s in seed]` (12 reads inside "
        "torchsde's constructor)"),
    (_KD + "sampling.py", "tree(t0, t1)"): (
        TORCHSDE,
        "`w = torch.stack([tree(t0, t1) for tree in self.trees]) * ...` in `BatchedBrownianTree.__call__` (30 reads "
        "inside torchsde's interval search)"),
    (_KD + "sampling.py", "odeint("): (
        "line attribution: the op runs inside torchdiffeq (dopri5's step-size control), pinned on the call line",
        "`sol = odeint(ode_fn, x_min, t, atol=atol, rtol=rtol, method='dopri5')` in `log_likelihood`: 108 host "
        "reads and a `unique` of the time grid inside torchdiffeq (4 of the reads host-built). Also cold by name "
        "(`log_likelihood`)"),
    (_KD + "evaluation.py", "torch.cov"): (
        "line attribution: the op runs inside torch (`torch.cov` dispatches `aten.equal`), pinned on the call line",
        "`x_cov = torch.cov(x.T)` / `y_cov = torch.cov(y.T)` in `fid` (neutral: public API no code of the package "
        "calls; k-diffusion's train.py calls it): the data-dependent `aten.equal` runs inside torch's composite "
        "`cov`"),
    # -- k-diffusion: scope -------------------------------------------------------------------------
    (_KD + "sampling.py", "if sigma_min <= 0 or sigma_max <= 0:"): (
        "scope: neutral public sampler that hands `model` to a solver object instead of calling it in its own "
        "loop (the samplers whose loop calls `model(...)` are drivers, hence model code)",
        "`if sigma_min <= 0 or sigma_max <= 0:` in `sample_dpm_fast` / `sample_dpm_adaptive` (explain: reached from "
        "no entry point; the other samplers call `model(...)` and are model code). The parameters are the user's "
        "0-d tensors (`model.sigma_min`, a wrapper's buffer), so the kind is unknown too"),
    (_KD + "sampling.py", "log_likelihood"): (
        "scope: cold by name (`log_likelihood`)",
        "`ll_prior = torch.distributions.Normal(0, sigma_max).log_prob(latent)...` in `log_likelihood` (explain: "
        "cold by name): the distribution validates `latent` (a device tensor) at `log_prob`; 2 of the 3 reads check "
        "the host-built `Normal(0, sigma_max)` parameters"),
    # -- k-diffusion: by design ---------------------------------------------------------------------
    (_KD + "utils.py", "rand_log_normal"): (
        "by design: host-built tensor (every recorded read is of host memory in a GPU run too)",
        "`torch.distributions.Normal(loc, scale).icdf(u).exp()` in `rand_log_normal` (neutral): both reads are the "
        "distribution's validation of `loc`/`scale`, Python floats made host tensors; the device sample `u` is not "
        "validated by `icdf`"),
    # -- normflows: kind ----------------------------------------------------------------------------
    (_NF + "utils/splines.py", "ind_circ"): (
        "by design: a Python list of bools as index (`[t == \"circular\" for t in tails]`): a constant of the flow's "
        "configuration, the same shape on every call",
        "`unnormalized_derivatives_[..., ind_circ, -1] = unnormalized_derivatives_[..., ind_circ, 0]` in "
        "`unconstrained_rational_quadratic_spline` (circular-coupling tails): torch turns the list into a bool index "
        "tensor on the host, so the recorder sees a mask index whose mask no data decides"),
    (_NF + "utils/splines.py", "*"): (
        SPLINE_PARAMS,
        "`outputs[outside_interval_mask] = inputs[outside_interval_mask]`, `inputs=inputs[inside_interval_mask]`, "
        "`unnormalized_widths[inside_interval_mask, :]`, `unnormalized_heights[inside_interval_mask, :]` in "
        "`unconstrained_rational_quadratic_spline` (explain: model code reached from another file, through "
        "`MaskedPiecewiseRationalQuadraticAutoregressive._elementwise`): the mask is a comparison of `inputs`; "
        "the same statement's `unnormalized_derivatives_[inside_interval_mask, :]` (a local `F.pad`) and "
        "`tail_bound_[inside_interval_mask]` (a local `broadcast_to`) are flagged DYN101"),
    # -- normflows: scope ---------------------------------------------------------------------------
    (_NF + "utils/eval.py", "*"): (
        "scope: cold by name (`bitsPerDimDataset`: an evaluation loop over a data loader)",
        "`b_np = b_.to(\"cpu\").numpy()` in `bitsPerDimDataset` (explain: cold by name): the per-batch bits per dim "
        "copied to numpy to sum NaN-aware, once per batch of an evaluation pass; DYN214 is a model-code rule"),
}

FP_K = {
    (_KD + "sampling.py", "torch.linspace(t_start, t_end"): (
        "ground truth blind spot: a host read inside an ATen kernel",
        "`ts = torch.linspace(t_start, t_end, m + 1, device=x.device)` in `DPMSolver.dpm_solver_fast` (DYN206 "
        "since the local-instance change: `t_start`/`t_end` are `dpm_solver.t(...)`, 0-d tensors): eager ATen's "
        "`linspace(Tensor start, Tensor end, steps)` runs `aten::item` / `_local_scalar_dense` on both (the "
        "profiler shows them under `aten::linspace`), below the recorder's dispatch mode, which sees only "
        "`aten.linspace.Tensor_Tensor`; as pytorch-metric-learning's `get_bins` in suite g"),
}
