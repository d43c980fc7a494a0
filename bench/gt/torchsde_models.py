"""torchsde 0.2.6 (stochastic differential equation solvers with adjoints): neural SDEs as its
examples build them, with random weights (MLP drift and diffusion), tiny state sizes, a batch of 3;
nothing to download. The query times `ts` are a step input (on the device, as the examples create
them with `device=`), and so is `y0`.

Installed for suite f (first look, issue 9) into the shared venv, without dependencies (numpy,
scipy and torch were already there; trampoline is a small pure-Python package):

    /work/main/.ci/venv/bin/pip install --no-deps segmentation-models-pytorch==0.6.0 torchsde==0.2.6 trampoline==0.1.2

* Ito SDE, diagonal noise: `sdeint` with each Ito method (euler, milstein, milstein with
  `grad_free`, srk) on the default Brownian motion; train: `sdeint_adjoint` (the backward pass,
  which solves the adjoint SDE, runs inside the step).
* Adaptive stepping: `adaptive=True` (srk on diagonal Ito noise, midpoint on a Stratonovich SDE)
  with an explicit `BrownianInterval` built from `ts[0]`/`ts[-1]` (space-time Levy area);
  train: `sdeint_adjoint` with `adjoint_adaptive`.
* Stratonovich SDE, general noise (d=3, m=2): euler_heun, heun, midpoint, log_ode with Davie's
  Levy area, reversible_heun; train: `sdeint_adjoint` with `adjoint_reversible_heun`, and the
  log-ODE scheme forward with a midpoint adjoint (log-ODE cannot solve an adjoint SDE).
* Latent SDE (the examples' `latent_sde` pattern): posterior drift `f`, prior drift `h`, diagonal
  diffusion, `logqp=True` (the KL path `SDELogqp`), `names=` to rename the methods;
  additive noise with srk (default Brownian motion, `extra=True`) and euler on a `BrownianPath`,
  scalar noise on a `BrownianTree`; train: adjoint with `logqp`.
"""
from __future__ import annotations

import torch

from . import gen, step

B, D = 3, 4


def _mlp(i, o, h=16):
    return torch.nn.Sequential(torch.nn.Linear(i, h), torch.nn.Tanh(), torch.nn.Linear(h, o))


class DiagSDE(torch.nn.Module):
    def __init__(self, sde_type="ito", d=D):
        super().__init__()
        self.sde_type, self.noise_type = sde_type, "diagonal"
        self.drift, self.diff = _mlp(d + 1, d), _mlp(d + 1, d)

    def _in(self, t, y):
        return torch.cat([y, t.expand(y.shape[0], 1)], -1)

    def f(self, t, y):
        return self.drift(self._in(t, y))

    def g(self, t, y):
        return torch.sigmoid(self.diff(self._in(t, y))) * 0.3


class GeneralSDE(torch.nn.Module):
    def __init__(self, d=3, m=2, sde_type="stratonovich"):
        super().__init__()
        self.sde_type, self.noise_type, self.d, self.m = sde_type, "general", d, m
        self.drift, self.diff = _mlp(d, d), _mlp(d, d * m)

    def f(self, t, y):
        return self.drift(y)

    def g(self, t, y):
        return torch.tanh(self.diff(y)).view(y.shape[0], self.d, self.m) * 0.3


class AdditiveSDE(torch.nn.Module):
    """dY = mlp(Y) dt + sigma dW with a learnable constant diffusion (additive or scalar noise)."""

    def __init__(self, noise_type="additive", d=D, m=2):
        super().__init__()
        self.sde_type, self.noise_type = "ito", noise_type
        self.drift = _mlp(d, d)
        self.sigma = torch.nn.Parameter(torch.full((d, 1 if noise_type == "scalar" else m), 0.2))

    def f(self, t, y):
        return self.drift(y)

    def g(self, t, y):
        return self.sigma.expand(y.shape[0], *self.sigma.shape)


class LatentSDE(torch.nn.Module):
    """Posterior drift `f_post` (renamed with `names=`), prior drift `h`, diagonal diffusion."""

    def __init__(self, d=D):
        super().__init__()
        self.sde_type, self.noise_type = "ito", "diagonal"
        self.post, self.prior = _mlp(d + 1, d), _mlp(d, d)
        self.log_sigma = torch.nn.Parameter(torch.full((d,), -1.0))

    def f_post(self, t, y):
        return self.post(torch.cat([y, torch.sin(t).expand(y.shape[0], 1)], -1))

    def h(self, t, y):
        return self.prior(y)

    def g(self, t, y):
        return self.log_sigma.exp().expand_as(y)


def _inputs(seed, d=D, n=5):
    y0 = torch.randn(B, d, generator=gen(seed)) * 0.5
    ts = torch.linspace(0.0, 0.4, n)
    target = torch.randn(n, B, d, generator=gen(seed + 1))
    return y0, ts, target


def ito_diagonal():
    import torchsde
    sde = DiagSDE()
    y0, ts, target = _inputs(701)
    methods = [("euler", None), ("milstein", None), ("milstein", {"grad_free": True}), ("srk", None)]

    def run(y0, ts, target):
        if sde.training:
            loss = 0
            for method, options in methods:
                ys = torchsde.sdeint_adjoint(sde, y0, ts, method=method, options=options, dt=0.05)
                loss = loss + ((ys - target) ** 2).mean()
            loss.backward()
            return loss.detach()
        return [torchsde.sdeint(sde, y0, ts, method=method, options=options, dt=0.05) for method, options in methods]
    args = ((y0, ts, target), {})
    return step(run, eval_runs=args, train_runs=args, sde=sde)


def adaptive():
    import torchsde
    ito, strat = DiagSDE(), DiagSDE("stratonovich")
    y0, ts, target = _inputs(711)

    def run(y0, ts, target):
        outs = []
        for sde, method in ((ito, "srk"), (strat, "midpoint")):
            bm = torchsde.BrownianInterval(t0=ts[0], t1=ts[-1], size=(B, D), device=y0.device,
                                           levy_area_approximation="space-time", entropy=7)
            if ito.training:
                outs.append(torchsde.sdeint_adjoint(sde, y0, ts, bm=bm, method=method, dt=0.1, adaptive=True,
                                                    rtol=1e-2, atol=1e-3, adjoint_adaptive=True,
                                                    adjoint_rtol=1e-2, adjoint_atol=1e-3))
            else:
                outs.append(torchsde.sdeint(sde, y0, ts, bm=bm, method=method, dt=0.1, adaptive=True,
                                            rtol=1e-2, atol=1e-3))
        if ito.training:
            loss = sum(((ys - target) ** 2).mean() for ys in outs)
            loss.backward()
            return loss.detach()
        return outs
    args = ((y0, ts, target), {})
    return step(run, eval_runs=args, train_runs=args, ito=ito, strat=strat)


def stratonovich_general():
    import torchsde
    sde = GeneralSDE()
    y0, ts, target = _inputs(721, d=3)
    methods = [("euler_heun", None), ("heun", None), ("midpoint", None), ("log_ode", None), ("reversible_heun", None)]

    def run(y0, ts, target):
        bm = torchsde.BrownianInterval(t0=0.0, t1=0.4, size=(B, 2), device=y0.device,
                                       levy_area_approximation="davie", entropy=11)
        if sde.training:
            ys1 = torchsde.sdeint_adjoint(sde, y0, ts, bm=bm, method="reversible_heun",
                                          adjoint_method="adjoint_reversible_heun", dt=0.05)
            ys2 = torchsde.sdeint_adjoint(sde, y0, ts, bm=bm, method="log_ode", adjoint_method="midpoint", dt=0.05)
            loss = ((ys1 - target) ** 2).mean() + ((ys2 - target) ** 2).mean()
            loss.backward()
            return loss.detach()
        return [torchsde.sdeint(sde, y0, ts, bm=bm, method=method, options=options, dt=0.05)
                for method, options in methods]
    args = ((y0, ts, target), {})
    return step(run, eval_runs=args, train_runs=args, sde=sde)


def latent_and_additive():
    import torchsde
    latent = LatentSDE()
    add, scal = AdditiveSDE("additive"), AdditiveSDE("scalar")
    y0, ts, target = _inputs(731)
    names = {"drift": "f_post", "prior_drift": "h"}

    def run(y0, ts, target):
        if latent.training:
            ys, logqp = torchsde.sdeint_adjoint(latent, y0, ts, method="euler", dt=0.05, logqp=True, names=names)
            loss = ((ys - target) ** 2).mean() + logqp.sum(0).mean()
        else:
            ys, logqp = torchsde.sdeint(latent, y0, ts, method="euler", dt=0.05, logqp=True, names=names)
            loss = ((ys - target) ** 2).mean() + logqp.sum(0).mean()
        path = torchsde.BrownianPath(t0=ts[0], w0=torch.zeros(B, 2, device=y0.device))
        tree = torchsde.BrownianTree(t0=ts[0], w0=torch.zeros(B, 1, device=y0.device), t1=ts[-1], entropy=3)
        ya, extra = torchsde.sdeint(add, y0, ts, method="srk", dt=0.05, extra=True)   # srk needs a Levy area:
        yb = torchsde.sdeint(add, y0, ts, bm=path, method="euler", dt=0.05)           # the default Brownian motion
        yc = torchsde.sdeint(scal, y0, ts, bm=tree, method="euler", dt=0.05)
        loss = loss + sum(((y - target) ** 2).mean() for y in (ya, yb, yc))
        if latent.training:
            loss.backward()
            return loss.detach()
        return loss, extra
    args = ((y0, ts, target), {})
    return step(run, eval_runs=args, train_runs=args, latent=latent, add=add, scal=scal)


MODELS = {
    "torchsde_ito_diagonal": ito_diagonal,
    "torchsde_adaptive": adaptive,
    "torchsde_stratonovich_general": stratonovich_general,
    "torchsde_latent_additive": latent_and_additive,
}
