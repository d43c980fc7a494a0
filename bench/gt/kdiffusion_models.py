"""k-diffusion 0.1.1.post1 (Karras et al. diffusion models): its preconditioned denoisers (`Denoiser` with
karras / soft-min-SNR weighting and the DCT multi-scale loss, `DenoiserWithVariance`, `SimpleLossDenoiser`),
the discrete-schedule wrappers of DDPM models (`CompVisDenoiser`, `CompVisVDenoiser`: `sigma_to_t` /
`t_to_sigma`, quantised or interpolated), its U-Net (`ImageDenoiserModelV1`, self-attention, variance head)
and patch transformer (`ImageTransformerDenoiserModelV1`, axial RoPE, class conditioning); the training
step its `train.py` runs (sigmas from `rand_log_normal` / `rand_v_diffusion` / `rand_cosine_interpolated` /
stratified draws, the loss, backward, Adam, `ema_update` with `EMAWarmup`) and every sampler of its
`sampling.py` (Euler with churn, Heun, DPM-2, the ancestral variants, LMS with scipy's quadrature,
DPM-Solver fast and adaptive with its PID step-size controller, DPM-Solver++ 2S/2M/SDE/2M-SDE/3M-SDE with
the Brownian-tree noise sampler, the ODE log-likelihood through torchdiffeq) on `get_sigmas_karras` /
exponential / polyexponential / VP schedules; its evaluation metrics (KID, FID). Tiny sizes (8x8 images,
16-32 channels, batch 2, 3-6 sampling steps), random weights, seeded; nothing downloaded.

Installed for suite k in a separate venv (/work/venv_k, which also sees the shared heavy venv's torch
2.14.1, torchsde, torchdiffeq and kornia through a .pth): k-diffusion 0.1.1.post1 (clean-fid, clip-anytorch,
dctorch, jsonmerge, wandb, accelerate, scikit-image; setuptools<81 for clip's `pkg_resources`; dctorch's
numpy<2 pin is removed from the venv so the heavy venv's numpy 2 is used).

The step is a training step (train) or a sampling call (eval, under no_grad as the samplers are
decorated). Schedules are built on the accelerator as k-diffusion's `sample.py` does
(`get_sigmas_karras(..., device=device)`: `gt.DEVICE` here) or read from a wrapper's buffers; images
and noise are step inputs.
"""
from __future__ import annotations

import torch

from . import DEVICE, gen, step


def _K():
    import k_diffusion as K
    return K


def _unet(c=3, variance=False, attn=True):
    K = _K()
    return K.models.ImageDenoiserModelV1(c, 16, [1, 1], [16, 32], [False, attn], dropout_rate=0.0,
                                         has_variance=variance)


def _x(seed, n=2, c=3, s=8):
    g = gen(seed)
    return torch.randn(n, c, s, s, generator=g)


def _train_step(denoiser, sample_sigma, ema=None, lr=1e-3, extra=None):
    """k-diffusion's train.py inner step: noise, sigmas from the training distribution, `loss`, mean,
    backward, Adam; then the EMA of the model with `EMAWarmup`'s decay."""
    K = _K()
    opt = torch.optim.Adam(denoiser.parameters(), lr=lr)
    warm = K.utils.EMAWarmup(power=2 / 3, max_value=0.999)

    def train(reals):
        noise = torch.randn_like(reals)
        sigma = sample_sigma([reals.shape[0]], reals.device)
        losses = denoiser.loss(reals, noise, sigma, **(extra or {}))
        loss = losses.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if ema is not None:
            K.utils.ema_update(denoiser, ema, warm.get_value())
            warm.step()
        return loss.detach()
    return train


def unet_euler_heun():
    """U-Net (self-attention at 4x4) under the Karras `Denoiser`: train: log-normal sigmas, the loss, Adam,
    EMA; eval: Euler with churn (`s_churn`, `s_tmin`/`s_tmax`), Heun and DPM-2 on a Karras schedule."""
    K = _K()
    torch.manual_seed(0)
    model = K.layers.Denoiser(_unet(), sigma_data=0.5)
    import copy
    ema = copy.deepcopy(model)
    train = _train_step(model, lambda shape, dev: K.utils.rand_log_normal(shape, loc=-1.2, scale=1.2, device=dev),
                        ema=ema)

    def run(phase, x, noise):
        if phase == "train":
            return train(x)
        sigmas = K.sampling.get_sigmas_karras(5, 0.02, 20.0, rho=7.0, device=DEVICE)
        a = K.sampling.sample_euler(model, noise * sigmas[0], sigmas, disable=True, s_churn=1.0, s_tmin=0.05,
                                    s_tmax=10.0)
        b = K.sampling.sample_heun(model, noise * sigmas[0], sigmas, disable=True)
        c = K.sampling.sample_dpm_2(model, noise * sigmas[0], sigmas, disable=True, s_churn=0.5)
        return a, b, c
    x, noise = _x(11), _x(12)
    return step(run, eval_runs=(("eval", x, noise), {}), train_runs=(("train", x, noise), {}), model=model, ema=ema)


def ancestral_samplers():
    """Soft-min-SNR weighted `Denoiser` with the DCT multi-scale loss (`scales=2`); eval: Euler-ancestral,
    DPM-2-ancestral, DPM-Solver++(2S) ancestral, DPM-Solver++(2M) with a callback, on exponential and
    polyexponential schedules."""
    K = _K()
    torch.manual_seed(1)
    model = K.layers.Denoiser(_unet(attn=False), sigma_data=0.5, weighting="soft-min-snr", scales=2)
    train = _train_step(model, lambda shape, dev: K.utils.rand_log_logistic(shape, loc=-0.5, scale=0.5,
                                                                            min_value=0.01, max_value=40.0,
                                                                            device=dev))
    seen = []

    def run(phase, x, noise):
        if phase == "train":
            return train(x)
        s1 = K.sampling.get_sigmas_exponential(4, 0.05, 10.0, device=DEVICE)
        s2 = K.sampling.get_sigmas_polyexponential(4, 0.05, 10.0, rho=2.0, device=DEVICE)
        out = [K.sampling.sample_euler_ancestral(model, noise * s1[0], s1, disable=True),
               K.sampling.sample_dpm_2_ancestral(model, noise * s2[0], s2, disable=True),
               K.sampling.sample_dpmpp_2s_ancestral(model, noise * s1[0], s1, disable=True),
               K.sampling.sample_dpmpp_2m(model, noise * s2[0], s2, disable=True,
                                          callback=lambda info: seen.append(info["i"]))]
        return out
    x, noise = _x(21), _x(22)
    return step(run, eval_runs=(("eval", x, noise), {}), train_runs=(("train", x, noise), {}), model=model)


def sde_samplers():
    """`SimpleLossDenoiser` (L_simple) with v-diffusion sigmas; eval: DPM-Solver++ SDE (Brownian-tree noise
    sampler through torchsde), 2M-SDE (midpoint and heun) and 3M-SDE on a Karras schedule, with a seed."""
    K = _K()
    torch.manual_seed(2)
    model = K.layers.SimpleLossDenoiser(_unet(attn=False), sigma_data=0.5)
    train = _train_step(model, lambda shape, dev: K.utils.rand_v_diffusion(shape, sigma_data=0.5, min_value=0.01,
                                                                           max_value=40.0, device=dev))

    def run(phase, x, noise):
        if phase == "train":
            return train(x)
        sigmas = K.sampling.get_sigmas_karras(4, 0.05, 10.0, device=DEVICE)
        x0 = noise * sigmas[0]
        ns = K.sampling.BrownianTreeNoiseSampler(x0, sigmas[sigmas > 0].min(), sigmas.max(), seed=3)
        return [K.sampling.sample_dpmpp_sde(model, x0, sigmas, disable=True),
                K.sampling.sample_dpmpp_2m_sde(model, x0, sigmas, disable=True, noise_sampler=ns),
                K.sampling.sample_dpmpp_2m_sde(model, x0, sigmas, disable=True, solver_type="heun"),
                K.sampling.sample_dpmpp_3m_sde(model, x0, sigmas, disable=True)]
    x, noise = _x(31), _x(32)
    return step(run, eval_runs=(("eval", x, noise), {}), train_runs=(("train", x, noise), {}), model=model)


def dpm_solver_adaptive():
    """DPM-Solver fast (fixed NFE) and adaptive (embedded error estimate, PID step-size controller accepting or
    rejecting each step, `return_info`), with eta > 0 noise; train: cosine-interpolated sigmas."""
    K = _K()
    torch.manual_seed(3)
    model = K.layers.Denoiser(_unet(attn=False), sigma_data=0.5, weighting="snr")
    train = _train_step(model, lambda shape, dev: K.utils.rand_cosine_interpolated(shape, image_d=8, noise_d_low=8,
                                                                                   noise_d_high=8, sigma_data=0.5,
                                                                                   device=dev))

    def run(phase, x, noise, smin, smax):
        if phase == "train":
            return train(x)
        a = K.sampling.sample_dpm_fast(model, noise * smax, smin, smax, 6, disable=True)
        b, info = K.sampling.sample_dpm_adaptive(model, noise * smax, smin, smax, disable=True, rtol=0.2, atol=0.1,
                                                 h_init=0.5, return_info=True)
        c = K.sampling.sample_dpm_adaptive(model, noise * smax, smin, smax, disable=True, order=2, rtol=0.2,
                                           atol=0.1, h_init=0.5, eta=1.0)
        return a, b, info["nfe"], c
    x, noise = _x(41), _x(42)
    smin, smax = torch.tensor(0.05), torch.tensor(10.0)
    return step(run, eval_runs=(("eval", x, noise, smin, smax), {}), train_runs=(("train", x, noise, smin, smax), {}),
                model=model)


def lms_loglik():
    """U-Net with a learned variance under `DenoiserWithVariance`; eval: LMS (scipy quadrature of the
    multistep coefficients on the host copy of the sigmas), the ODE log-likelihood (torchdiffeq dopri5 with a
    Hutchinson trace estimator), `sample_euler` on a VP schedule."""
    K = _K()
    torch.manual_seed(4)
    model = K.layers.DenoiserWithVariance(_unet(variance=True, attn=False), sigma_data=0.5)
    train = _train_step(model, lambda shape, dev: K.utils.rand_log_uniform(shape, 0.05, 20.0, device=dev))

    def run(phase, x, noise):
        if phase == "train":
            return train(x)
        sigmas = K.sampling.get_sigmas_karras(4, 0.05, 10.0, device=DEVICE)
        a = K.sampling.sample_lms(model, noise * sigmas[0], sigmas, disable=True, order=3)
        ll, info = K.sampling.log_likelihood(model, x, 0.05, 10.0, atol=0.1, rtol=0.1)
        vp = K.sampling.get_sigmas_vp(4, device=DEVICE)
        c = K.sampling.sample_euler(model, noise * vp[0], vp, disable=True)
        return a, ll, info["fevals"], c
    x, noise = _x(51), _x(52)
    return step(run, eval_runs=(("eval", x, noise), {}), train_runs=(("train", x, noise), {}), model=model)


class _EpsNet(torch.nn.Module):
    """A tiny eps/v-prediction network with the CompVis `apply_model(x, t, cond)` interface."""

    def __init__(self, c=3):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Conv2d(c + 1, 16, 3, padding=1), torch.nn.SiLU(),
                                       torch.nn.Conv2d(16, c, 3, padding=1))
        alphas = torch.cumprod(1 - torch.linspace(1e-4, 0.02, 100), 0)
        self.register_buffer("alphas_cumprod", alphas)

    def apply_model(self, x, t, cond=None):
        tt = (t.float() / 100).view(-1, 1, 1, 1).expand(x.shape[0], 1, *x.shape[2:])
        return self.net(torch.cat([x, tt], 1))


def compvis_discrete():
    """`CompVisDenoiser` (eps prediction, interpolated `sigma_to_t`) and `CompVisVDenoiser` (v prediction,
    quantised): train: their `loss` at sigmas drawn from the discrete schedule (`t_to_sigma` of random
    timesteps); eval: `get_sigmas(n)` from the wrapper's buffers, Euler and Euler-ancestral, the wrapper's
    `sigma_min`/`sigma_max` into DPM-Solver fast."""
    K = _K()
    torch.manual_seed(5)
    inner = _EpsNet()
    eps = K.external.CompVisDenoiser(inner)
    v = K.external.CompVisVDenoiser(inner, quantize=True)
    opt = torch.optim.Adam(inner.parameters(), lr=1e-3)

    def run(phase, x, noise):
        if phase == "train":
            t = torch.randint(0, 100, (x.shape[0],), device=x.device)
            sigma = eps.t_to_sigma(t)
            loss = eps.loss(x, noise, sigma, cond=None).mean() + v.loss(x, noise, sigma, cond=None).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss.detach()
        sigmas = eps.get_sigmas(4)
        ex = {"cond": None}
        a = K.sampling.sample_euler(eps, noise * sigmas[0], sigmas, disable=True, extra_args=ex)
        b = K.sampling.sample_euler_ancestral(v, noise * sigmas[0], v.get_sigmas(4), disable=True, extra_args=ex)
        c = K.sampling.sample_dpm_fast(eps, noise * eps.sigma_max, eps.sigma_min, eps.sigma_max, 3, disable=True,
                                       extra_args=ex)
        return a, b, c, v.sigma_to_t(sigmas[:-1])
    x, noise = _x(61), _x(62)
    return step(run, eval_runs=(("eval", x, noise), {}), train_runs=(("train", x, noise), {}), eps=eps, v=v)


def transformer_eval_metrics():
    """Patch transformer (`ImageTransformerDenoiserModelV1`, class-conditional, axial RoPE, GEGLU) under the
    Karras `Denoiser`: train: stratified log-normal sigmas (`enable_stratified`), class labels, Adam;
    eval: samples by Euler-ancestral, then the evaluation metrics k-diffusion's train.py logs (KID and FID of
    the samples' features against the reals')."""
    K = _K()
    torch.manual_seed(6)
    inner = K.models.ImageTransformerDenoiserModelV1(n_layers=2, d_model=64, d_ff=128, in_features=3,
                                                     out_features=3, patch_size=(2, 2), num_classes=3, sigma_data=0.5)
    model = K.layers.Denoiser(inner, sigma_data=0.5)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def run(phase, x, noise, y, feats):
        if phase == "train":
            with K.utils.enable_stratified(0, 1):
                sigma = K.utils.rand_split_log_normal([x.shape[0]], -1.2, 1.0, 1.5, device=x.device)
            loss = model.loss(x, noise, sigma, class_cond=y).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss.detach()
        sigmas = K.sampling.get_sigmas_karras(4, 0.05, 10.0, device=DEVICE)
        s = K.sampling.sample_euler_ancestral(model, noise * sigmas[0], sigmas, disable=True,
                                              extra_args={"class_cond": y})
        f = torch.cat([s.flatten(1)[:, :8], feats], 0)
        r = torch.cat([x.flatten(1)[:, :8], feats.flip(0)], 0)
        return s, K.evaluation.kid(f, r), K.evaluation.fid(f, r)
    x, noise = _x(71), _x(72)
    y = torch.tensor([0, 2])
    feats = torch.randn(6, 8, generator=gen(73))
    return step(run, eval_runs=(("eval", x, noise, y, feats), {}), train_runs=(("train", x, noise, y, feats), {}),
                model=model)


MODELS = {
    "kdiff_unet_euler_heun": unet_euler_heun,
    "kdiff_ancestral_samplers": ancestral_samplers,
    "kdiff_sde_samplers": sde_samplers,
    "kdiff_dpm_solver_adaptive": dpm_solver_adaptive,
    "kdiff_lms_loglik": lms_loglik,
    "kdiff_compvis_discrete": compvis_discrete,
    "kdiff_transformer_eval_metrics": transformer_eval_metrics,
}
