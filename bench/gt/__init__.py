"""Ground-truth model builders for packages beyond torchvision/transformers (issue 9).

Each module exposes `MODELS`: name -> builder. A builder returns `(model, eval_runs, train_runs)`
like the builders in `bench/groundtruth.py`: `model(*args, **kwargs)` is the step that runs under
the recording modes; everything done in the builder (construction, inputs) is outside the step.
Losses, decoding loops and pipelines are wrapped in a small `Step` module so they are the step.
Every model is built from a config shipped in its package with random weights; nothing is
downloaded.
"""
from __future__ import annotations

import torch



# The harness's stand-in for the accelerator: a device object that bench/groundtruth.py's
# provenance tracker treats as the GPU of a GPU run (a `"cpu"` string or a `torch.device("cpu")`
# it has never seen is the host there). Pass it where a harness hands a package its device.
DEVICE = torch.device("cpu")


class _DeviceName(str):
    """A device *string* that the provenance tracker knows by identity (like `DEVICE`)."""


# The same stand-in for packages that keep their device as a canonical string (sbi's
# `process_device` returns `"cpu"` / `"cuda:0"`): equal to "cpu", so torch and the package take it
# as the host, while `.to(DEVICE_NAME)` or `device=DEVICE_NAME` is the accelerator to the tracker,
# where a plain `"cpu"` string is the host (an explicit host copy).
DEVICE_NAME = _DeviceName("cpu")


def gen(seed: int = 1234) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


class Step(torch.nn.Module):
    """Wraps a callable (a loss, a decode loop, a pipeline) as the step; `parts` are registered so
    that `.train()`/`.eval()` reach the modules the callable uses."""

    def __init__(self, fn, **parts):
        super().__init__()
        self.fn = fn
        self.parts = torch.nn.ModuleDict({k: v for k, v in parts.items() if isinstance(v, torch.nn.Module)})

    def forward(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


def step(fn, *, eval_runs=((), {}), train_runs=None, **parts):
    """A builder result for a callable: one eval run and optionally one train run (args, kwargs)."""
    ev = [eval_runs] if eval_runs is not None else []
    tr = [train_runs] if train_runs is not None else []
    return Step(fn, **parts), ev, tr


def new_models() -> tuple[dict, list[str]]:
    """All builders of the installed packages, and those packages (missing ones are skipped)."""
    return _load((("kornia_models", "kornia"), ("diffusers_models", "diffusers"),
                  ("monai_models", "monai"), ("sam_models", "segment_anything"),
                  ("xtransformers_models", "x_transformers"), ("whisper_models", "whisper")))


def suite_b_models() -> tuple[dict, list[str]]:
    """Suite b: two packages of other domains (detection, graph learning) that dynlint was not
    tuned on when it was added; kept apart so its first-look figures stay unseen data."""
    return _load((("ultralytics_models", "ultralytics"), ("pyg_models", "torch_geometric")))


def suite_c_models() -> tuple[dict, list[str]]:
    """Suite c: vision backbones, metrics and audio (timm, torchmetrics, torchaudio), added unseen
    like suite b; each package is skipped when it is not installed."""
    return _load((("timm_models", "timm"), ("torchmetrics_models", "torchmetrics"),
                  ("torchaudio_models", "torchaudio")))


def suite_d_models() -> tuple[dict, list[str]]:
    """Suite d: EfficientDet detection, music source separation, adaptive ODE solvers and
    vision-language models (effdet, demucs, torchdiffeq, open_clip), added unseen like b and c."""
    return _load((("effdet_models", "effdet"), ("demucs_models", "demucs"),
                  ("torchdiffeq_models", "torchdiffeq"), ("openclip_models", "open_clip")))


def suite_e_models() -> tuple[dict, list[str]]:
    """Suite e: speech recognition and speaker recognition toolkit (speechbrain: transformer,
    conformer and CRDNN ASR with their searchers and scorers, ECAPA-TDNN), added unseen like b-d."""
    return _load((("speechbrain_models", "speechbrain"),))


def suite_f_models() -> tuple[dict, list[str]]:
    """Suite f: semantic segmentation architectures with their ignore-masked losses and metrics,
    and stochastic differential equation solvers (segmentation_models_pytorch, torchsde), added
    unseen like b-e."""
    return _load((("smp_models", "segmentation_models_pytorch"), ("torchsde_models", "torchsde")))


def suite_g_models() -> tuple[dict, list[str]]:
    """Suite g: metric learning (losses, miners, reducers, retrieval accuracy) and Gaussian
    processes (exact and variational GPs, their marginal likelihoods, predictions; the linear
    algebra of linear_operator: Cholesky with jitter, CG), added unseen like b-f."""
    return _load((("pml_models", "pytorch_metric_learning"), ("gpytorch_models", "gpytorch"),
                  ("gpytorch_models", "linear_operator")))


def suite_h_models() -> tuple[dict, list[str]]:
    """Suite h: knowledge-graph embeddings (pykeen: interaction models with its sLCWA/LCWA training
    loops, negative-sampling filters, filtered rank-based evaluation) and attentive tabular networks
    (pytorch_tabnet: sparsemax/entmax feature masks, its fit loop's batch step, predictions and
    explanations), added unseen like b-g."""
    return _load((("pykeen_models", "pykeen"), ("tabnet_models", "pytorch_tabnet")))


def suite_i_models() -> tuple[dict, list[str]]:
    """Suite i: reinforcement learning (torchrl: environments and collectors, replay buffers, PPO/A2C/
    SAC/TD3/DQN/CQL/IQL losses with their value estimators) and simulation-based inference (sbi: neural
    posterior, likelihood and ratio estimation with flows and mixture density networks, rejection and
    importance sampling), added unseen like b-h."""
    return _load((("torchrl_models", "torchrl"), ("sbi_models", "sbi")))


def suite_j_models() -> tuple[dict, list[str]]:
    """Suite j: Bayesian optimisation (botorch: GP surrogates fitted by its scipy and torch loops,
    analytic, Monte-Carlo, knowledge-gradient, entropy-search and hypervolume acquisition functions
    optimised by `optimize_acqf` and its discrete/mixed variants, Thompson sampling) and physics-informed
    neural networks (deepxde on its pytorch backend: PDE/time-PDE residuals with boundary and initial
    conditions, inverse problems, DeepONet, Adam and L-BFGS training), added unseen like b-i."""
    return _load((("botorch_models", "botorch"), ("deepxde_models", "deepxde")))


def suite_k_models() -> tuple[dict, list[str]]:
    """Suite k: diffusion samplers and denoiser training (k-diffusion: Karras preconditioning, discrete DDPM
    wrappers, Euler/Heun/DPM-2/LMS/DPM-Solver(++) samplers with adaptive step control and Brownian-tree noise,
    ODE log-likelihood, KID/FID) and normalizing flows (normflows: RealNVP, Glow, neural spline, residual
    and stochastic flows, their forward/reverse KL training, sampling and log-densities), added unseen like b-j."""
    return _load((("kdiffusion_models", "k_diffusion"), ("normflows_models", "normflows")))


def _load(pairs) -> tuple[dict, list[str]]:
    import importlib
    models, packages = {}, []
    for mod_name, pkg in pairs:
        try:   # the builder module first: it may set the package's environment (ultralytics)
            mod = importlib.import_module(f"{__name__}.{mod_name}")
            importlib.import_module(pkg)
        except ImportError as e:
            print(f"skipping {pkg}: {e}")
            continue
        models.update(mod.MODELS)
        packages.append(pkg)   # (a builder module may count two packages: gpytorch + linear_operator)
    return models, packages
