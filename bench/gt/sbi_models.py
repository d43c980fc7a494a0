"""sbi 0.27.0 (simulation-based inference): neural posterior, likelihood and ratio estimation (NPE-C with
a masked autoregressive flow and, sequentially, with a mixture density network; NLE with a spline flow;
NRE-B/C; flow-matching and score-based posterior estimation) on a toy simulator written here (a
2-parameter box-uniform prior, x = a noisy 3-d function of theta; 256 seeded simulations), and their
posteriors: direct sampling with the prior-support rejection, rejection, importance and MCMC (vectorised
slice) sampling, ODE / diffusion sampling, log-probabilities with the leakage correction. Tiny networks
(16 hidden features, 2 transforms or layers), random initialisation, nothing downloaded.

Installed for suite i in a separate venv (/work/venv_i, which also sees the shared heavy venv's torch
2.14.1 through a .pth): sbi 0.27.0 (zuko 1.6.0, nflows 0.14, pyro, matplotlib, tensorboard, ...).
Only sbi's files count (the flows in zuko/nflows are its libraries: an op inside them is attributed to
the sbi frame that called them).

Each trainer is set up by its own `append_simulations(...).train(max_num_epochs=1)` in the builder
(network construction, the z-scoring of its inputs, the optimizer, the data loaders; outside the step),
whose `_run_training_loop` arguments (loaders, loss arguments) are kept. The step is what `train` runs
every epoch and what a user calls on the trained posterior:

* train: `_train_epoch` over two batches of its own train loader (the per-sample losses, their
  `.sum().item()`, `backward`, gradient clipping, `optimizer.step()`);
* eval: `_validate_epoch` over the validation loader (what `train` runs after every epoch, under
  no_grad), then `build_posterior(...)` and its `sample` / `log_prob` at an observation (the user's
  inference; with grad enabled as in a script: rejection sampling's gradient ascent needs it).

Loader batches are host tensors as in a GPU run (the trainer's own loader; not step inputs); the
observation is a step input. sbi keeps its device as a canonical string ("cpu", "cuda:0"), so the
trainers are handed `gt.DEVICE_NAME` and sbi's `process_device` is made to return it (see
`_device_stand_in`): `.to(self.device)` is then a move to the accelerator stand-in, as in a GPU run,
not a host copy. Posteriors are built by `build_posterior()` from the trainer's own network (the
trainer's device; given the network, sbi would infer a plain "cpu" string from its parameters).
"""
from __future__ import annotations

import itertools

import torch

from . import DEVICE_NAME, gen, step


def _nets():
    from sbi.neural_nets import classifier_nn, likelihood_nn, posterior_nn
    from sbi.neural_nets.factory import posterior_flow_nn, posterior_score_nn
    return classifier_nn, likelihood_nn, posterior_nn, posterior_flow_nn, posterior_score_nn

N_SIM, BATCH = 256, 32


class _Batches(list):
    """Two batches of a loader, with the loader's `batch_size` (`_train_epoch` divides by it)."""

    def __init__(self, loader, n=2):
        super().__init__(itertools.islice(iter(loader), n))
        self.batch_size = loader.batch_size


def _device_stand_in():
    """sbi keeps its device as a canonical string (`process_device` returns `"cpu"`, and every
    trainer, posterior and potential calls it again on what it is handed): in every sbi module that
    holds it, `process_device` returns the harness's accelerator stand-in `gt.DEVICE_NAME` (a string
    equal to "cpu") where it would return "cpu", so `.to(self.device)` is a move to the accelerator
    as in a GPU run, not a host copy. Explicit host copies (`.cpu()`, `.numpy()`) stay host copies."""
    import sys

    import sbi.inference  # noqa: F401   (imports the trainers, posteriors and potentials)
    import sbi.utils.torchutils as tu
    orig = getattr(tu.process_device, "__wrapped__", tu.process_device)
    if orig is not tu.process_device:
        return

    def process_device(device):
        out = orig(device)
        return DEVICE_NAME if out == "cpu" else out
    process_device.__wrapped__ = orig
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("sbi") and getattr(mod, "process_device", None) is orig:
            mod.process_device = process_device


def _kw():
    """A trainer's common arguments: the accelerator stand-in, no progress bars, sbi's own TensorBoard
    tracker writing to a temporary directory (its default is ./sbi-logs)."""
    import tempfile

    from sbi.utils.tracking import TensorBoardTracker
    from torch.utils.tensorboard import SummaryWriter
    return {"device": DEVICE_NAME, "show_progress_bars": False,
            "tracker": TensorBoardTracker(SummaryWriter(tempfile.mkdtemp(prefix="gt_sbi_logs_")))}


def _prior():
    _device_stand_in()
    from sbi.utils import BoxUniform
    return BoxUniform(low=-2 * torch.ones(2), high=2 * torch.ones(2))


def _simulate(theta, seed):
    g = gen(seed)
    x = torch.stack([theta[:, 0] + theta[:, 1], theta[:, 0] * theta[:, 1], theta[:, 0].sin()], 1)
    return x + 0.2 * torch.randn(x.shape, generator=g)


def _data(seed, prior=None, n=N_SIM):
    prior = prior or _prior()
    torch.manual_seed(seed)
    theta = prior.sample((n,))
    return theta, _simulate(theta, seed + 1)


def _fit(inference, theta, x, proposal=None, **train_kw):
    """One epoch of the trainer's own `train` (outside the step), keeping its training loop's arguments."""
    kept = {}
    inner = inference._run_training_loop

    def keep(train_loader, val_loader, train_config, loss_args=None, **kw):
        kept.update(train=_Batches(train_loader), val=_Batches(val_loader, 1), clip=train_config.clip_max_norm,
                    loss_args=loss_args)
        return inner(train_loader, val_loader, train_config, loss_args, **kw)
    inference._run_training_loop = keep
    inference.append_simulations(theta, x, **({"proposal": proposal} if proposal is not None else {}))
    est = inference.train(max_num_epochs=1, training_batch_size=BATCH, **train_kw)
    inference._run_training_loop = inner
    return est, kept


def _trained_step(inference, kept, net, x_o, infer):
    """The step: an epoch body (train) or the validation epoch and the user's posterior calls (eval)."""
    def run(x_o):
        if net.training:
            return inference._train_epoch(kept["train"], kept["clip"], kept["loss_args"])
        out = [inference._validate_epoch(kept["val"], kept["loss_args"])]
        with torch.enable_grad():    # as in a user's script (rejection sampling's gradient ascent needs it)
            out.append(infer(x_o))
        return out
    args = ((x_o,), {})
    return step(run, eval_runs=args, train_runs=args, net=net)


def _x_o(seed=7):
    theta = torch.tensor([[0.5, -1.0]])
    return _simulate(theta, seed)


def npe_maf():
    """NPE-C with a masked autoregressive flow: direct posterior sampling (samples outside the box prior
    rejected and redrawn), `log_prob` with the leakage correction, batched sampling, the MAP."""
    from sbi.inference import NPE
    classifier_nn, likelihood_nn, posterior_nn, posterior_flow_nn, posterior_score_nn = _nets()
    prior = _prior()
    theta, x = _data(3001, prior)
    inf = NPE(prior=prior, density_estimator=posterior_nn("maf", hidden_features=16, num_transforms=2), **_kw())
    est, kept = _fit(inf, theta, x)
    probe = prior.sample((8,))

    def infer(x_o):
        post = inf.build_posterior()
        s = post.sample((64,), x=x_o, show_progress_bars=False)
        lp = post.log_prob(probe, x=x_o, norm_posterior=True)
        sb = post.sample_batched((16,), x=torch.cat([x_o, x_o + 0.1]), show_progress_bars=False)
        return s, lp, sb
    return _trained_step(inf, kept, est, _x_o(), infer)


def npe_mdn_sequential():
    """Sequential NPE-C (APT): a second round on simulations from the first round's posterior, trained
    with the proposal-posterior loss (a mixture density network: sbi takes the non-atomic, analytic
    mixture-of-Gaussians loss); eval: the truncated posterior's
    samples and log-probabilities."""
    from sbi.inference import NPE
    classifier_nn, likelihood_nn, posterior_nn, posterior_flow_nn, posterior_score_nn = _nets()
    prior = _prior()
    theta, x = _data(3011, prior)
    inf = NPE(prior=prior, density_estimator=posterior_nn("mdn", hidden_features=16, num_components=3), **_kw())
    est, _ = _fit(inf, theta, x)
    x_o = _x_o(11)
    proposal = inf.build_posterior().set_default_x(x_o)
    torch.manual_seed(3012)
    theta2 = proposal.sample((128,), show_progress_bars=False)
    x2 = _simulate(theta2, 3013)
    est, kept = _fit(inf, theta2, x2, proposal=proposal)
    probe = prior.sample((8,))

    def infer(x_o):
        post = inf.build_posterior()
        return post.sample((48,), x=x_o, show_progress_bars=False), post.log_prob(probe, x=x_o)
    return _trained_step(inf, kept, est, x_o, infer)


def nle_rejection_importance():
    """NLE with a neural spline flow likelihood: posteriors by rejection sampling and by sampling-
    importance-resampling over the prior (the likelihood-based potential with the prior's support); the
    rejection sampler's search for the potential's maximum kept small (64 points, 10 ascent steps)."""
    from sbi.inference import NLE
    from sbi.inference.posteriors.posterior_parameters import RejectionPosteriorParameters
    classifier_nn, likelihood_nn, posterior_nn, posterior_flow_nn, posterior_score_nn = _nets()
    prior = _prior()
    theta, x = _data(3021, prior)
    inf = NLE(prior=prior, density_estimator=likelihood_nn("nsf", hidden_features=16, num_transforms=2, num_bins=4),
              **_kw())
    est, kept = _fit(inf, theta, x)

    def infer(x_o):
        rej = inf.build_posterior(sample_with="rejection", posterior_parameters=RejectionPosteriorParameters(
            max_sampling_batch_size=256, num_samples_to_find_max=64, num_iter_to_find_max=10))
        a = rej.sample((32,), x=x_o, show_progress_bars=False)
        imp = inf.build_posterior(sample_with="importance")
        b = imp.sample((32,), x=x_o, show_progress_bars=False)
        return a, b, imp.log_prob(a[:4], x=x_o)
    return _trained_step(inf, kept, est, _x_o(21), infer)


def nre_mcmc():
    """NRE-B (contrastive ratio classifier, 10 atoms; a linear classifier) and NRE-C (residual) in one step;
    vectorised slice-sampling MCMC over the ratio-based potential (two chains, short warm-up)."""
    from sbi.inference import NRE, NRE_C
    classifier_nn, likelihood_nn, posterior_nn, posterior_flow_nn, posterior_score_nn = _nets()
    prior = _prior()
    theta, x = _data(3031, prior)
    inf = NRE(prior=prior, classifier=classifier_nn("linear"), **_kw())
    est, kept = _fit(inf, theta, x)
    inf_c = NRE_C(prior=prior, classifier=classifier_nn("resnet", hidden_features=16), **_kw())
    est_c, kept_c = _fit(inf_c, theta, x)

    def run(x_o):
        if est.training:
            return (inf._train_epoch(kept["train"], kept["clip"], kept["loss_args"]),
                    inf_c._train_epoch(kept_c["train"], kept_c["clip"], kept_c["loss_args"]))
        out = [inf._validate_epoch(kept["val"], kept["loss_args"]),
               inf_c._validate_epoch(kept_c["val"], kept_c["loss_args"])]
        with torch.enable_grad():
            post = inf.build_posterior(sample_with="mcmc", mcmc_method="slice_np_vectorized",
                                       mcmc_parameters={"num_chains": 2, "warmup_steps": 1, "thin": 1,
                                                        "init_strategy": "proposal"})
            out.append(post.sample((2,), x=x_o, show_progress_bars=False))
        return out
    args = ((_x_o(31),), {})
    return step(run, eval_runs=args, train_runs=args, net=est, net_c=est_c)


def fmpe():
    """Flow-matching posterior estimation: the vector-field loss, sampling by the ODE flow, log_prob."""
    from sbi.inference import FMPE
    classifier_nn, likelihood_nn, posterior_nn, posterior_flow_nn, posterior_score_nn = _nets()
    prior = _prior()
    theta, x = _data(3041, prior)
    inf = FMPE(prior=prior, vf_estimator=posterior_flow_nn("mlp", hidden_features=16, num_layers=2), **_kw())
    est, kept = _fit(inf, theta, x)
    probe = prior.sample((4,))

    def infer(x_o):
        post = inf.build_posterior()
        return post.sample((32,), x=x_o, show_progress_bars=False), post.log_prob(probe, x=x_o)
    return _trained_step(inf, kept, est, _x_o(41), infer)


def npse():
    """Score-based (diffusion) posterior estimation, VE SDE: the denoising score-matching loss;
    sampling by the reverse diffusion (predictor-corrector, few steps)."""
    from sbi.inference import NPSE
    classifier_nn, likelihood_nn, posterior_nn, posterior_flow_nn, posterior_score_nn = _nets()
    prior = _prior()
    theta, x = _data(3051, prior)
    inf = NPSE(prior=prior, vf_estimator=posterior_score_nn("mlp", sde_type="ve", hidden_features=16, num_layers=2),
               sde_type="ve", **_kw())
    est, kept = _fit(inf, theta, x)

    def infer(x_o):
        post = inf.build_posterior(sample_with="sde")
        return post.sample((16,), x=x_o, steps=20, show_progress_bars=False)
    return _trained_step(inf, kept, est, _x_o(51), infer)


MODELS = {
    "sbi_npe_maf": npe_maf,
    "sbi_npe_mdn_sequential": npe_mdn_sequential,
    "sbi_nle_rejection_importance": nle_rejection_importance,
    "sbi_nre_mcmc": nre_mcmc,
    "sbi_fmpe": fmpe,
    "sbi_npse": npse,
}
