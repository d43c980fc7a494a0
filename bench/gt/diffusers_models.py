"""diffusers: UNet2DConditionModel, AutoencoderKL and VQModel from tiny configs (the sizes the
diffusers tests use), random weights. Steps: the UNet training step (scheduler.add_noise, UNet,
loss), VAE encode/sample/decode with its KL loss, and denoising loops -- the body of a
text-to-image pipeline without the text encoder -- under several schedulers (set_timesteps is
part of the loop, as in a pipeline call)."""
from __future__ import annotations

import inspect

import torch

from . import gen, step

UNET = dict(block_out_channels=(32, 64), layers_per_block=1, sample_size=16, in_channels=4, out_channels=4,
            down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
            up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"), cross_attention_dim=32, attention_head_dim=8,
            norm_num_groups=32)
VAE = dict(block_out_channels=(32, 64), in_channels=3, out_channels=3, latent_channels=4,
           down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
           up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"), norm_num_groups=32, sample_size=32)
SCHEDULERS = ["DDIMScheduler", "DDPMScheduler", "DPMSolverMultistepScheduler", "EulerDiscreteScheduler",
              "EulerAncestralDiscreteScheduler", "LMSDiscreteScheduler", "PNDMScheduler",
              "UniPCMultistepScheduler", "HeunDiscreteScheduler", "DEISMultistepScheduler",
              "KDPM2DiscreteScheduler", "LCMScheduler", "TCDScheduler", "FlowMatchEulerDiscreteScheduler"]


def _unet():
    from diffusers import UNet2DConditionModel
    return UNet2DConditionModel(**UNET)


def unet_train():
    from diffusers import DDPMScheduler
    from diffusers.training_utils import compute_snr
    unet = _unet()
    sched = DDPMScheduler(num_train_timesteps=100)
    g = gen(51)
    latents = torch.randn(2, 4, 16, 16, generator=g)
    text = torch.randn(2, 7, 32, generator=g)
    noise = torch.randn(2, 4, 16, 16, generator=g)
    t = torch.tensor([3, 80])

    def run(latents, text, noise):
        noisy = sched.add_noise(latents, noise, t)
        pred = unet(noisy, t, encoder_hidden_states=text).sample
        snr = compute_snr(sched, t)
        w = torch.stack([snr, 5 * torch.ones_like(t)], dim=1).min(dim=1)[0] / snr
        loss = torch.nn.functional.mse_loss(pred, noise, reduction="none").mean(dim=(1, 2, 3))
        return (loss * w).mean()
    return step(run, eval_runs=((latents, text, noise), {}), train_runs=((latents, text, noise), {}), unet=unet)


def vae():
    from diffusers import AutoencoderKL, VQModel
    kl = AutoencoderKL(**VAE)
    vq = VQModel(**{k: v for k, v in VAE.items() if k != "sample_size"}, num_vq_embeddings=16, vq_embed_dim=4)
    x = torch.rand(2, 3, 32, 32, generator=gen(52)) * 2 - 1

    def run(x):
        post = kl.encode(x).latent_dist
        z = post.sample(generator=gen(53))
        rec = kl.decode(z).sample
        loss = torch.nn.functional.mse_loss(rec, x) + 1e-6 * post.kl().mean()
        return loss, vq(x).sample, kl.tiled_decode(z) if hasattr(kl, "tiled_decode") else None
    return step(run, eval_runs=((x,), {}), train_runs=((x,), {}), kl=kl, vq=vq)


def denoise(scheduler_name):
    def build():
        import diffusers
        unet = _unet()
        cls = getattr(diffusers, scheduler_name)
        kw = {"num_train_timesteps": 100}
        if scheduler_name == "PNDMScheduler":
            kw["skip_prk_steps"] = True
        sched = cls(**kw)
        step_kw = {"generator": gen(55)} if "generator" in inspect.signature(sched.step).parameters else {}
        g = gen(54)
        latents = torch.randn(2, 4, 16, 16, generator=g)
        text = torch.randn(2, 7, 32, generator=g)

        def run(latents, text):
            sched.set_timesteps(3)
            x = latents * getattr(sched, "init_noise_sigma", 1.0)
            for t in sched.timesteps:
                inp = torch.cat([x] * 2)
                if hasattr(sched, "scale_model_input"):
                    inp = sched.scale_model_input(inp, t)
                noise = unet(inp, t, encoder_hidden_states=torch.cat([text, torch.zeros_like(text)])).sample
                cond, uncond = noise.chunk(2)
                noise = uncond + 5.0 * (cond - uncond)
                x = sched.step(noise, t, x, **step_kw).prev_sample
            return x
        return step(run, eval_runs=((latents, text), {}), unet=unet)
    return build


MODELS = {"diffusers_unet_train": unet_train, "diffusers_vae": vae}
MODELS.update({f"diffusers_denoise_{n.replace('Scheduler', '').lower()}": denoise(n) for n in SCHEDULERS})
