"""torchaudio: models built with the package's own factory functions at tiny sizes (random
weights; `torchaudio.pipelines` bundles are never touched, they download). wav2vec 2.0 with a CTC
head, padded lengths and layer drop (CTC loss; greedy CTC decoding; `forced_align` +
`merge_tokens` on the emissions); HuBERT pre-training (span masking by `MaskGenerator`, masked and
unmasked logits); WavLM; Conformer on padded feature batches; Emformer RNN-T (train with
`rnnt_loss`, streaming `infer`, `RNNTBeamSearch` decoding); Tacotron2 (teacher-forced train,
autoregressive `infer` with the stop-token loop) and WaveRNN `infer`; ConvTasNet source separation
(HDemucs is not run: its time and frequency branches disagree at any tiny size tried); DeepSpeech/Wav2Letter; the SQUIM objective model. Transforms applied on
device in the step: MelSpectrogram, MFCC, SpecAugment (`iid_masks`), Time/FrequencyMasking,
Resample, Vol, SlidingWindowCmn, ComputeDeltas, AddNoise with lengths, Speed, Preemphasis,
TimeStretch, Vad, pitch detection, Fade, AmplitudeToDB.

torchaudio 2.11 ships its C++ extension for the stable ABI (`lib/_torchaudio.abi3.so`): it loads
against torch 2.14.1, so `rnnt_loss` and `forced_align` run (checked when this suite was added).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from . import gen, step

CONV = [(16, 10, 5), (16, 3, 2), (16, 3, 2)]       # tiny feature extractor (stride 20)
ENC = dict(extractor_mode="group_norm", extractor_conv_layer_config=CONV, extractor_conv_bias=False,
           encoder_embed_dim=32, encoder_projection_dropout=0.1, encoder_pos_conv_kernel=8,
           encoder_pos_conv_groups=4, encoder_num_layers=2, encoder_num_heads=2, encoder_attention_dropout=0.1,
           encoder_ff_interm_features=64, encoder_ff_interm_dropout=0.1, encoder_dropout=0.1,
           encoder_layer_norm_first=False)
VOCAB = 8


def _wave(b=2, n=3200, seed=111):
    g = gen(seed)
    return torch.randn(b, n, generator=g) * 0.1, torch.tensor([n, n * 3 // 4])[:b]


def _ctc_targets(b=2, seed=112):
    g = gen(seed)
    lens = torch.tensor([6, 4])[:b]
    return torch.randint(1, VOCAB, (b, 6), generator=g), lens


def _greedy_ctc(emission, length, blank=0):
    """Greedy CTC decoding as a user writes it around a torchaudio model (not package code)."""
    ids = emission.argmax(-1)
    return [torch.unique_consecutive(ids[i, :int(length[i])]) for i in range(ids.shape[0])]


def wav2vec2_ctc(wavlm=False):
    def build():
        from torchaudio.functional import forced_align, merge_tokens
        from torchaudio.models import wav2vec2_model, wavlm_model
        if wavlm:
            model = wavlm_model(**ENC, encoder_num_buckets=16, encoder_max_distance=32, encoder_layer_drop=0.1,
                                aux_num_out=VOCAB)
        else:
            model = wav2vec2_model(**ENC, encoder_layer_drop=0.5, aux_num_out=VOCAB)
        wave, lens = _wave()
        if wavlm:          # WavLM's attention takes no padding mask (asserts it is None): full lengths
            wave, lens = wave, None
        tgt, tgt_lens = _ctc_targets()

        def run(wave, lens, tgt, tgt_lens):
            em, out_lens = model(wave, lens)
            if out_lens is None:
                out_lens = torch.full((em.shape[0],), em.shape[1])
            logp = em.log_softmax(-1)
            if model.training:
                return F.ctc_loss(logp.transpose(0, 1), tgt, out_lens, tgt_lens, blank=0)
            hyps = _greedy_ctc(em, out_lens)
            # alignment of the first utterance (forced_align takes batch size 1)
            ali, scores = forced_align(logp[:1, :int(out_lens[0])], tgt[:1, :int(tgt_lens[0])].int(), blank=0)
            spans = merge_tokens(ali[0], scores[0].exp())
            return hyps, spans
        args = ((wave, lens, tgt, tgt_lens), {})
        return step(run, eval_runs=args, train_runs=args, model=model)
    return build


def hubert_pretrain():
    def build():
        from torchaudio.models import hubert_pretrain_model
        model = hubert_pretrain_model(
            **ENC, encoder_layer_drop=0.1, mask_prob=0.5, mask_selection="static", mask_other=0.0,
            mask_length=3, no_mask_overlap=False, mask_min_space=1, mask_channel_prob=0.2,
            mask_channel_selection="static", mask_channel_other=0.0, mask_channel_length=4,
            no_mask_channel_overlap=False, mask_channel_min_space=1, skip_masked=False, skip_nomask=False,
            num_classes=10, final_dim=16, feature_grad_mult=0.1)
        wave, lens = _wave()
        frames = model.wav2vec2.feature_extractor(wave, lens)[0].shape[1]
        labels = torch.randint(0, 10, (2, frames), generator=gen(113))

        def run(wave, labels, lens):
            logit_m, logit_u, feat_pen = model(wave, labels, lens)
            tm = torch.zeros(logit_m.shape[0], dtype=torch.long)
            tu = torch.zeros(logit_u.shape[0], dtype=torch.long)
            return F.cross_entropy(logit_m, tm) + F.cross_entropy(logit_u, tu) + feat_pen
        args = ((wave, labels, lens), {})
        return step(run, eval_runs=None, train_runs=args, model=model)
    return build


def _features(b=2, t=40, d=20, seed=114):
    g = gen(seed)
    return torch.randn(b, t, d, generator=g), torch.tensor([t, t - 9])[:b]


def conformer():
    def build():
        from torchaudio.models import Conformer
        from torchaudio.transforms import MelSpectrogram, SpecAugment
        model = Conformer(input_dim=20, num_heads=2, ffn_dim=32, num_layers=2, depthwise_conv_kernel_size=7,
                          dropout=0.1)
        head = torch.nn.Linear(20, VOCAB)
        mel = MelSpectrogram(sample_rate=8000, n_fft=256, hop_length=80, n_mels=20)
        aug = SpecAugment(n_time_masks=2, time_mask_param=5, n_freq_masks=2, freq_mask_param=4, iid_masks=True,
                          p=0.5)
        wave, wlens = _wave()
        tgt, tgt_lens = _ctc_targets()

        def run(wave, wlens, tgt, tgt_lens):
            feats = mel(wave)
            if model.training:
                feats = aug(feats)
            x = (feats + 1e-6).log().transpose(1, 2)
            lens = torch.div(wlens, 80, rounding_mode="floor") + 1
            out, out_lens = model(x, lens)
            logp = head(out).log_softmax(-1)
            if model.training:
                return F.ctc_loss(logp.transpose(0, 1), tgt, out_lens, tgt_lens)
            return _greedy_ctc(logp, out_lens)
        args = ((wave, wlens, tgt, tgt_lens), {})
        return step(run, eval_runs=args, train_runs=args, model=model, head=head, mel=mel, aug=aug)
    return build


def emformer_rnnt():
    """Emformer RNN-T: train with rnnt_loss; eval: streaming `infer` over segments and beam search."""
    def build():
        from torchaudio.functional import rnnt_loss
        from torchaudio.models import RNNTBeamSearch, emformer_rnnt_model
        model = emformer_rnnt_model(
            input_dim=20, encoding_dim=16, num_symbols=VOCAB, segment_length=4, right_context_length=2,
            time_reduction_input_dim=32, time_reduction_stride=2, transformer_num_heads=2,
            transformer_ffn_dim=32, transformer_num_layers=2, transformer_dropout=0.1,
            transformer_activation="gelu", transformer_left_context_length=8, transformer_max_memory_size=2,
            transformer_weight_init_scale_strategy="depthwise", transformer_tanh_on_mem=True,
            symbol_embedding_dim=16, num_lstm_layers=1, lstm_layer_norm=True, lstm_layer_norm_epsilon=1e-5,
            lstm_dropout=0.1)
        search = RNNTBeamSearch(model, blank=VOCAB - 1, step_max_tokens=3)
        x, lens = _features(t=44)
        tgt, tgt_lens = _ctc_targets()
        tgt = tgt.clamp(max=VOCAB - 2).int()
        preds = torch.cat([torch.full((2, 1), VOCAB - 1, dtype=torch.int32), tgt], 1)

        def run(x, lens, tgt, tgt_lens):
            if model.training:
                logits, src_lens, tlens, _ = model(x, lens, preds, (tgt_lens + 1).int())
                src_lens = src_lens.clamp(max=logits.shape[1])     # the right context is not in logits
                return rnnt_loss(logits, tgt, src_lens.int(), tgt_lens.int(), blank=VOCAB - 1)
            hyps = search(x[:1, :16], torch.tensor([16]), beam_width=2)
            state, hyp = None, None
            seg = 4 + 2                          # segment + right context, in input frames
            for start in range(0, 16 - seg + 1, 4):
                chunk = x[:1, start:start + seg]
                hyp, state = search.infer(chunk, torch.tensor([seg]), beam_width=2, state=state, hypothesis=hyp)
            return hyps, hyp
        args = ((x, lens, tgt, tgt_lens), {})
        return step(run, eval_runs=args, train_runs=args, model=model)
    return build


def emformer_streaming():
    """Emformer alone: full-utterance forward (train) and chunked `infer` with state (eval)."""
    def build():
        from torchaudio.models import Emformer
        model = Emformer(input_dim=16, num_heads=2, ffn_dim=32, num_layers=2, segment_length=4,
                         left_context_length=4, right_context_length=2, max_memory_size=2, dropout=0.1)
        x, lens = _features(t=30, d=16)

        def run(x, lens):
            if model.training:
                return model(x, lens)[0].sum()
            states, outs = None, []
            for start in range(0, 24, 4):
                chunk = x[:, start:start + 6]
                out, _, states = model.infer(chunk, torch.tensor([6, 6]), states)
                outs.append(out)
            return torch.cat(outs, 1)
        args = ((x, lens), {})
        return step(run, eval_runs=args, train_runs=args, model=model)
    return build


def tacotron2_wavernn():
    def build():
        from torchaudio.models import Tacotron2, WaveRNN
        taco = Tacotron2(mask_padding=True, n_mels=16, n_symbol=20, n_frames_per_step=1, symbol_embedding_dim=32,
                         encoder_embedding_dim=32, encoder_n_convolution=1, encoder_kernel_size=5,
                         decoder_rnn_dim=32, decoder_max_step=12, decoder_dropout=0.1, decoder_early_stopping=True,
                         attention_rnn_dim=32, attention_hidden_dim=16, attention_location_n_filter=4,
                         attention_location_kernel_size=5, attention_dropout=0.1, prenet_dim=16,
                         postnet_n_convolution=1, postnet_kernel_size=5, postnet_embedding_dim=16,
                         gate_threshold=0.5)
        voc = WaveRNN(upsample_scales=[2, 2], n_classes=16, hop_length=4, n_res_block=1, n_rnn=16, n_fc=16,
                      kernel_size=3, n_freq=16, n_hidden=8, n_output=8)
        g = gen(115)
        tokens = torch.randint(1, 20, (2, 9), generator=g)
        tlens = torch.tensor([9, 7])
        mels = torch.randn(2, 16, 14, generator=g)
        mlens = torch.tensor([14, 11])

        def run(tokens, tlens, mels, mlens):
            if taco.training:
                out, post, gate, _ = taco(tokens, tlens, mels, mlens)
                wave = torch.rand(2, 1, (14 - 3 + 1) * 4, generator=gen(116)) * 2 - 1
                w_out = voc(wave, mels[:, None])
                return F.mse_loss(post, mels) + gate.mean() + w_out.mean()
            spec, spec_lens, _ = taco.infer(tokens, tlens)
            return voc.infer(spec[:, :, :6], spec_lens.clamp(max=6))
        args = ((tokens, tlens, mels, mlens), {})
        return step(run, eval_runs=args, train_runs=args, taco=taco, voc=voc)
    return build


def separation():
    def build():
        from torchaudio.models import ConvTasNet
        from torchaudio.models.squim import squim_objective_model
        tasnet = ConvTasNet(num_sources=2, enc_kernel_size=8, enc_num_feats=16, msk_kernel_size=3,
                            msk_num_feats=8, msk_num_hidden_feats=16, msk_num_layers=2, msk_num_stacks=1)
        squim = squim_objective_model(feat_dim=16, win_len=32, d_model=16, nhead=2, hidden_dim=16, num_blocks=1,
                                      rnn_type="LSTM", chunk_size=20, chunk_stride=10)
        g = gen(117)
        mix = torch.randn(2, 1, 1600, generator=g) * 0.1
        ref = torch.randn(2, 2, 1600, generator=g) * 0.1

        def run(mix, ref):
            est = tasnet(mix)
            q = squim(mix[:, 0])
            return F.mse_loss(est, ref) + sum(t.mean() for t in q)
        args = ((mix, ref), {})
        return step(run, eval_runs=args, train_runs=args, tasnet=tasnet, squim=squim)
    return build


def small_asr():
    def build():
        from torchaudio.models import DeepSpeech, Wav2Letter
        ds = DeepSpeech(n_feature=20, n_hidden=16, n_class=VOCAB, dropout=0.1)
        w2l = Wav2Letter(num_classes=VOCAB, input_type="mfcc", num_features=20)
        x, _ = _features(t=40)

        def run(x):
            a = ds(x[:, None])
            b = w2l(x.transpose(1, 2))
            return a.mean() + b.mean()
        return step(run, eval_runs=((x,), {}), train_runs=((x,), {}), ds=ds, w2l=w2l)
    return build


def transforms():
    """Feature extraction and augmentation transforms applied to a device batch inside the step."""
    def build():
        import torchaudio.functional as AF
        import torchaudio.transforms as T
        mods = torch.nn.ModuleDict(dict(
            mel=T.MelSpectrogram(sample_rate=8000, n_fft=256, hop_length=80, n_mels=20),
            mfcc=T.MFCC(sample_rate=8000, n_mfcc=13, melkwargs=dict(n_fft=256, hop_length=80, n_mels=20)),
            fmask=T.FrequencyMasking(freq_mask_param=5, iid_masks=True),
            tmask=T.TimeMasking(time_mask_param=6, iid_masks=True, p=0.5),
            resample=T.Resample(8000, 6000), vol=T.Vol(0.5), cmn=T.SlidingWindowCmn(cmn_window=20),
            deltas=T.ComputeDeltas(), noise=T.AddNoise(), speed=T.Speed(8000, 1.1), pre=T.Preemphasis(),
            stretch=T.TimeStretch(n_freq=129, hop_length=80), db=T.AmplitudeToDB(top_db=60.0),
            fade=T.Fade(fade_in_len=100, fade_out_len=100), vad=T.Vad(sample_rate=8000),
            spec=T.Spectrogram(n_fft=256, hop_length=80, power=None)))
        wave, lens = _wave(n=4000)
        noise = torch.randn(2, 4000, generator=gen(118)) * 0.05

        def run(wave, lens, noise):
            m = mods
            mel = m["db"](m["mel"](wave))
            feats = m["tmask"](m["fmask"](mel[:, None]))
            out = [feats, m["mfcc"](wave), m["deltas"](mel), m["cmn"](mel.transpose(1, 2)),
                   m["resample"](wave), m["vol"](wave), m["pre"](wave), m["fade"](wave),
                   m["noise"](wave, noise, torch.tensor([10.0, 5.0]), lengths=lens),
                   m["speed"](wave, lens)[0], m["stretch"](m["spec"](wave), 1.2),
                   m["vad"](wave[0]), AF.detect_pitch_frequency(wave, 8000),
                   AF.spectral_centroid(wave, 8000, 0, torch.hann_window(256), 256, 80, 256)]
            return out
        args = ((wave, lens, noise), {})
        return step(run, eval_runs=args, train_runs=args, mods=mods)
    return build


MODELS = {
    "ta_wav2vec2_ctc": wav2vec2_ctc(),
    "ta_wavlm_ctc": wav2vec2_ctc(wavlm=True),
    "ta_hubert_pretrain": hubert_pretrain(),
    "ta_conformer_ctc": conformer(),
    "ta_emformer_rnnt": emformer_rnnt(),
    "ta_emformer_streaming": emformer_streaming(),
    "ta_tacotron2_wavernn": tacotron2_wavernn(),
    "ta_separation": separation(),
    "ta_small_asr": small_asr(),
    "ta_transforms": transforms(),
}
