"""openai-whisper: a Whisper model from tiny ModelDimensions (32-dim, 2 layers, 100 mel frames,
multilingual vocabulary so the shipped tokenizer fits), random weights. Forward with a teacher-
forced loss (train), detect_language, `decode` greedy with timestamp rules, beam search, and
temperature sampling with best-of (batch 1: whisper 20250625 fails on batch > 1 with n_group > 1)."""
from __future__ import annotations

import torch

from . import gen, step


def tiny_whisper():
    from whisper.model import ModelDimensions, Whisper
    dims = ModelDimensions(n_mels=80, n_audio_ctx=50, n_audio_state=32, n_audio_head=4, n_audio_layer=2,
                           n_vocab=51865, n_text_ctx=24, n_text_state=32, n_text_head=4, n_text_layer=2)
    return Whisper(dims)


def _mel(b=2, seed=41):
    return torch.randn(b, 80, 100, generator=gen(seed))


def forward_loss():
    model = tiny_whisper()
    mel = _mel()
    tokens = torch.randint(0, 50000, (2, 10), generator=gen(42))

    def run(mel, tokens):
        logits = model(mel, tokens)
        return torch.nn.functional.cross_entropy(logits[:, :-1].transpose(1, 2), tokens[:, 1:])
    return step(run, eval_runs=((mel, tokens), {}), train_runs=((mel, tokens), {}), model=model)


def decode():
    import whisper
    model = tiny_whisper()
    mel = _mel()

    def run(mel):
        opts = whisper.DecodingOptions
        return [model.detect_language(mel),
                whisper.decode(model, mel, opts(fp16=False, language="en", without_timestamps=False,
                                                max_initial_timestamp=1.0)),
                whisper.decode(model, mel[:1], opts(fp16=False, beam_size=2, language=None, patience=1.0)),
                whisper.decode(model, mel[:1], opts(fp16=False, temperature=0.7, best_of=2, language="de",
                                                task="translate", suppress_blank=True))]
    return step(run, eval_runs=((mel,), {}), model=model)


MODELS = {
    "whisper_forward": forward_loss,
    "whisper_decode": decode,
}
