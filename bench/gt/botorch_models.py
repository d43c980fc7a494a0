"""botorch 0.18.1 (Bayesian optimisation on gpytorch 1.15.2 / linear_operator 0.6.1): Gaussian-process
surrogates (SingleTaskGP with input normalisation and outcome standardisation, ModelListGP,
MultiTaskGP, MixedSingleTaskGP), fitted by botorch's own `fit_gpytorch_mll` (scipy L-BFGS-B through its
numpy bridge, or its torch loop), and the acquisition step a BO loop runs every iteration: Monte-Carlo
and analytic acquisition functions (qLogNEI, LogEI, UCB, the one-shot knowledge gradient with its
fantasies, max-value entropy search, qLogNEHVI with its box decompositions), optimised by
`optimize_acqf` (its raw-sample initialisation, `gen_candidates_scipy` / `gen_candidates_torch`,
linear constraints), `optimize_acqf_discrete` and `optimize_acqf_mixed`; Pareto and hypervolume
utilities; Thompson and Boltzmann sampling; preferential BO (PairwiseGP, EUBO). botorch's synthetic test functions (Branin, Hartmann,
BraninCurrin) are the objectives; tiny data (8-16 seeded points), few restarts and iterations,
nothing downloaded.

Installed for suite j in a separate venv (/work/venv_j, which also sees the shared heavy venv's torch
2.14.1, gpytorch and linear_operator through a .pth): botorch 0.18.1 (pyre-extensions, multipledispatch).
Only botorch's files count (gpytorch and linear_operator are its libraries, like torch: an op inside
them is attributed to the botorch frame that called them).

The step is one BO iteration: train: the surrogate's fit (`fit_gpytorch_mll`: the marginal
log-likelihood, backward, the optimizer's steps) or a hand-written Adam step on the MLL; eval: the
acquisition function and its optimisation (the next candidates), with grad enabled as in a script
(`optimize_acqf` differentiates the acquisition value). The training data are step inputs (device
tensors in a GPU run, as `tkwargs = {"device": ...}` puts them); the phase is told by the first
argument.
"""
from __future__ import annotations

import torch

from . import DEVICE, gen, step

D = torch.double


def _tk():
    return {"dtype": D, "device": DEVICE}


def _data(fn, n, seed, noise=0.05):
    """`n` seeded points of a botorch test function on its bounds, with observation noise."""
    from botorch.utils.transforms import unnormalize
    g = gen(seed)
    x = unnormalize(torch.rand(n, fn.dim, generator=g, dtype=D), fn.bounds)
    y = fn(x)
    y = y.unsqueeze(-1) if y.dim() == 1 else y
    return x, y + noise * torch.randn(y.shape, generator=g, dtype=D)


def _gp(x, y, **kw):
    from botorch.models import SingleTaskGP
    from botorch.models.transforms import Normalize, Standardize
    return SingleTaskGP(x, y, input_transform=Normalize(d=x.shape[-1]), outcome_transform=Standardize(m=y.shape[-1]),
                        **kw)


def _setup(fn, n, seed, noise=0.05):
    """`n` noisy points of `fn`, a SingleTaskGP on them, its exact MLL and `fn`'s bounds on the device."""
    from gpytorch.mlls import ExactMarginalLogLikelihood
    x, y = _data(fn, n, seed, noise)
    model = _gp(x, y)
    return x, y, model, ExactMarginalLogLikelihood(model.likelihood, model), fn.bounds.to(**_tk())


def _refit(mll, fit, steps):
    """The train phase of a run whose surrogate is refitted by `fit(mll, steps)` (botorch's fit loop)."""
    def train(*_):
        fit(mll, steps)
        return mll.model.train_targets.detach()
    return train


def _fit_torch(mll, steps=3):
    from botorch.fit import fit_gpytorch_mll
    from botorch.optim.fit import fit_gpytorch_mll_torch
    return fit_gpytorch_mll(mll, optimizer=fit_gpytorch_mll_torch, optimizer_kwargs={"step_limit": steps})


def _fit_scipy(mll, iters=3):
    from botorch.fit import fit_gpytorch_mll
    return fit_gpytorch_mll(mll, optimizer_kwargs={"options": {"maxiter": iters}})


def _bo_step(train, infer, parts, *inputs):
    """The step: `train(*inputs)` in the train phase, `infer(*inputs)` under enable_grad in eval."""
    def run(phase, *xs):
        if phase == "train":
            return train(*xs)
        with torch.enable_grad():
            return infer(*xs)
    return step(run, eval_runs=(("eval", *inputs), {}), train_runs=(("train", *inputs), {}), **parts)


def fit_singletask():
    """SingleTaskGP on Hartmann-6 (16 points): train: `fit_gpytorch_mll` with scipy L-BFGS-B (botorch's
    numpy bridge of the parameters and gradients, the fit's fallback loop); eval: the posterior's mean and
    variance, conditioning on new observations (fantasy-free), the MLL on held-out points."""
    from botorch.test_functions import Hartmann
    from gpytorch.mlls import ExactMarginalLogLikelihood
    torch.manual_seed(0)
    fn = Hartmann(dim=6)
    x, y = _data(fn, 16, 101)
    model = _gp(x, y)
    mll = ExactMarginalLogLikelihood(model.likelihood, model)
    xt, yt = _data(fn, 4, 102)

    def train(x, y, xt, yt):
        _fit_scipy(mll)
        return mll.model.train_targets.detach()

    def infer(x, y, xt, yt):
        model.eval()
        post = model.posterior(xt, observation_noise=True)
        cond = model.condition_on_observations(model.transform_inputs(xt), yt)
        return post.mean, post.variance, cond.posterior(x[:3]).mean
    return _bo_step(train, infer, {"model": model}, x, y, xt, yt)


def qlognei_optimize():
    """qLogNoisyExpectedImprovement on Branin (a noisy SingleTaskGP, Sobol QMC sampler, pruned baseline),
    optimised jointly for q=2 by `optimize_acqf` (raw-sample initial conditions, L-BFGS-B through
    `gen_candidates_scipy`); train: the torch fit loop (`fit_gpytorch_mll_torch`, Adam, stopping rule)."""
    from botorch.acquisition import qLogNoisyExpectedImprovement
    from botorch.optim import optimize_acqf
    from botorch.sampling import SobolQMCNormalSampler
    from botorch.test_functions import Branin
    torch.manual_seed(1)
    x, y, model, mll, bounds = _setup(Branin(negate=True), 10, 111, noise=0.5)
    _fit_torch(mll, 2)

    def infer(x, y):
        model.eval()
        acq = qLogNoisyExpectedImprovement(model, X_baseline=x, sampler=SobolQMCNormalSampler(torch.Size([32])),
                                           prune_baseline=True)
        return optimize_acqf(acq, bounds=bounds, q=2, num_restarts=2, raw_samples=16,
                             options={"maxiter": 4, "batch_limit": 2})
    return _bo_step(_refit(mll, _fit_torch, 3), infer, {"model": model}, x, y)


def analytic_constrained():
    """Analytic LogExpectedImprovement and UpperConfidenceBound on Hartmann-6: `optimize_acqf` by
    `gen_candidates_torch` and, under a linear inequality constraint (sum of two inputs), by scipy SLSQP;
    `optimize_acqf_discrete` (qUCB, q=2, sequential) over a candidate set; `optimize_acqf_mixed` over fixed features. Train:
    an Adam step written out on the negative MLL (forward, loss, backward)."""
    from botorch.acquisition import LogExpectedImprovement, UpperConfidenceBound, qUpperConfidenceBound
    from botorch.generation.gen import gen_candidates_torch
    from botorch.optim import optimize_acqf, optimize_acqf_discrete, optimize_acqf_mixed
    from botorch.test_functions import Hartmann
    from gpytorch.mlls import ExactMarginalLogLikelihood
    torch.manual_seed(2)
    fn = Hartmann(dim=6, negate=True)
    x, y = _data(fn, 12, 121)
    model = _gp(x, y)
    mll = ExactMarginalLogLikelihood(model.likelihood, model)
    opt = torch.optim.Adam(model.parameters(), 0.05)
    bounds = fn.bounds.to(**_tk())
    ineq = [(torch.tensor([0, 1], device=DEVICE), torch.tensor([-1.0, -1.0], **_tk()), -1.2)]
    choices = torch.rand(24, 6, generator=gen(122), dtype=D).to(DEVICE)

    def train(x, y):
        model.train()
        out = model(*model.train_inputs)
        loss = -mll(out, model.train_targets, *model.train_inputs)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.detach()

    def infer(x, y):
        model.eval()
        ei = LogExpectedImprovement(model, best_f=y.max())
        ucb = UpperConfidenceBound(model, beta=0.2)
        a = optimize_acqf(ei, bounds=bounds, q=1, num_restarts=2, raw_samples=16,
                          gen_candidates=gen_candidates_torch, options={"maxiter": 4})
        b = optimize_acqf(ucb, bounds=bounds, q=1, num_restarts=2, raw_samples=16, inequality_constraints=ineq,
                          options={"maxiter": 4})
        c = optimize_acqf_discrete(qUpperConfidenceBound(model, beta=0.2), q=2, choices=choices)
        d = optimize_acqf_mixed(ei, bounds=bounds, q=1, num_restarts=2, raw_samples=8,
                                fixed_features_list=[{5: 0.0}, {5: 1.0}], options={"maxiter": 3})
        return a, b, c, d
    return _bo_step(train, infer, {"model": model}, x, y)


def knowledge_gradient():
    """The one-shot qKnowledgeGradient (4 fantasies: `model.fantasize` with a SobolQMC sampler, the
    inner posterior-mean maximisation) optimised by `optimize_acqf` (its KG initial conditions);
    train: the torch fit loop."""
    from botorch.acquisition import qKnowledgeGradient
    from botorch.optim import optimize_acqf
    from botorch.test_functions import Branin
    torch.manual_seed(3)
    x, y, model, mll, bounds = _setup(Branin(negate=True), 8, 131, noise=0.5)

    def infer(x, y):
        model.eval()
        kg = qKnowledgeGradient(model, num_fantasies=4)
        return optimize_acqf(kg, bounds=bounds, q=1, num_restarts=2, raw_samples=8, options={"maxiter": 3})
    return _bo_step(_refit(mll, _fit_torch, 2), infer, {"model": model}, x, y)


def mobo_qnehvi():
    """Multi-objective BO on BraninCurrin: a ModelListGP of two SingleTaskGPs (train: `fit_gpytorch_mll`
    on the SumMarginalLogLikelihood, torch loop); eval: qLogNoisyExpectedHypervolumeImprovement (pruned
    baseline, box decompositions) optimised for q=2, qLogExpectedHypervolumeImprovement over a
    FastNondominatedPartitioning, the Pareto front (`is_non_dominated`) and its hypervolume."""
    from botorch.acquisition.multi_objective import (
        qLogExpectedHypervolumeImprovement, qLogNoisyExpectedHypervolumeImprovement)
    from botorch.models import ModelListGP
    from botorch.optim import optimize_acqf
    from botorch.sampling import SobolQMCNormalSampler
    from botorch.test_functions.multi_objective import BraninCurrin
    from botorch.utils.multi_objective.box_decompositions import FastNondominatedPartitioning
    from botorch.utils.multi_objective.hypervolume import Hypervolume
    from botorch.utils.multi_objective.pareto import is_non_dominated
    from gpytorch.mlls import SumMarginalLogLikelihood
    torch.manual_seed(4)
    fn = BraninCurrin(negate=True)
    x, y = _data(fn, 10, 141, noise=0.1)
    model = ModelListGP(_gp(x, y[:, :1]), _gp(x, y[:, 1:]))
    mll = SumMarginalLogLikelihood(model.likelihood, model)
    ref = fn.ref_point.to(**_tk())
    bounds = fn.bounds.to(**_tk())

    def train(x, y):
        _fit_torch(mll, 2)
        return torch.stack([m.train_targets.detach() for m in model.models])

    def infer(x, y):
        model.eval()
        nehvi = qLogNoisyExpectedHypervolumeImprovement(model, ref_point=ref.tolist(), X_baseline=x,
                                                        sampler=SobolQMCNormalSampler(torch.Size([16])),
                                                        prune_baseline=True)
        a = optimize_acqf(nehvi, bounds=bounds, q=2, num_restarts=1, raw_samples=4,
                          options={"maxiter": 2, "batch_limit": 1}, sequential=True)
        pareto = y[is_non_dominated(y)]
        part = FastNondominatedPartitioning(ref_point=ref, Y=y)
        ehvi = qLogExpectedHypervolumeImprovement(model, ref_point=ref, partitioning=part,
                                                  sampler=SobolQMCNormalSampler(torch.Size([16])))
        b = ehvi(x[:4].unsqueeze(1))
        hv = Hypervolume(ref_point=ref).compute(pareto)
        return a, b, hv, part.compute_hypervolume()
    return _bo_step(train, infer, {"model": model}, x, y)


def max_value_entropy():
    """Max-value entropy search (qMaxValueEntropy: Gumbel sampling of the maximum over a candidate set,
    fantasised observation noise) and its lower bound (qLowerBoundMaxValueEntropy) on Branin, evaluated
    on a batch and optimised; train: the scipy fit."""
    from botorch.acquisition.max_value_entropy_search import qLowerBoundMaxValueEntropy, qMaxValueEntropy
    from botorch.optim import optimize_acqf
    from botorch.test_functions import Branin
    torch.manual_seed(5)
    x, y, model, mll, bounds = _setup(Branin(negate=True), 10, 151, noise=0.5)
    cand = (bounds[0] + (bounds[1] - bounds[0]) * torch.rand(64, 2, generator=gen(152), dtype=D)).to(DEVICE)

    def infer(x, y):
        model.eval()
        mes = qMaxValueEntropy(model, candidate_set=cand, num_mv_samples=4)
        gibbon = qLowerBoundMaxValueEntropy(model, candidate_set=cand, num_mv_samples=4)
        a = mes(x[:3].unsqueeze(1))
        b = optimize_acqf(gibbon, bounds=bounds, q=1, num_restarts=2, raw_samples=8, options={"maxiter": 3})
        return a, b
    return _bo_step(_refit(mll, _fit_scipy, 2), infer, {"model": model}, x, y)


def multitask_mixed():
    """A MultiTaskGP (task feature in the last column, two tasks) and a MixedSingleTaskGP (a categorical
    input) trained by an Adam step written out on their MLLs; eval: their posteriors, qLogNEI of the
    multi-task model for the target task."""
    from botorch.acquisition import qLogNoisyExpectedImprovement
    from botorch.models import MixedSingleTaskGP, MultiTaskGP
    from gpytorch.mlls import ExactMarginalLogLikelihood
    torch.manual_seed(6)
    g = gen(161)
    xa = torch.rand(12, 3, generator=g, dtype=D)
    task = (torch.arange(12) % 2).to(D).unsqueeze(-1)
    xt = torch.cat([xa, task], -1)
    yt = (xa.sum(-1, keepdim=True) + 0.3 * task + 0.05 * torch.randn(12, 1, generator=g, dtype=D))
    xm = torch.cat([torch.rand(12, 2, generator=g, dtype=D), torch.randint(0, 3, (12, 1), generator=g).to(D)], -1)
    ym = torch.sin(3 * xm[:, :1]) + xm[:, 2:] + 0.05 * torch.randn(12, 1, generator=g, dtype=D)
    mt = MultiTaskGP(xt, yt, task_feature=-1, output_tasks=[0])
    mixed = MixedSingleTaskGP(xm, ym, cat_dims=[2])
    mlls = [ExactMarginalLogLikelihood(m.likelihood, m) for m in (mt, mixed)]
    opt = torch.optim.Adam(list(mt.parameters()) + list(mixed.parameters()), 0.05)

    def train(xt, yt, xm, ym):
        total = 0
        for m, mll in zip((mt, mixed), mlls):
            m.train()
            out = m(*m.train_inputs)
            total = total - mll(out, m.train_targets, *m.train_inputs).sum()
        opt.zero_grad()
        total.backward()
        opt.step()
        return total.detach()

    def infer(xt, yt, xm, ym):
        mt.eval()
        mixed.eval()
        a = mt.posterior(xt[:4, :3]).mean
        b = mixed.posterior(xm[:4]).variance
        acq = qLogNoisyExpectedImprovement(mt, X_baseline=xt[:6, :3])
        return a, b, acq(xt[:3, :3].unsqueeze(1))
    return _bo_step(train, infer, {"mt": mt, "mixed": mixed}, xt, yt, xm, ym)


def sampling_strategies():
    """Candidate generation without gradients on Hartmann-6: Thompson sampling (`MaxPosteriorSampling`
    over a Sobol candidate set, as TuRBO does), `BoltzmannSampling` of an acquisition's values, a
    trust-region-style candidate set from `draw_sobol_samples`, and points of a polytope by hit-and-run
    (`HitAndRunPolytopeSampler` for a linear inequality); train: the torch fit loop."""
    from botorch.acquisition import UpperConfidenceBound
    from botorch.generation.sampling import BoltzmannSampling, MaxPosteriorSampling
    from botorch.test_functions import Hartmann
    from botorch.utils.sampling import HitAndRunPolytopeSampler, draw_sobol_samples
    torch.manual_seed(7)
    x, y, model, mll, bounds = _setup(Hartmann(dim=6, negate=True), 12, 171)

    def infer(x, y):
        model.eval()
        best = x[y.argmax()]
        lb = (best - 0.1).clamp(0, 1)
        ub = (best + 0.1).clamp(0, 1)
        cand = draw_sobol_samples(bounds=torch.stack([lb, ub]), n=64, q=1).squeeze(1)
        ts = MaxPosteriorSampling(model=model, replacement=False)(cand, num_samples=2)
        bz = BoltzmannSampling(UpperConfidenceBound(model, beta=0.1), eta=2.0)(cand.unsqueeze(1), num_samples=3)
        poly = HitAndRunPolytopeSampler(inequality_constraints=(-torch.ones(1, 6, **_tk()),
                                                                torch.full((1, 1), -2.0, **_tk())),
                                        bounds=bounds, n_burnin=20, seed=3)
        return ts, bz, poly.draw(8)
    return _bo_step(_refit(mll, _fit_torch, 2), infer, {"model": model}, x, y)


def preference_pairwise():
    """Preferential BO: a PairwiseGP on pairwise comparisons (its Laplace approximation: the utility's MAP
    by scipy's `fsolve` / the Newton updates, the likelihood's winner/loser indices), fitted by
    `fit_gpytorch_mll` on the PairwiseLaplaceMarginalLogLikelihood; eval: the posterior, AnalyticEUBO
    (expected utility of the best option) and qEUBO optimised over a pair of candidates."""
    from botorch.acquisition.preference import AnalyticExpectedUtilityOfBestOption, qExpectedUtilityOfBestOption
    from botorch.models.pairwise_gp import PairwiseGP, PairwiseLaplaceMarginalLogLikelihood
    from botorch.optim import optimize_acqf
    torch.manual_seed(8)
    g = gen(181)
    x = torch.rand(8, 3, generator=g, dtype=D)
    u = (x - 0.5).pow(2).sum(-1).neg() + 0.05 * torch.randn(8, generator=g, dtype=D)
    pairs = torch.tensor([[0, 1], [2, 3], [4, 5], [6, 7], [1, 2], [3, 4], [5, 6], [0, 7]])
    comp = torch.where((u[pairs[:, 0]] >= u[pairs[:, 1]]).unsqueeze(-1), pairs, pairs.flip(-1))
    model = PairwiseGP(x, comp)
    mll = PairwiseLaplaceMarginalLogLikelihood(model.likelihood, model)
    bounds = torch.stack([torch.zeros(3, **_tk()), torch.ones(3, **_tk())])

    def train(x, comp):
        _fit_scipy(mll, 2)
        return model.utility.detach()

    def infer(x, comp):
        model.eval()
        post = model.posterior(x[:4])
        eubo = AnalyticExpectedUtilityOfBestOption(pref_model=model)
        a = eubo(x[:6].view(3, 2, 3))
        b = optimize_acqf(qExpectedUtilityOfBestOption(pref_model=model), bounds=bounds, q=2, num_restarts=2,
                          raw_samples=8, options={"maxiter": 3})
        return post.mean, a, b
    return _bo_step(train, infer, {"model": model}, x, comp)


MODELS = {
    "botorch_fit_singletask": fit_singletask,
    "botorch_qlognei_optimize": qlognei_optimize,
    "botorch_analytic_constrained": analytic_constrained,
    "botorch_knowledge_gradient": knowledge_gradient,
    "botorch_mobo_qnehvi": mobo_qnehvi,
    "botorch_max_value_entropy": max_value_entropy,
    "botorch_multitask_mixed": multitask_mixed,
    "botorch_sampling_strategies": sampling_strategies,
    "botorch_preference_pairwise": preference_pairwise,
}
