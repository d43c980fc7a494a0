"""normflows 1.7.3 (normalizing flows): RealNVP affine coupling with ActNorm and permutations, Glow's
multiscale flow (GlowBlock with invertible 1x1 convolutions in LU form, Squeeze/Merge, class-conditional
Gaussians, the logit transform, temperature sampling, bits per dim), neural spline flows (autoregressive and
coupled rational-quadratic splines with linear tails, their circular variants on a torus-like target,
conditional flows with context), residual flows (Lipschitz-constrained MLPs: spectral normalisation by power
iteration, the Russian-roulette power series of the log-determinant, the fixed-point inverse) and MADE-based
masked affine autoregressive flows with batch norm; stochastic layers (Metropolis-Hastings, Hamiltonian Monte
Carlo) and annealed importance sampling (HAIS); planar and radial flows in a flow VAE. The training loop of
its examples (`forward_kld` on target samples, `reverse_kld` / `reverse_alpha_div` against an unnormalised
target, backward, Adam, `update_lipschitz`), sampling and log-densities on a grid. Tiny sizes (2-D targets,
3x8x8 images, 16-unit nets, 32 samples), random initialisation, seeded; nothing downloaded.

Installed for suite k in a separate venv (/work/venv_k, see kdiffusion_models.py): normflows 1.7.3 (numpy).

The step is one iteration of the example training loops (train) or sampling and densities (eval, under
no_grad; the residual flow's power series runs under grad in train). Targets are nn.Modules whose buffers
(proposal scales, mode positions) a script moves to the device with the flow; data batches are step inputs.
"""
from __future__ import annotations

import math

import torch

from . import gen, step


def _nf():
    import normflows as nf
    return nf


def _opt(model, lr=1e-3):
    return torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-5)


def _fit(model, loss_fn, opt, after=None):
    """The examples' loop body: loss, backward unless NaN/Inf (their `~(isnan | isinf)` test is the script's),
    step, then `after()` (e.g. `update_lipschitz`)."""
    def train(*args):
        opt.zero_grad()
        loss = loss_fn(*args)
        loss.backward()
        opt.step()
        if after is not None:
            after()
        return loss.detach()
    return train


def realnvp_moons():
    """RealNVP on the two-moons target and an image-density target (`ImagePrior` of a random 16x16 image): 4
    affine coupling blocks (MLP, zero init), swap permutations, ActNorm (data-dependent initialisation on the
    first batch); train: `forward_kld` on both targets' rejection samples drawn in the step; eval: `sample`,
    `log_prob` on a grid, the targets' `log_prob`."""
    nf = _nf()
    torch.manual_seed(0)
    flows = []
    for _ in range(4):
        flows += [nf.flows.AffineCouplingBlock(nf.nets.MLP([1, 16, 16, 2], init_zeros=True)),
                  nf.flows.Permute(2, mode="swap"), nf.flows.ActNorm(2)]
    model = nf.NormalizingFlow(nf.distributions.DiagGaussian(2), flows)
    target = nf.distributions.TwoMoons()
    image = nf.distributions.ImagePrior(torch.rand(16, 16, generator=gen(2)).numpy())
    train = _fit(model, lambda: model.forward_kld(target.sample(32)) + model.forward_kld(image.sample(16)),
                 _opt(model))

    def run(phase, grid):
        if phase == "train":
            return train()
        x, log_q = model.sample(16)
        return x, log_q, model.log_prob(grid), target.log_prob(grid), image.log_prob(grid)
    grid = torch.randn(20, 2, generator=gen(1)) * 2
    return step(run, eval_runs=(("eval", grid), {}), train_runs=(("train", grid), {}), model=model, target=target,
                image=image)


def nsf_autoregressive():
    """Autoregressive rational-quadratic spline flow (MADE with residual blocks, linear tails at 3) with LU
    permutations; train: `forward_kld` on
    a data batch (some points beyond the tail bound); eval: `sample` (the spline's inverse: the quadratic
    root), `log_prob`, `forward_and_log_det` / `inverse_and_log_det`."""
    nf = _nf()
    torch.manual_seed(1)
    flows = []
    for _ in range(2):
        flows += [nf.flows.AutoregressiveRationalQuadraticSpline(2, 1, 16, num_bins=4),
                  nf.flows.LULinearPermute(2)]
    model = nf.NormalizingFlow(nf.distributions.DiagGaussian(2), flows)
    train = _fit(model, lambda x: model.forward_kld(x), _opt(model))

    def run(phase, x):
        if phase == "train":
            return train(x)
        z, log_q = model.sample(16)
        y, ld = model.forward_and_log_det(x)
        xb, ldb = model.inverse_and_log_det(x)
        return z, log_q, model.log_prob(x), y, ld, xb, ldb
    x = torch.randn(32, 2, generator=gen(2)) * 2.5
    return step(run, eval_runs=(("eval", x), {}), train_runs=(("train", x), {}), model=model)


def nsf_conditional_circular():
    """A conditional coupled spline flow (`CoupledRationalQuadraticSpline` with a context input, a
    `ConditionalDiagGaussian` target sampled in the step) and a circular flow on a cylinder
    (`CircularAutoregressiveRationalQuadraticSpline` / `CircularCoupledRationalQuadraticSpline` with a
    `UniformGaussian` base, `PeriodicWrap`) trained by `reverse_kld` against `CircularGaussianMixture`."""
    nf = _nf()
    torch.manual_seed(2)
    cflows = []
    for i in range(2):
        cflows += [nf.flows.CoupledRationalQuadraticSpline(2, 1, 16, num_context_channels=4, num_bins=4,
                                                           reverse_mask=bool(i)),
                   nf.flows.LULinearPermute(2)]
    cond = nf.ConditionalNormalizingFlow(nf.distributions.DiagGaussian(2), cflows)
    ctarget = nf.distributions.target.ConditionalDiagGaussian()
    bound = torch.tensor([math.pi, 3.0])
    circ = nf.NormalizingFlow(
        nf.distributions.UniformGaussian(2, [0], torch.tensor([1.0, 2 * math.pi])),
        [nf.flows.CircularAutoregressiveRationalQuadraticSpline(2, 1, 16, [0], tail_bound=bound, num_bins=4),
         nf.flows.CircularCoupledRationalQuadraticSpline(2, 1, 16, [0], tail_bound=bound, num_bins=4),
         nf.flows.PeriodicWrap([0], math.pi)],
        p=nf.distributions.target.CircularGaussianMixture())
    parts = torch.nn.ModuleDict({"cond": cond, "circ": circ})
    opt = _opt(parts)

    def loss(ctx):
        x = ctarget.sample(ctx.shape[0], ctx)
        return cond.forward_kld(x, ctx) + circ.reverse_kld(16)
    train = _fit(parts, loss, opt)

    def run(phase, ctx):
        if phase == "train":
            return train(ctx)
        s, lq = cond.sample(ctx.shape[0], context=ctx)
        z, lz = circ.sample(16)
        return s, lq, cond.log_prob(s, ctx), z, lz, circ.log_prob(z)
    ctx = torch.cat([torch.randn(16, 2, generator=gen(3)), torch.rand(16, 2, generator=gen(4)) + 0.5], 1)   # means, stds
    return step(run, eval_runs=(("eval", ctx), {}), train_runs=(("train", ctx), {}), cond=cond, circ=circ,
                ctarget=ctarget)


def residual_flow():
    """Residual flow (3 `Residual` blocks of `LipschitzMLP`s, spectral normalisation by power iteration, the
    Russian-roulette estimator of the log-determinant with `reduce_memory`) and ActNorm; train: `forward_kld` on
    the two-moons target's samples, then `nf.utils.update_lipschitz`; eval: `log_prob`, `sample` (the
    fixed-point inverse)."""
    nf = _nf()
    torch.manual_seed(3)
    flows = []
    for _ in range(3):
        net = nf.nets.LipschitzMLP([2, 16, 16, 2], init_zeros=True, lipschitz_const=0.9)
        flows += [nf.flows.Residual(net, reduce_memory=True), nf.flows.ActNorm(2)]
    model = nf.NormalizingFlow(nf.distributions.DiagGaussian(2, trainable=False), flows)
    target = nf.distributions.TwoMoons()
    train = _fit(model, lambda: model.forward_kld(target.sample(32)), _opt(model),
                 after=lambda: nf.utils.update_lipschitz(model, 5))

    def run(phase, grid):
        if phase == "train":
            return train()
        lp = model.log_prob(grid)
        x, log_q = model.sample(8)
        return lp, x, log_q
    grid = torch.randn(16, 2, generator=gen(5))
    return step(run, eval_runs=(("eval", grid), {}), train_runs=(("train", grid), {}), model=model, target=target)


def residual_cnn_images():
    """Convolutional residual flow on 3x8x8 images (`LipschitzCNN`: induced-norm convolutions whose power
    iteration reads the input's spatial size back from a buffer), the Poisson-distributed power series
    (`n_dist="poisson"`, without `reduce_memory`), ActNorm; train: `forward_kld`, `update_lipschitz`; eval:
    `log_prob`, `sample` (the fixed-point inverse)."""
    nf = _nf()
    torch.manual_seed(7)
    shape = (3, 8, 8)
    flows = []
    for _ in range(2):
        net = nf.nets.LipschitzCNN([3, 8, 3], [3, 3], lipschitz_const=0.9, max_lipschitz_iter=2)
        flows += [nf.flows.Residual(net, reduce_memory=False, n_dist="poisson"), nf.flows.ActNorm(shape)]
    model = nf.NormalizingFlow(nf.distributions.DiagGaussian(shape), flows)
    train = _fit(model, lambda x: model.forward_kld(x), _opt(model), after=lambda: nf.utils.update_lipschitz(model, 2))

    def run(phase, x):
        if phase == "train":
            return train(x)
        s, lq = model.sample(2)
        return model.log_prob(x), s, lq
    x = torch.randn(4, *shape, generator=gen(8)) * 0.5
    return step(run, eval_runs=(("eval", x), {}), train_runs=(("train", x), {}), model=model)


def glow_multiscale():
    """Glow as in normflows' example (2 levels x 2 `GlowBlock`s: ActNorm, invertible 1x1 convolution in LU form,
    affine coupling with a sigmoid scale, channel or checkerboard split; Squeeze, Merge), class-conditional
    Gaussians, the logit transform; train: `forward_kld(x, y)` on dequantised 3x8x8 images; eval: `log_prob`,
    `sample` with temperature, `nf.utils.bitsPerDim` and `bitsPerDimDataset` over a two-batch loader."""
    nf = _nf()
    torch.manual_seed(4)
    L, K, ch, hid, nc = 2, 2, 3, 16, 4
    shape = (ch, 8, 8)
    q0, merges, flows = [], [], []
    for i in range(L):
        fl = [nf.flows.GlowBlock(ch * 2 ** (L + 1 - i), hid, split_mode="checkerboard" if i == 0 and j == 0
                                 else "channel", scale=True) for j in range(K)]
        fl += [nf.flows.Squeeze()]
        flows += [fl]
        if i > 0:
            merges += [nf.flows.Merge()]
            latent = (shape[0] * 2 ** (L - i), shape[1] // 2 ** (L - i), shape[2] // 2 ** (L - i))
        else:
            latent = (shape[0] * 2 ** (L + 1), shape[1] // 2 ** L, shape[2] // 2 ** L)
        q0 += [nf.distributions.ClassCondDiagGaussian(latent, nc)]
    model = nf.MultiscaleFlow(q0, flows, merges, transform=nf.transforms.Logit(alpha=0.05))
    train = _fit(model, lambda x, y: model.forward_kld(x, y), _opt(model))

    def run(phase, x, y):
        if phase == "train":
            return train(x, y)
        lp = model.log_prob(x, y)
        s, lq = model.sample(4, y=y, temperature=0.7)
        return lp, s, lq, nf.utils.bitsPerDim(model, x, y), nf.utils.bitsPerDimDataset(model, [(x, y), (x, y)])
    g = gen(6)
    x = (torch.randint(0, 256, (4, *shape), generator=g).float() + torch.rand(4, *shape, generator=g)) / 256
    y = torch.tensor([0, 1, 2, 3])
    return step(run, eval_runs=(("eval", x, y), {}), train_runs=(("train", x, y), {}), model=model)


def stochastic_hais():
    """Stochastic normalizing flow: real NVP blocks interleaved with `MetropolisHastings` (a diagonal Gaussian
    proposal) and `HamiltonianMonteCarlo` layers towards the two-modes target, trained by `reverse_kld`
    (`score_fn` off) and `reverse_alpha_div`; eval: `sample`, and annealed importance sampling (`HAIS` with
    HMC transitions between the prior and the target)."""
    nf = _nf()
    torch.manual_seed(5)
    target = nf.distributions.TwoModes(2.0, 0.1)
    base = nf.distributions.DiagGaussian(2)
    flows = []
    for i in range(2):
        flows += [nf.flows.AffineCouplingBlock(nf.nets.MLP([1, 16, 2], init_zeros=True)),
                  nf.flows.Permute(2, mode="swap")]
        lin = nf.distributions.LinearInterpolation(target, base, (i + 1) / 3)
        flows += [nf.flows.MetropolisHastings(lin, nf.distributions.DiagGaussianProposal((2,), 0.3), 2),
                  nf.flows.HamiltonianMonteCarlo(lin, 2, torch.log(torch.ones(2) * 0.05), torch.zeros(2))]
    model = nf.NormalizingFlow(base, flows, p=target)
    opt = _opt(model)
    train = _fit(model, lambda: model.reverse_kld(32, score_fn=False) + model.reverse_alpha_div(16, alpha=0.5),
                 opt)

    def run(phase):
        if phase == "train":
            return train()
        with torch.enable_grad():     # HMC layers and HAIS differentiate the target (as a script samples)
            z, log_q = model.sample(16)
            betas = torch.linspace(1, 0, 4)
            hais = nf.sampling.HAIS(betas, base, target, 2, torch.ones(2) * 0.05, torch.zeros(2))
            zh, lw = hais.sample(16)
        return z, log_q, zh, lw
    return step(run, eval_runs=(("eval",), {}), train_runs=(("train",), {}), model=model)


def made_flow_vae():
    """Masked affine autoregressive flow (MADE) with a shuffle permutation and `InvertibleAffine` on 4-D data, and a flow VAE
    (`NNDiagGaussian` encoder, planar and radial flows, `NNBernoulliDecoder`) as in normflows' VAE example;
    train: `forward_kld` of the MAF plus the VAE's negative ELBO; eval: both models' samples and densities."""
    nf = _nf()
    torch.manual_seed(6)
    maf = nf.NormalizingFlow(nf.distributions.DiagGaussian(4), [
        nf.flows.MaskedAffineAutoregressive(4, 16, num_blocks=1), nf.flows.Permute(4, mode="shuffle"),
        nf.flows.InvertibleAffine(4), nf.flows.MaskedAffineAutoregressive(4, 16, num_blocks=1)])
    enc = nf.distributions.NNDiagGaussian(nf.nets.MLP([6, 16, 4]))
    dec = nf.distributions.NNBernoulliDecoder(nf.nets.MLP([2, 16, 6]))
    prior = nf.distributions.DiagGaussian(2, trainable=False)
    vae = nf.core.NormalizingFlowVAE(prior, enc, [nf.flows.Planar((2,)), nf.flows.Radial((2,))], dec)
    parts = torch.nn.ModuleDict({"maf": maf, "vae": vae})
    opt = _opt(parts)

    def loss(x, b):
        _, log_q, log_p = vae(b, 3)
        return maf.forward_kld(x) + torch.mean(log_q) - torch.mean(log_p)
    train = _fit(parts, loss, opt)

    def run(phase, x, b):
        if phase == "train":
            return train(x, b)
        s, lq = maf.sample(8)
        z, log_q, log_p = vae(b, 2)
        return s, lq, maf.log_prob(x), z, log_q, log_p
    g = gen(7)
    x = torch.randn(32, 4, generator=g)
    b = (torch.rand(16, 6, generator=g) > 0.5).float()
    return step(run, eval_runs=(("eval", x, b), {}), train_runs=(("train", x, b), {}), maf=maf, vae=vae)


MODELS = {
    "nflows_realnvp_moons": realnvp_moons,
    "nflows_nsf_autoregressive": nsf_autoregressive,
    "nflows_nsf_conditional_circular": nsf_conditional_circular,
    "nflows_residual_flow": residual_flow,
    "nflows_residual_cnn_images": residual_cnn_images,
    "nflows_glow_multiscale": glow_multiscale,
    "nflows_stochastic_hais": stochastic_hais,
    "nflows_made_flow_vae": made_flow_vae,
}
