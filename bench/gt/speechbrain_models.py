"""speechbrain: the steps of its ASR and speaker recipes, built from the package's own modules at
tiny sizes (random weights; no `from_hparams`, no pretrained interface: those download). Every step
takes a batch of two waveforms with unequal *relative* lengths (speechbrain's `wav_lens`, 1.0 and
0.7), so the length masks (`length_to_mask`, `compute_masked_loss`) matter.

* TransformerASR (transformer encoder) behind a `ConvolutionFrontEnd`, as the LibriSpeech recipe
  runs it: Fbank, global `InputNormalization` (train updates its statistics), SpecAugment-style
  `Augmenter` (SpectrogramDrop, Warping) in train, joint CTC + NLL loss with relative lengths
  (`speechbrain.nnet.losses.ctc_loss`, `nll_loss` with label smoothing); eval: the same losses,
  `S2STransformerBeamSearcher` with a CTC prefix scorer and a TransformerLM scorer,
  `S2STransformerGreedySearcher`, `ctc_greedy_decode`, the CTC beam / prefix-beam searchers, and
  the recipe's metrics (`AccuracyStats`, `undo_padding` + `ErrorRateStats`).
* TransformerASR with a Conformer encoder (RelPosMHAXL, non-causal; train adds dynamic-chunk
  encoding) and the same losses; eval: beam search with the CTC scorer and chunk-by-chunk
  `encode_streaming`.
* CRDNN + AttentionalRNNDecoder (location attention), joint CTC + NLL; eval:
  `S2SRNNBeamSearcher` with CTC, RNNLM and coverage scorers, `S2SRNNGreedySearcher`.
* ECAPA-TDNN speaker embeddings with the time-domain `Augmenter` (DropFreq, DropChunk,
  concatenating the originals) in train, `Classifier` + AAM softmax (`LogSoftmaxWrapper`);
  eval: embeddings and cosine scores. An x-vector model on the same batch.
* RNN-T (LSTM encoder, GRU prediction network, `Transducer_joint`); eval: `TransducerBeamSearcher`
  greedy and beam. Its loss is not run: speechbrain's transducer loss is numba CUDA code.
* SepFormer-style separation (`dual_path`: Encoder, Dual_Path_Model with SBTransformerBlocks,
  Decoder) with the SI-SNR permutation-invariant loss (`get_si_snr_with_pitwrapper`).

Not covered: anything behind `from_hparams`/`EncoderDecoderASR` (pretrained downloads), the
HuggingFace wav2vec2/whisper wrappers (downloads), KenLM, `Brain.fit` (the data loading and
checkpointing around the step).
"""
from __future__ import annotations

import torch

from . import gen, step

VOCAB, BLANK, BOS, EOS = 12, 0, 1, 2
N_MELS = 20


def _batch(n=3200, seed=501):
    """Two 0.2 s waveforms at 16 kHz, relative lengths 1.0 and 0.7 (the second is zero-padded)."""
    g = gen(seed)
    wavs = torch.randn(2, n, generator=g) * 0.1
    wav_lens = torch.tensor([1.0, 0.7])
    wavs[1, int(n * 0.7):] = 0
    return wavs, wav_lens


def _tokens(seed=502):
    """Targets as a speechbrain data pipeline yields them: tokens, with BOS / EOS, relative lengths."""
    g = gen(seed)
    tokens = torch.randint(3, VOCAB, (2, 5), generator=g)
    tokens[1, 3:] = 0
    tokens_lens = torch.tensor([1.0, 0.6])
    tokens_bos = torch.cat([torch.full((2, 1), BOS), tokens], 1)
    tokens_eos = torch.cat([tokens, torch.zeros(2, 1, dtype=torch.long)], 1)
    tokens_eos[0, 5], tokens_eos[1, 3] = EOS, EOS
    tokens_eos_lens = torch.tensor([1.0, 4 / 6])
    return tokens, tokens_lens, tokens_bos, tokens_eos, tokens_eos_lens


def _features(wavs, wav_lens):
    """Fbank and global mean-variance normalisation; the statistics are seeded with one batch outside
    the step (an eval step before any training step has none)."""
    from speechbrain.lobes.features import Fbank
    from speechbrain.processing.features import InputNormalization
    fbank, norm = Fbank(n_mels=N_MELS), InputNormalization(norm_type="global", update_until_epoch=4)
    with torch.no_grad():
        norm.train()
        norm(fbank(wavs), wav_lens)
    return fbank, norm


def _spec_augment():
    from speechbrain.augment.augmenter import Augmenter
    from speechbrain.augment.freq_domain import SpectrogramDrop, Warping
    return Augmenter(min_augmentations=3, max_augmentations=3, augment_prob=1.0,
                     augmentations=[Warping(warp_window=2), SpectrogramDrop(drop_length_low=1, drop_length_high=3,
                                                                            drop_count_low=1, drop_count_high=2,
                                                                            replace="zeros", dim=1),
                                    SpectrogramDrop(drop_length_low=1, drop_length_high=4, drop_count_low=1,
                                                    drop_count_high=2, replace="zeros", dim=2)])


def _joint_loss(p_ctc, p_seq, wav_lens, tok, ctc_weight=0.3):
    from speechbrain.nnet.losses import ctc_loss, nll_loss
    tokens, tokens_lens, _, tokens_eos, tokens_eos_lens = tok
    loss_ctc = ctc_loss(p_ctc, tokens, wav_lens, tokens_lens, blank_index=BLANK)
    loss_seq = nll_loss(p_seq, tokens_eos, length=tokens_eos_lens, label_smoothing=0.1)
    return ctc_weight * loss_ctc + (1 - ctc_weight) * loss_seq


def _asr(encoder_module):
    def build():
        from speechbrain.decoders import (CTCBeamSearcher, CTCPrefixBeamSearcher, S2STransformerBeamSearcher,
                                          S2STransformerGreedySearcher)
        from speechbrain.decoders.ctc import ctc_greedy_decode
        from speechbrain.decoders.scorer import CTCScorer, ScorerBuilder, TransformerLMScorer
        from speechbrain.lobes.models.convolution import ConvolutionFrontEnd
        from speechbrain.lobes.models.transformer.TransformerASR import TransformerASR
        from speechbrain.lobes.models.transformer.TransformerLM import TransformerLM
        from speechbrain.nnet.linear import Linear
        from speechbrain.utils.Accuracy import AccuracyStats
        from speechbrain.utils.data_utils import undo_padding
        from speechbrain.utils.dynamic_chunk_training import DynChunkTrainConfig
        from speechbrain.utils.metric_stats import ErrorRateStats

        d = 32
        wavs, wav_lens = _batch()
        fbank, norm = _features(wavs, wav_lens)
        aug = _spec_augment()
        cnn = ConvolutionFrontEnd(input_shape=(None, None, N_MELS), num_blocks=2, num_layers_per_block=1,
                                  out_channels=(8, 8), kernel_sizes=(3, 3), strides=(2, 2),
                                  residuals=(False, False))
        conformer = encoder_module == "conformer"
        model = TransformerASR(VOCAB, 8 * (N_MELS // 4), d_model=d, nhead=4, num_encoder_layers=2,
                               num_decoder_layers=2, d_ffn=64, dropout=0.1, activation=torch.nn.GELU,
                               encoder_module=encoder_module, normalize_before=True, causal=False,
                               attention_type="RelPosMHAXL" if conformer else "regularMHA",
                               kernel_size=7, max_length=200)
        ctc_lin, seq_lin = Linear(input_size=d, n_neurons=VOCAB), Linear(input_size=d, n_neurons=VOCAB)
        lm = TransformerLM(VOCAB, d, 4, 1, 0, 64, activation=torch.nn.GELU, d_embedding=d)
        ctc_scorer = CTCScorer(ctc_fc=ctc_lin, blank_index=BLANK, eos_index=EOS)
        lm_scorer = TransformerLMScorer(language_model=lm, temperature=1.0)
        if conformer:
            scorer = ScorerBuilder(full_scorers=[], partial_scorers=[ctc_scorer], weights={"ctc": 0.4})
        else:
            scorer = ScorerBuilder(full_scorers=[lm_scorer], partial_scorers=[ctc_scorer],
                                   weights={"ctc": 0.4, "transformerlm": 0.3})
        beam = S2STransformerBeamSearcher(modules=[model, seq_lin], bos_index=BOS, eos_index=EOS,
                                          min_decode_ratio=0.0, max_decode_ratio=1.0, beam_size=3,
                                          using_eos_threshold=False, length_normalization=True,
                                          scorer=scorer, temperature=1.0)
        greedy = S2STransformerGreedySearcher(modules=[model, seq_lin], bos_index=BOS, eos_index=EOS,
                                              min_decode_ratio=0.0, max_decode_ratio=1.0)
        vocab_list = ["-"] + [chr(ord("a") + i) for i in range(VOCAB - 2)] + [" "]
        ctc_beam = CTCBeamSearcher(blank_index=BLANK, vocab_list=vocab_list, beam_size=3)
        ctc_prefix = CTCPrefixBeamSearcher(blank_index=BLANK, vocab_list=vocab_list, beam_size=3)
        chunks = DynChunkTrainConfig(chunk_size=2, left_context_size=1)
        tok = _tokens()

        def run(wavs, wav_lens, tok):
            tokens_bos = tok[2]
            feats = fbank(wavs)
            feats = norm(feats, wav_lens)
            if cnn.training:
                feats, _ = aug(feats, wav_lens)
            src = cnn(feats)
            enc, dec = model(src, tokens_bos, wav_lens, pad_idx=0)
            if conformer and cnn.training:      # dynamic-chunk training of a streaming encoder
                enc = enc + model.encode(src, wav_lens, pad_idx=0, dynchunktrain_config=chunks)
            p_ctc = ctc_lin(enc).log_softmax(-1)
            p_seq = seq_lin(dec).log_softmax(-1)
            loss = _joint_loss(p_ctc, p_seq, wav_lens, tok)
            if cnn.training:
                return loss
            hyps, _, _, _ = beam(enc.detach(), wav_lens)
            if conformer:       # chunk-by-chunk streaming encoding, as StreamingASR runs it
                ctx = model.make_streaming_context(chunks)
                return loss, hyps, [model.encode_streaming(src[:, i:i + 2], ctx) for i in range(0, src.shape[1], 2)]
            # the recipe's evaluation metrics on the step's outputs
            acc = AccuracyStats()
            acc.append(p_seq, tok[3], tok[4])
            wer = ErrorRateStats()
            targets = undo_padding(tok[0], tok[1])
            wer.append(["u0", "u1"], [[str(t) for t in h] for h in hyps], [[str(t) for t in y] for y in targets])
            return (loss, acc.summarize(), wer.summarize("error_rate"), greedy(enc.detach(), wav_lens),
                    ctc_greedy_decode(p_ctc, wav_lens, blank_id=BLANK), ctc_beam(p_ctc, wav_lens),
                    ctc_prefix(p_ctc, wav_lens))
        args = ((wavs, wav_lens, tok), {})     # the targets are step inputs: on the device, as in a recipe
        return step(run, eval_runs=args, train_runs=args, fbank=fbank, norm=norm, aug=aug, cnn=cnn, model=model,
                    ctc_lin=ctc_lin, seq_lin=seq_lin, lm=lm)
    return build


def crdnn_seq2seq():
    import speechbrain as sb
    from speechbrain.decoders import S2SRNNBeamSearcher, S2SRNNGreedySearcher
    from speechbrain.decoders.scorer import CoverageScorer, CTCScorer, RNNLMScorer, ScorerBuilder
    from speechbrain.lobes.models.CRDNN import CRDNN
    from speechbrain.lobes.models.RNNLM import RNNLM
    from speechbrain.nnet.embedding import Embedding
    from speechbrain.nnet.linear import Linear
    from speechbrain.nnet.RNN import AttentionalRNNDecoder

    wavs, wav_lens = _batch()
    fbank, norm = _features(wavs, wav_lens)
    enc = CRDNN(input_shape=(None, None, N_MELS), cnn_blocks=1, cnn_channels=[8], cnn_kernelsize=(3, 3),
                time_pooling=True, time_pooling_size=2, rnn_class=sb.nnet.RNN.LiGRU, rnn_layers=1, rnn_neurons=16,
                rnn_bidirectional=True, dnn_blocks=1, dnn_neurons=16, dropout=0.1, inter_layer_pooling_size=[2])
    emb = Embedding(num_embeddings=VOCAB, embedding_dim=8)
    dec = AttentionalRNNDecoder(rnn_type="gru", attn_type="location", hidden_size=16, attn_dim=16, num_layers=1,
                                enc_dim=16, input_size=8, channels=4, kernel_size=5, re_init=True, dropout=0.1)
    ctc_lin, seq_lin = Linear(input_size=16, n_neurons=VOCAB), Linear(input_size=16, n_neurons=VOCAB)
    lm = RNNLM(output_neurons=VOCAB, embedding_dim=8, rnn_layers=1, rnn_neurons=16, dnn_blocks=1, dnn_neurons=16,
               return_hidden=True)
    scorer = ScorerBuilder(full_scorers=[RNNLMScorer(language_model=lm), CoverageScorer(vocab_size=VOCAB)],
                           partial_scorers=[CTCScorer(ctc_fc=ctc_lin, blank_index=BLANK, eos_index=EOS)],
                           weights={"rnnlm": 0.3, "coverage": 0.5, "ctc": 0.4})
    beam = S2SRNNBeamSearcher(embedding=emb, decoder=dec, linear=seq_lin, bos_index=BOS, eos_index=EOS,
                              min_decode_ratio=0.0, max_decode_ratio=1.0, beam_size=3, eos_threshold=1.5,
                              using_max_attn_shift=True, max_attn_shift=3, scorer=scorer, temperature=1.25)
    greedy = S2SRNNGreedySearcher(embedding=emb, decoder=dec, linear=seq_lin, bos_index=BOS, eos_index=EOS,
                                  min_decode_ratio=0.0, max_decode_ratio=1.0)
    tok = _tokens()

    def run(wavs, wav_lens, tok):
        feats = norm(fbank(wavs), wav_lens)
        x = enc(feats)
        h, _ = dec(emb(tok[2]), x, wav_lens)
        p_ctc = ctc_lin(x).log_softmax(-1)
        p_seq = seq_lin(h).log_softmax(-1)
        loss = _joint_loss(p_ctc, p_seq, wav_lens, tok, ctc_weight=0.5)
        if enc.training:
            return loss
        return loss, beam(x.detach(), wav_lens), greedy(x.detach(), wav_lens)
    args = ((wavs, wav_lens, tok), {})
    return step(run, eval_runs=args, train_runs=args, fbank=fbank, norm=norm, enc=enc, emb=emb, dec=dec,
                ctc_lin=ctc_lin, seq_lin=seq_lin, lm=lm)


def speaker():
    from speechbrain.augment.augmenter import Augmenter
    from speechbrain.augment.time_domain import DropChunk, DropFreq
    from speechbrain.lobes.models.ECAPA_TDNN import ECAPA_TDNN, Classifier
    from speechbrain.lobes.models.Xvector import Xvector
    from speechbrain.nnet.losses import AdditiveAngularMargin, LogSoftmaxWrapper

    wavs, wav_lens = _batch(n=4800, seed=503)
    fbank, norm = _features(wavs, wav_lens)
    ecapa = ECAPA_TDNN(N_MELS, channels=[16, 16, 16, 16, 48], kernel_sizes=[5, 3, 3, 3, 1],
                       dilations=[1, 2, 3, 4, 1], attention_channels=8, res2net_scale=4, se_channels=8,
                       lin_neurons=8)
    xvec = Xvector(in_channels=N_MELS, tdnn_blocks=2, tdnn_channels=[16, 16], tdnn_kernel_sizes=[5, 1],
                   tdnn_dilations=[1, 1], lin_neurons=8)
    clf = Classifier(input_size=8, out_neurons=5)
    loss_fn = LogSoftmaxWrapper(AdditiveAngularMargin(margin=0.2, scale=30))
    aug = Augmenter(parallel_augment=False, concat_original=True, min_augmentations=2, max_augmentations=2,
                    augment_prob=1.0, augmentations=[DropFreq(drop_freq_count_low=1, drop_freq_count_high=2),
                                                     DropChunk(drop_length_low=100, drop_length_high=400,
                                                               drop_count_low=1, drop_count_high=3)])
    spk = torch.tensor([[1], [3]])

    def run(wavs, wav_lens, spk):
        if ecapa.training:
            wavs, wav_lens = aug(wavs, wav_lens)
            spk = aug.replicate_labels(spk)
        feats = norm(fbank(wavs), wav_lens)
        emb = ecapa(feats, wav_lens)
        xv = xvec(feats, wav_lens)
        if ecapa.training:
            return loss_fn(clf(emb), spk) + xv.mean()
        e = emb.squeeze(1)
        return torch.nn.functional.cosine_similarity(e[0], e[1], dim=-1), xv
    args = ((wavs, wav_lens, spk), {})
    return step(run, eval_runs=args, train_runs=args, fbank=fbank, norm=norm, ecapa=ecapa, xvec=xvec, clf=clf,
                aug=aug)


def transducer():
    """RNN-T as the transducer recipe wires it (the numba loss needs CUDA: train runs the joint
    network and a cross-entropy over its outputs); eval: `TransducerBeamSearcher` greedy and beam."""
    import speechbrain as sb
    from speechbrain.decoders.transducer import TransducerBeamSearcher
    from speechbrain.nnet.transducer.transducer_joint import Transducer_joint

    wavs, wav_lens = _batch(seed=504)
    fbank, norm = _features(wavs, wav_lens)
    enc = sb.nnet.RNN.LSTM(hidden_size=16, input_shape=(None, None, N_MELS), num_layers=1, bidirectional=True)
    enc_lin = sb.nnet.linear.Linear(input_size=32, n_neurons=16)
    emb = sb.nnet.embedding.Embedding(num_embeddings=VOCAB, embedding_dim=VOCAB - 1, consider_as_one_hot=True,
                                      blank_id=BLANK)
    dec = sb.nnet.RNN.GRU(hidden_size=16, input_shape=(None, None, VOCAB - 1), bidirectional=False)
    dec_lin = sb.nnet.linear.Linear(input_size=16, n_neurons=16)
    joint = Transducer_joint(sb.nnet.linear.Linear(input_size=16, n_neurons=16), joint="sum")
    out = sb.nnet.linear.Linear(input_size=16, n_neurons=VOCAB)
    with torch.no_grad():   # a trained transducer emits mostly blanks; random weights never stop the
        out.w.bias[BLANK] += 3.0      # beam search's `while True` extension loop
    greedy = TransducerBeamSearcher(decode_network_lst=[emb, dec, dec_lin], tjoint=joint, classifier_network=[out],
                                    blank_id=BLANK, beam_size=1, nbest=1)
    beam = TransducerBeamSearcher(decode_network_lst=[emb, dec, dec_lin], tjoint=joint, classifier_network=[out],
                                  blank_id=BLANK, beam_size=2, nbest=2, state_beam=2.3, expand_beam=2.3)
    tok = _tokens(seed=505)
    blank_bos = torch.cat([torch.full((2, 1), BLANK), tok[0]], 1)

    def run(wavs, wav_lens, blank_bos):
        feats = norm(fbank(wavs), wav_lens)
        x, _ = enc(feats, lengths=wav_lens)
        x = enc_lin(x)
        if enc.training:
            h, _ = dec(emb(blank_bos))
            logits = out(joint(x.unsqueeze(2), dec_lin(h).unsqueeze(1)))
            return logits.log_softmax(-1).mean()
        return greedy(x.detach()), beam(x[:1].detach())
    args = ((wavs, wav_lens, blank_bos), {})
    return step(run, eval_runs=args, train_runs=args, fbank=fbank, norm=norm, enc=enc, enc_lin=enc_lin, emb=emb,
                dec=dec, dec_lin=dec_lin, joint=joint, out=out)


def sepformer():
    """SepFormer-style separation (dual-path transformer masking) with the SI-SNR PIT loss."""
    from speechbrain.lobes.models.dual_path import Decoder, Dual_Path_Model, Encoder, SBTransformerBlock
    from speechbrain.nnet.losses import get_si_snr_with_pitwrapper

    encoder = Encoder(kernel_size=8, out_channels=16)
    masknet = Dual_Path_Model(16, 16, SBTransformerBlock(1, 16, 2, d_ffn=32), SBTransformerBlock(1, 16, 2, d_ffn=32),
                              num_layers=1, K=20, num_spks=2, skip_around_intra=True, linear_layer_after_inter_intra=False)
    decoder = Decoder(in_channels=16, out_channels=1, kernel_size=8, stride=4, bias=False)
    g = gen(506)
    sources = torch.randn(2, 1600, 2, generator=g) * 0.1
    mix = sources.sum(-1)

    def run(mix, sources):
        w = encoder(mix)
        masks = masknet(w)
        est = torch.stack([decoder(w * masks[i]) for i in range(2)], dim=-1)
        t = min(est.shape[1], sources.shape[1])
        return get_si_snr_with_pitwrapper(sources[:, :t], est[:, :t]).mean()
    args = ((mix, sources), {})
    return step(run, eval_runs=args, train_runs=args, encoder=encoder, masknet=masknet, decoder=decoder)


MODELS = {
    "sb_transformer_asr": _asr("transformer"),
    "sb_conformer_asr": _asr("conformer"),
    "sb_crdnn_seq2seq": crdnn_seq2seq,
    "sb_speaker_ecapa": speaker,
    "sb_transducer": transducer,
    "sb_sepformer": sepformer,
}
