"""demucs (music source separation): the three model families built from their constructors at
tiny sizes (8 kHz, 8 channels, a 1-second training segment; random weights: `demucs.pretrained`
is never touched, it downloads). A training step as demucs' solver runs it (its `Solver` needs
`dora`, not installed): the augmentations on the device batch (`Shift`, `FlipChannels`,
`FlipSign`, `Scale`, `Remix`), the model on the remixed mixture, an L1 loss per source and the
SVD penalty (`svd_penalty` with power iteration); inference through `apply_model` (random shifts,
split into overlapping chunks, a `BagOfModels` with per-source weights), which is how
`demucs.separate` and `demucs.api` call the models. HTDemucs (hybrid transformer, CaPE
embeddings), HDemucs (with Wiener filtering at test time, `cac=False`) and the time-domain Demucs
(BLSTM, LocalState attention).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from . import gen, step

SOURCES = ["drums", "bass", "other"]
SR = 8000


def _htdemucs():
    from demucs.htdemucs import HTDemucs
    return HTDemucs(SOURCES, audio_channels=2, channels=8, nfft=512, depth=3, t_layers=1, t_heads=2,
                    t_hidden_scale=1.0, samplerate=SR, segment=1, norm_starts=2, t_emb="cape",
                    t_cape_augment=True, dconv_comp=4)


def _hdemucs():
    from demucs.hdemucs import HDemucs
    return HDemucs(SOURCES, audio_channels=2, channels=8, nfft=256, depth=4, samplerate=SR, segment=1,
                   wiener_iters=1, end_iters=1, cac=False, norm_starts=2, dconv_attn=2, dconv_lstm=2)


def _demucs():
    from demucs.demucs import Demucs
    return Demucs(SOURCES, audio_channels=2, channels=8, depth=3, lstm_layers=1, samplerate=SR, segment=1,
                  dconv_attn=2, dconv_lstm=2)


def _augment():
    from demucs import augment
    return torch.nn.Sequential(augment.Shift(shift=400, same=False), augment.FlipChannels(),
                               augment.FlipSign(), augment.Scale(proba=1.0, min=0.5, max=1.25),
                               augment.Remix(proba=1.0, group_size=2))


def _sources(b=2, n=SR + 400, seed=301):
    return torch.randn(b, len(SOURCES), 2, n, generator=gen(seed)) * 0.1


def train_and_separate(make, shifts=1, bag=False, penalty=True):
    """Train: augment + model + L1 + SVD penalty. Eval: `apply_model` with shifts and chunks."""
    def build():
        from demucs.apply import BagOfModels, apply_model
        from demucs.svd import svd_penalty
        model = make()
        aug = _augment()
        sep = BagOfModels([model, make()], weights=[[1.0, 0.5, 1.0], [0.5, 1.0, 1.0]]) if bag else model
        sources = _sources()
        mix_eval = torch.randn(1, 2, SR * 3 // 2, generator=gen(302)) * 0.1

        def run(sources, mix_eval):
            if model.training:
                s = aug(sources)
                mix = s.sum(dim=1)
                est = model(mix)
                loss = F.l1_loss(est, s, reduction="none").mean(dim=(0, 2, 3)).mean()
                if penalty:
                    loss = loss + 1e-4 * svd_penalty(model, min_size=0.0, niters=2, powm=False, proba=1.0)
                return loss
            # no `device=`: apply_model then runs on `mix.device` (a string would stand for the host)
            return apply_model(sep, mix_eval, shifts=shifts, split=True, overlap=0.25, progress=False)
        args = ((sources, mix_eval), {})
        return step(run, eval_runs=args, train_runs=args, model=model, aug=aug, sep=sep)
    return build


def hdemucs_wiener():
    """HDemucs with Wiener filtering: train forward + loss, eval forward on half a second (the
    Wiener EM is slow on the CPU through `apply_model`'s chunks)."""
    def build():
        model = _hdemucs()
        sources = _sources(n=SR)
        mix_eval = torch.randn(1, 2, SR // 2, generator=gen(303)) * 0.1

        def run(sources, mix_eval):
            if model.training:
                return F.l1_loss(model(sources.sum(dim=1)), sources)
            return model(mix_eval)
        args = ((sources, mix_eval), {})
        return step(run, eval_runs=args, train_runs=args, model=model)
    return build


MODELS = {
    "demucs_htdemucs": train_and_separate(_htdemucs, shifts=0),
    "demucs_htdemucs_bag_shifts": train_and_separate(_htdemucs, shifts=1, bag=True, penalty=False),
    "demucs_hdemucs_wiener": hdemucs_wiener(),
    "demucs_demucs_v2": train_and_separate(_demucs),
}
