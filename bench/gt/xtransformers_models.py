"""x-transformers: TransformerWrapper decoders/encoders with many of the library's features switched
on (rotary, alibi, relative position bias, memory tokens, residual attention, gating...), the
autoregressive wrapper (loss in train mode; greedy, top-k, beam search and contrastive `generate`
with variable-length prompts and an eos token), the non-autoregressive (MaskGIT-style) wrapper,
an encoder-decoder XTransformer and ViTransformerWrapper. Dim 32, 2 layers, vocab 64."""
from __future__ import annotations

import torch

from . import gen, step

VOCAB, LEN = 64, 32


def _tokens(b=2, n=16, seed=31):
    return torch.randint(1, VOCAB, (b, n), generator=gen(seed))


def _decoder(**attn):
    from x_transformers import Decoder, TransformerWrapper
    return TransformerWrapper(num_tokens=VOCAB, max_seq_len=LEN,
                              attn_layers=Decoder(dim=32, depth=2, heads=4, **attn))


def ar_wrapper(**attn):
    def build():
        from x_transformers import AutoregressiveWrapper
        model = AutoregressiveWrapper(_decoder(**attn), pad_value=0)
        x = _tokens(n=17)
        x[1, -4:] = 0
        return model, [((x,), {})], [((x,), {})]
    return build


def generate():
    from x_transformers import AutoregressiveWrapper
    model = AutoregressiveWrapper(_decoder(rotary_pos_emb=True, attn_flash=False), pad_value=0)
    amateur = _decoder(rotary_pos_emb=True)
    prompts = _tokens(n=4)
    lens = torch.tensor([4, 2])

    def run(prompts):
        out = [model.generate(prompts, 6, temperature=0.0, eos_token=5, prompt_lens=lens),
               model.generate(prompts, 6, filter_logits_fn="top_k", eos_token=5),
               model.generate([p for p in _tokens(n=5, seed=33)][:1] + [prompts[1][:3]], 5,
                              filter_logits_fn="top_p"),
               model.generate(prompts, 5, filter_logits_fn="min_p", cache_kv=False),
               model.generate(prompts, 4, amateur_model=amateur)]
        if hasattr(model, "beam_search"):
            out.append(model.beam_search(prompts, 4, beams=2))
        return out
    return step(run, eval_runs=((prompts,), {}), model=model, amateur=amateur)


def non_autoregressive():
    from x_transformers import Encoder, NonAutoregressiveWrapper, TransformerWrapper
    net = TransformerWrapper(num_tokens=VOCAB + 1, max_seq_len=LEN,
                             attn_layers=Encoder(dim=32, depth=2, heads=4))
    model = NonAutoregressiveWrapper(net, mask_id=VOCAB, steps=3)
    x = _tokens(n=LEN)

    def run(x, train):
        return model(x) if train else model.generate(batch_size=2)
    return step(run, eval_runs=((x, False), {}), train_runs=((x, True), {}), model=model)


def xtransformer():
    from x_transformers import XTransformer
    model = XTransformer(dim=32, enc_num_tokens=VOCAB, enc_depth=1, enc_heads=4, enc_max_seq_len=LEN,
                         dec_num_tokens=VOCAB, dec_depth=1, dec_heads=4, dec_max_seq_len=LEN,
                         tie_token_emb=True)
    src = _tokens(n=12)
    src_mask = torch.ones_like(src).bool()
    src_mask[1, 9:] = False
    tgt = _tokens(n=9, seed=35)

    def run(train):
        if train:
            return model(src, tgt, mask=src_mask)
        return model.generate(src, tgt[:, :1], 5, mask=src_mask)
    return step(run, eval_runs=((False,), {}), train_runs=((True,), {}), model=model)


def encoder_features():
    from x_transformers import Encoder, TransformerWrapper
    model = TransformerWrapper(num_tokens=VOCAB, max_seq_len=LEN, num_memory_tokens=2,
                               attn_layers=Encoder(dim=32, depth=2, heads=4, rel_pos_bias=True,
                                                   residual_attn=True, ff_glu=True, attn_gate_values=True,
                                                   sandwich_norm=True, layer_dropout=0.1))
    x = _tokens(n=20)
    mask = torch.ones_like(x).bool()
    mask[1, 15:] = False
    return model, [((x,), {"mask": mask})], [((x,), {"mask": mask})]


def vit():
    from x_transformers import Encoder, ViTransformerWrapper
    model = ViTransformerWrapper(image_size=32, patch_size=8, num_classes=3,
                                 attn_layers=Encoder(dim=32, depth=2, heads=4))
    x = torch.rand(2, 3, 32, 32, generator=gen(36))
    return model, [((x,), {})], [((x,), {})]


def entropy_tokenizer():
    from x_transformers import EntropyBasedTokenizer
    tok = EntropyBasedTokenizer(_decoder(), entropy_threshold=2.5, max_token_size=4)
    x = _tokens(n=20, seed=37)
    lens = torch.tensor([20, 14])
    return step(lambda x: tok(x, lens=lens, return_segmented_seq=True), eval_runs=((x,), {}), tok=tok)


def dpo():
    from x_transformers.dpo import DPO
    model = DPO(_decoder(), beta=0.1, pad_id=0)
    pref, unpref = _tokens(n=12, seed=38), _tokens(n=12, seed=39)
    prompt_mask = torch.zeros_like(pref).bool()
    prompt_mask[:, :4] = True
    pref[1, -3:] = 0
    return model, [], [((pref, unpref), {"prompt_mask": prompt_mask})]


def belief_state():
    from x_transformers.belief_state_wrapper import BeliefStateWrapper
    model = BeliefStateWrapper(_decoder(), pred_distance=True)
    x = _tokens(n=10, seed=40)

    def run(x, train):
        return model(x) if train else model.generate_with_suffix_cond(x[:, :3], 4, suffix=x[:, -2:])
    return step(run, eval_runs=((x, False), {}), train_runs=((x, True), {}), model=model)


MODELS = {
    "x_transformers_ar_rotary": ar_wrapper(rotary_pos_emb=True),
    "x_transformers_ar_alibi": ar_wrapper(alibi_pos_bias=True, alibi_num_heads=2),
    "x_transformers_ar_dynpos": ar_wrapper(dynamic_pos_bias=True, shift_tokens=1, use_rmsnorm=True),
    "x_transformers_generate": generate,
    "x_transformers_nar": non_autoregressive,
    "x_transformers_xtransformer": xtransformer,
    "x_transformers_encoder": encoder_features,
    "x_transformers_vit": vit,
    "x_transformers_entropy_tokenizer": entropy_tokenizer,
    "x_transformers_dpo": dpo,
    "x_transformers_belief_state": belief_state,
}
