"""gpytorch 1.15.2 with linear_operator 0.6.1 (Gaussian processes; the structured linear algebra
under them): the models of gpytorch's tutorials, tiny (20-40 training points, 1-2 input
dimensions), random hyperparameters as initialised, seeded synthetic data; nothing is downloaded.
Both packages count (gpytorch's models, likelihoods and marginal log likelihoods call into
linear_operator for every solve, log-determinant, Cholesky and root decomposition).

The step is a training step -- `loss = -mll(model(train_x), train_y)`, `loss.backward()`, and
for the natural-gradient run an optimizer step -- or, in eval, a prediction
`likelihood(model(test_x))` with its mean, variance, confidence region and metrics. The training
data are step inputs (the same tensor objects the ExactGP holds, so they are on the device as in a
GPU run).

Already installed in the shared venv for suite g (first look, issue 9; not installed by this
session): gpytorch 1.15.2, linear_operator 0.6.1 (jaxtyping, mpmath, scipy were there).

* Exact GP regression (the "simple GP regression" tutorial): ConstantMean, ScaleKernel(RBF with a
  Gamma lengthscale prior) + ScaleKernel(Periodic), GaussianLikelihood with a GreaterThan noise
  constraint, ExactMarginalLogLikelihood (Cholesky: n < max_cholesky_size); eval: predictive mean,
  variance, `confidence_region`, samples, and gpytorch.metrics (MAE, MSE, SMSE, NLPD, MSLL,
  quantile coverage), then again under `fast_pred_var` (LOVE: Lanczos).
* The same model on the iterative path: `max_cholesky_size(0)` (CG solves with the pivoted-Cholesky
  preconditioner, stochastic Lanczos quadrature for the log-determinant), `cg_tolerance`,
  `fast_computations`; eval with `fast_pred_var` and `skip_posterior_variances`.
* Ill-conditioned and missing data: duplicated inputs with a tiny noise floor and a long
  lengthscale in float32 (the Cholesky fails and `psd_safe_cholesky` retries with jitter),
  `cholesky_jitter`; NaN targets under `observation_nan_policy("mask")`;
  FixedNoiseGaussianLikelihood (heteroskedastic, `learn_additional_noise`) with a Matern-5/2
  kernel.
* Variational GPs (the SVGP tutorial): inducing points with `learn_inducing_locations`,
  CholeskyVariationalDistribution + VariationalStrategy, VariationalELBO, PredictiveLogLikelihood,
  GammaRobustVariationalELBO; classification with MeanField + UnwhitenedVariationalStrategy and a
  BernoulliLikelihood (Gauss-Hermite quadrature); NaturalVariationalDistribution trained with
  `gpytorch.optim.NGD` + Adam; multitask SVGPs with IndependentMultitask and LMC strategies.
* Multitask and structured exact GPs: MultitaskMean/MultitaskKernel (Kronecker) with a
  MultitaskGaussianLikelihood; deep kernel learning (an MLP feature extractor, ScaleToBounds,
  GridInterpolationKernel: KISS-GP); Dirichlet GP classification (a batch of per-class GPs on
  DirichletClassificationLikelihood targets); SpectralMixtureKernel (initialised from the data in
  the builder).

Not covered: KeOps kernels, the pyro integration, deep GPs, GPLVM, multi-device kernels.
"""
from __future__ import annotations

import math

import torch

from . import gen, step


def _x(n, seed, d=1, lo=0.0, hi=1.0):
    x = torch.rand(n, d, generator=gen(seed)) * (hi - lo) + lo
    return x.squeeze(-1) if d == 1 else x


def _f(x):
    return torch.sin(2 * math.pi * x) + 0.5 * torch.cos(5 * x)


def _y(x, seed, noise=0.1):
    base = _f(x) if x.dim() == 1 else _f(x).sum(-1)
    return base + noise * torch.randn(base.shape, generator=gen(seed))


def _exact(train_x, train_y, likelihood, covar, mean=None):
    import gpytorch

    class ExactGPModel(gpytorch.models.ExactGP):
        def __init__(self):
            super().__init__(train_x, train_y, likelihood)
            self.mean_module = mean if mean is not None else gpytorch.means.ConstantMean()
            self.covar_module = covar

        def forward(self, x):
            return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))
    return ExactGPModel()


def _predict_and_score(likelihood, model, test_x, test_y):
    import gpytorch
    pred = likelihood(model(test_x))
    lower, upper = pred.confidence_region()
    samples = pred.sample(torch.Size([3]))
    scores = [gpytorch.metrics.mean_absolute_error(pred, test_y),
              gpytorch.metrics.mean_squared_error(pred, test_y, squared=True),
              gpytorch.metrics.standardized_mean_squared_error(pred, test_y),
              gpytorch.metrics.negative_log_predictive_density(pred, test_y),
              gpytorch.metrics.mean_standardized_log_loss(pred, test_y),
              gpytorch.metrics.quantile_coverage_error(pred, test_y, quantile=95.0)]
    return pred.mean, pred.variance, lower, upper, samples, scores


def exact_regression():
    import gpytorch
    from gpytorch import constraints, kernels, likelihoods, mlls, priors
    train_x, test_x = _x(30, 901), torch.linspace(0, 1, 12)
    train_y, test_y = _y(train_x, 902), _y(test_x, 903)
    likelihood = likelihoods.GaussianLikelihood(noise_constraint=constraints.GreaterThan(1e-4))
    covar = (kernels.ScaleKernel(kernels.RBFKernel(lengthscale_prior=priors.GammaPrior(3.0, 6.0)),
                                 outputscale_prior=priors.GammaPrior(2.0, 0.15))
             + kernels.ScaleKernel(kernels.PeriodicKernel()))
    model = _exact(train_x, train_y, likelihood, covar)
    mll = mlls.ExactMarginalLogLikelihood(likelihood, model)

    def run(train_x, train_y, test_x, test_y):
        if model.training:
            loss = -mll(model(train_x), train_y)
            loss.backward()
            return loss.detach()
        with torch.no_grad():
            out = _predict_and_score(likelihood, model, test_x, test_y)
            with gpytorch.settings.fast_pred_var():
                model.prediction_strategy = None       # rebuild the caches under LOVE
                fast = likelihood(model(test_x))
                return out, fast.mean, fast.variance
    args = ((train_x, train_y, test_x, test_y), {})
    return step(run, eval_runs=args, train_runs=args, model=model, likelihood=likelihood)


def exact_cg():
    import gpytorch
    from gpytorch import kernels, likelihoods, mlls
    train_x, test_x = _x(40, 911), torch.linspace(0, 1, 10)
    train_y, test_y = _y(train_x, 912), _y(test_x, 913)
    likelihood = likelihoods.GaussianLikelihood()
    model = _exact(train_x, train_y, likelihood, kernels.ScaleKernel(kernels.MaternKernel(nu=2.5)))
    mll = mlls.ExactMarginalLogLikelihood(likelihood, model)

    def train_ctx():
        import contextlib
        stack = contextlib.ExitStack()
        for ctx in (gpytorch.settings.max_cholesky_size(0), gpytorch.settings.cg_tolerance(0.01),
                    gpytorch.settings.max_preconditioner_size(5), gpytorch.settings.num_trace_samples(4),
                    gpytorch.settings.fast_computations(covar_root_decomposition=True, log_prob=True,
                                                        solves=True)):
            stack.enter_context(ctx)
        return stack

    def eval_ctx():
        import contextlib
        stack = contextlib.ExitStack()
        for ctx in (gpytorch.settings.max_cholesky_size(0), gpytorch.settings.fast_pred_var(),
                    gpytorch.settings.max_root_decomposition_size(20)):
            stack.enter_context(ctx)
        return stack

    def run(train_x, train_y, test_x, test_y):
        if model.training:
            with train_ctx():
                loss = -mll(model(train_x), train_y)
                loss.backward()
            return loss.detach()
        with torch.no_grad(), eval_ctx():
            out = _predict_and_score(likelihood, model, test_x, test_y)
            with gpytorch.settings.skip_posterior_variances():
                mean_only = model(test_x).mean
            return out, mean_only
    args = ((train_x, train_y, test_x, test_y), {})
    return step(run, eval_runs=args, train_runs=args, model=model, likelihood=likelihood)


def jitter_and_missing():
    import gpytorch
    from gpytorch import constraints, kernels, likelihoods, mlls
    # duplicated inputs, a tiny noise floor and a long lengthscale: a singular kernel matrix in float32
    base = _x(12, 921)
    dup_x = torch.cat([base, base, base + 1e-6])
    dup_y = _y(dup_x, 922, noise=0.0)
    lik1 = likelihoods.GaussianLikelihood(noise_constraint=constraints.GreaterThan(1e-8))
    lik1.noise = 1e-8
    rbf = kernels.RBFKernel()
    rbf.lengthscale = 3.0
    m1 = _exact(dup_x, dup_y, lik1, kernels.ScaleKernel(rbf))
    mll1 = mlls.ExactMarginalLogLikelihood(lik1, m1)
    # NaN targets (missing observations)
    nan_x = _x(24, 923)
    nan_y = _y(nan_x, 924)
    nan_y[torch.tensor([2, 7, 11, 19])] = float("nan")
    lik2 = likelihoods.GaussianLikelihood()
    m2 = _exact(nan_x, nan_y, lik2, kernels.ScaleKernel(kernels.RBFKernel()))
    mll2 = mlls.ExactMarginalLogLikelihood(lik2, m2)
    # heteroskedastic fixed noise
    fx = _x(20, 925)
    fy = _y(fx, 926)
    noise = 0.01 + 0.05 * torch.rand(20, generator=gen(927))
    lik3 = likelihoods.FixedNoiseGaussianLikelihood(noise=noise, learn_additional_noise=True)
    m3 = _exact(fx, fy, lik3, kernels.ScaleKernel(kernels.MaternKernel(nu=2.5)))
    mll3 = mlls.ExactMarginalLogLikelihood(lik3, m3)
    test_x = torch.linspace(0, 1, 8)
    net = torch.nn.ModuleList([m1, lik1, m2, lik2, m3, lik3])

    def run(dup_x, dup_y, nan_x, nan_y, fx, fy, test_x):
        if net.training:
            with gpytorch.settings.cholesky_jitter(float_value=1e-7):
                loss = -mll1(m1(dup_x), dup_y)
            with gpytorch.settings.observation_nan_policy("mask"):   # ("fill" is for approximate MLLs)
                loss = loss - mll2(m2(nan_x), nan_y)
            loss = loss - mll3(m3(fx), fy)
            loss.backward()
            return loss.detach()
        with torch.no_grad():
            p1 = lik1(m1(test_x))
            with gpytorch.settings.observation_nan_policy("mask"):
                p2 = lik2(m2(test_x))
            p3 = lik3(m3(test_x), noise=torch.full((8,), 0.02, device=test_x.device))
            return [(p.mean, p.variance) for p in (p1, p2, p3)]
    args = ((dup_x, dup_y, nan_x, nan_y, fx, fy, test_x), {})
    return step(run, eval_runs=args, train_runs=args, net=net)


def _svgp(inducing, dist_cls, strategy_cls, batch_shape=torch.Size([]), wrap=None, **strategy_kw):
    import gpytorch

    class SVGP(gpytorch.models.ApproximateGP):
        def __init__(self):
            dist = dist_cls(inducing.size(-2), batch_shape=batch_shape)
            strategy = strategy_cls(self, inducing, dist, **strategy_kw)
            super().__init__(wrap(strategy) if wrap else strategy)
            self.mean_module = gpytorch.means.ConstantMean(batch_shape=batch_shape)
            self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel(batch_shape=batch_shape),
                                                             batch_shape=batch_shape)

        def forward(self, x):
            return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))
    return SVGP()


def variational():
    import gpytorch
    from gpytorch import likelihoods, mlls, variational as v
    n = 32
    x = _x(n, 931, d=2)
    y = _y(x, 932)
    labels = (y > y.median()).float()
    inducing = x[:8].clone()
    reg = _svgp(inducing, v.CholeskyVariationalDistribution, v.VariationalStrategy, learn_inducing_locations=True)
    reg_lik = likelihoods.GaussianLikelihood()
    elbo = mlls.VariationalELBO(reg_lik, reg, num_data=n)
    pll = mlls.PredictiveLogLikelihood(reg_lik, reg, num_data=n, beta=0.5)
    robust = mlls.GammaRobustVariationalELBO(reg_lik, reg, num_data=n)
    clf = _svgp(inducing.clone(), v.MeanFieldVariationalDistribution, v.UnwhitenedVariationalStrategy,
                learn_inducing_locations=False)
    clf_lik = likelihoods.BernoulliLikelihood()
    clf_elbo = mlls.VariationalELBO(clf_lik, clf, num_data=n)
    ngd_model = _svgp(inducing.clone(), v.NaturalVariationalDistribution, v.VariationalStrategy,
                      learn_inducing_locations=True)
    ngd_lik = likelihoods.GaussianLikelihood()
    ngd_elbo = mlls.VariationalELBO(ngd_lik, ngd_model, num_data=n)
    ngd_opt = gpytorch.optim.NGD(ngd_model.variational_parameters(), num_data=n, lr=0.1)
    hyper_opt = torch.optim.Adam([*ngd_model.hyperparameters(), *ngd_lik.parameters()], lr=0.01)
    t = 3   # multitask outputs
    ym = torch.stack([y, -y, 0.5 * y], -1)
    ind_mt = _svgp(inducing.expand(t, 8, 2).clone(), v.CholeskyVariationalDistribution, v.VariationalStrategy,
                   batch_shape=torch.Size([t]), learn_inducing_locations=True,
                   wrap=lambda s: v.IndependentMultitaskVariationalStrategy(s, num_tasks=t))
    lmc = _svgp(inducing.expand(2, 8, 2).clone(), v.CholeskyVariationalDistribution, v.VariationalStrategy,
                batch_shape=torch.Size([2]), learn_inducing_locations=True,
                wrap=lambda s: v.LMCVariationalStrategy(s, num_tasks=t, num_latents=2, latent_dim=-1))
    mt_lik = likelihoods.MultitaskGaussianLikelihood(num_tasks=t)
    mt_elbos = [mlls.VariationalELBO(mt_lik, m, num_data=n) for m in (ind_mt, lmc)]
    test_x = _x(10, 933, d=2)
    net = torch.nn.ModuleList([reg, reg_lik, clf, clf_lik, ngd_model, ngd_lik, ind_mt, lmc, mt_lik])

    def run(x, y, labels, ym, test_x):
        if net.training:
            out = reg(x)
            loss = -elbo(out, y) - pll(out, y) - robust(out, y) - clf_elbo(clf(x), labels)
            loss = loss - sum(e(m(x), ym) for e, m in zip(mt_elbos, (ind_mt, lmc)))
            loss.backward()
            ngd_opt.zero_grad()
            hyper_opt.zero_grad()
            ngd_loss = -ngd_elbo(ngd_model(x), y)
            ngd_loss.backward()
            ngd_opt.step()
            hyper_opt.step()
            return loss.detach(), ngd_loss.detach()
        with torch.no_grad():
            pred = reg_lik(reg(test_x))
            probs = clf_lik(clf(test_x)).probs
            ngd_pred = ngd_lik(ngd_model(test_x))
            mt = [mt_lik(m(test_x)) for m in (ind_mt, lmc)]
            lower, upper = mt[1].confidence_region()
            return pred.mean, pred.variance, probs.ge(0.5), ngd_pred.mean, [p.mean for p in mt], lower, upper
    args = ((x, y, labels, ym, test_x), {})
    return step(run, eval_runs=args, train_runs=args, net=net)


def multitask_structured():
    import gpytorch
    from gpytorch import kernels, likelihoods, means, mlls
    t = 2
    # multitask exact GP (Kronecker)
    mx = torch.linspace(0, 1, 20)
    my = torch.stack([_f(mx), torch.cos(2 * math.pi * mx)], -1) + 0.1 * torch.randn(20, t, generator=gen(941))
    mt_lik = likelihoods.MultitaskGaussianLikelihood(num_tasks=t)

    class MTGP(gpytorch.models.ExactGP):
        def __init__(self):
            super().__init__(mx, my, mt_lik)
            self.mean_module = means.MultitaskMean(means.ConstantMean(), num_tasks=t)
            self.covar_module = kernels.MultitaskKernel(kernels.RBFKernel(), num_tasks=t, rank=1)

        def forward(self, x):
            return gpytorch.distributions.MultitaskMultivariateNormal(self.mean_module(x), self.covar_module(x))
    mtgp = MTGP()
    mt_mll = mlls.ExactMarginalLogLikelihood(mt_lik, mtgp)
    # deep kernel learning on a KISS-GP grid
    dx = _x(30, 942, d=3)
    dy = _y(dx, 943)
    feat = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    dkl_lik = likelihoods.GaussianLikelihood()

    class DKL(gpytorch.models.ExactGP):
        def __init__(self):
            super().__init__(dx, dy, dkl_lik)
            self.feature_extractor = feat
            self.scale_to_bounds = gpytorch.utils.grid.ScaleToBounds(-1.0, 1.0)
            self.mean_module = means.ConstantMean()
            self.covar_module = kernels.ScaleKernel(kernels.GridInterpolationKernel(
                kernels.RBFKernel(ard_num_dims=2), num_dims=2, grid_size=16))

        def forward(self, x):
            z = self.scale_to_bounds(self.feature_extractor(x))
            return gpytorch.distributions.MultivariateNormal(self.mean_module(z), self.covar_module(z))
    dkl = DKL()
    dkl_mll = mlls.ExactMarginalLogLikelihood(dkl_lik, dkl)
    # Dirichlet GP classification: one GP per class on transformed targets
    cx = _x(24, 944, d=2)
    cy = (cx.sum(-1) * 1.5).long().clamp_max(2)
    dir_lik = likelihoods.DirichletClassificationLikelihood(cy, learn_additional_noise=True)
    nc = dir_lik.num_classes

    class DirichletGP(gpytorch.models.ExactGP):
        def __init__(self):
            super().__init__(cx, dir_lik.transformed_targets, dir_lik)
            self.mean_module = means.ConstantMean(batch_shape=torch.Size((nc,)))
            self.covar_module = kernels.ScaleKernel(kernels.RBFKernel(batch_shape=torch.Size((nc,))),
                                                    batch_shape=torch.Size((nc,)))

        def forward(self, x):
            return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))
    dgp = DirichletGP()
    dir_mll = mlls.ExactMarginalLogLikelihood(dir_lik, dgp)
    dir_targets = dir_lik.transformed_targets
    # spectral mixture kernel initialised from the data (outside the step, as in the tutorial)
    sx = torch.linspace(0, 1, 25)
    sy = _y(sx, 945)
    sm_lik = likelihoods.GaussianLikelihood()
    sm = kernels.SpectralMixtureKernel(num_mixtures=3)
    sm.initialize_from_data(sx, sy)
    smgp = _exact(sx, sy, sm_lik, sm)
    sm_mll = mlls.ExactMarginalLogLikelihood(sm_lik, smgp)
    test1, test2, test3 = torch.linspace(0, 1, 9), _x(9, 946, d=3), _x(9, 947, d=2)
    net = torch.nn.ModuleList([mtgp, mt_lik, dkl, dkl_lik, dgp, dir_lik, smgp, sm_lik])

    def run(mx, my, dx, dy, cx, dir_targets, sx, sy, test1, test2, test3):
        if net.training:
            loss = (-mt_mll(mtgp(mx), my) - dkl_mll(dkl(dx), dy) - dir_mll(dgp(cx), dir_targets).sum()
                    - sm_mll(smgp(sx), sy))
            loss.backward()
            return loss.detach()
        with torch.no_grad(), gpytorch.settings.fast_pred_var():
            mt = mt_lik(mtgp(test1))
            lower, upper = mt.confidence_region()
            d = dkl_lik(dkl(test2))
            logits = dgp(test3)
            samples = logits.sample(torch.Size((16,))).exp()
            probs = (samples / samples.sum(-2, keepdim=True)).mean(0)
            s = sm_lik(smgp(test1))
            return mt.mean, lower, upper, d.mean, probs.argmax(0), s.mean
    args = ((mx, my, dx, dy, cx, dir_targets, sx, sy, test1, test2, test3), {})
    return step(run, eval_runs=args, train_runs=args, net=net)


MODELS = {
    "gpytorch_exact_regression": exact_regression,
    "gpytorch_exact_cg": exact_cg,
    "gpytorch_jitter_missing": jitter_and_missing,
    "gpytorch_variational": variational,
    "gpytorch_multitask_structured": multitask_structured,
}
