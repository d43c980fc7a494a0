"""Diagnoses of the suite-e misses and false alarms (speechbrain) at first look, written by reading the
code, checked with `dynlint check --explain` on the installed package and, for the kinds and forms,
with a small fixture holding the same code (flagged or not by the same dynlint). Keys as in
misslist.DIAGNOSES: (file prefix, function or code fragment). Cause labels start with their group."""
from __future__ import annotations

_SB = "speechbrain/"
RANK = "kind: an int subscript of a tensor whose rank no code fixes (a parameter) is not known to be 0-d"
HOSTBUILT = "by design: host-built tensor"
NUMPY = "false alarm: numpy array annotated `torch.Tensor`"

DIAGNOSES_E = {
    (_SB + "augment/augmenter.py", "augmentations_lst[0 : self.N_augment]"): (
        "form: tensor as a slice bound of a Python list",
        "`augmentations_lst[0 : self.N_augment]` with `self.N_augment = torch.randint(..., device=x.device)`: "
        "the slice bound is converted with `__index__` (a sync). The kind is known (`if self.N_augment == 0` two "
        "lines up is flagged) and `lst[self.N_augment]` is DYN213, but DYN213 matches `X[I]` only, not a slice"),
    (_SB + "decoders/ctc.py", "scoring_table[i, last_char[i]]"): (
        RANK, "`pos = scoring_table[i, last_char[i]]`: `last_char` is the 1-d `inp_tokens`, so `last_char[i]` is a "
              "0-d tensor used as an index (a sync); dynlint knows 0-d only from loops over rows, nonzero "
              "positions, argmax and `int | Tensor` (a fixture with `toks: torch.Tensor` annotated is missed too)"),
    (_SB + "decoders/ctc.py", "phi[:, i, pos]"): (
        RANK, "`phi[:, i, pos] = ...` with `pos = scoring_table[i, last_char[i]]` (a full index of a 2-d table): the "
              "write converts `pos` to an int; `if pos != -1:` on the line between is flagged (DYN204), but "
              "`pos` is not known to be 0-d"),
    (_SB + "decoders/ctc.py", "psi[i, self.eos_index]"): (
        RANK, "`r_sum[self.last_frame_index[i // beam_size], i]` with `self.last_frame_index = enc_lens - 1` (1-d): "
              "an element of a 1-d tensor as an index; same gap (CTCPrefixScore is neutral: built by CTCScorer "
              "in another file, reached through ScorerBuilder's dict of scorers; the fixture in model code is missed "
              "too)"),
    (_SB + "decoders/ctc.py", "ctc_greedy_decode"): (
        "scope: neutral, and DYN202 applies to model code only",
        "`filter_ctc_output(predictions.tolist(), ...)` in `ctc_greedy_decode`, a library function that only user "
        "code (the recipe's evaluation step) calls: neutral. DYN203 reports `int(torch.round(...))` two lines up "
        "there (`likely`), the `.tolist()` rule does not (the same function called from a forward is flagged)"),
    (_SB + "decoders/seq2seq.py", "_update_hyps_and_scores_if_eos_token"): (
        HOSTBUILT, "`batch_id = torch.div(index, self.beam_size, rounding_mode='floor')` with `index = index.item()`: "
                   "a 0-d tensor built on the host from two Python ints, then a list index "
                   "(`eos_hyps_and_log_probs_scores[batch_id]`); the ground truth records it `host_built`: no device "
                   "sync on a GPU. The `.item()` and `nonzero` lines above are flagged"),
    (_SB + "decoders/transducer.py", "b_best_prob >= self.state_beam"): (
        "kind: tensor held in a dict value",
        "`b_best_prob = b_best_hyp['logp_score']`: the hypotheses are dicts whose `logp_score` is "
        "`a_best_hyp['logp_score'] + logp_targets[j]` (a 0-d tensor from `topk`), picked with "
        "`max(beam_hyps, key=...)`; a value stored in a dict has no kind (a fixture with `h = {'s': lp[0]}; "
        "if h['s'] > 0:` is missed)"),
    (_SB + "nnet/RNN.py", "pad_packed_sequence"): (
        "by design: sync inside a torch function",
        "`torch.nn.utils.rnn.pad_packed_sequence(...)` runs `lengths[unsorted_indices.cpu()]` inside torch "
        "(`unsorted_indices` is on the device); torch is not a package root, so the copy is pinned on the calling "
        "line; no rule knows this torch function"),
    (_SB + "nnet/RNN.py", "output, hn = self.rnn(x)"): (
        "GT artefact: host tensor recorded as device memory",
        "`nn.LSTM` on a PackedSequence sizes its initial state with `batch_sizes[0]` (inside torch): "
        "`batch_sizes` comes from `_pack_padded_sequence` with host lengths and lives on the host in a GPU run too, "
        "but the provenance tracker marks every output of an op with a device input as device memory"),
    (_SB + "nnet/losses.py", "F.one_hot"): (
        "by design: one_hot label check (DYN217, --target hpu)",
        "`F.one_hot(targets.long(), outputs.shape[1])` with `num_classes` given still checks min/max on the host "
        "on CPU (and HPU); CUDA skips the check, so DYN217 is on only with `--target hpu` (it flags this line "
        "there)"),
    (_SB + "utils/Accuracy.py", "*"): (
        "scope: cold as a metric (returns Python floats)",
        "`Accuracy()` is cold: 'every return converts tensor data to Python floats: a statistic or metric'; "
        "the recipes call it every evaluation batch through `AccuracyStats.append` (the `masked_select` "
        "and `float(numerator)` run on device tensors)"),
}

FP_E = {
    (_SB + "decoders/ctc.py", "phix[start:end]"): (
        "by design: DYN207",
        "`torch.cat((phix[start:end], psi_init))`: `start`/`end` come from `.item()` of attention peaks when "
        "`ctc_window_size > 0` (flagged on those lines); in the runs the other branch set them from host ints"),
    (_SB + "nnet/pooling.py", "*"): (
        "by design: DYN207",
        "`x[snt_id, 0:actual_size, ...]` with `actual_size = int(torch.round(lengths[snt_id] * ...))` synced (and "
        "flagged) on the line before"),
    (_SB + "decoders/ctc.py", "logit_col[self.blank_index] > self.blank_skip_threshold"): (
        NUMPY, "`partial_decoding(self, log_probs: torch.Tensor, ...)` receives a numpy array: `decode_beams` "
               "calls `log_probs.cpu().numpy()` (flagged, DYN214) before the per-utterance decode; the annotation "
               "is wrong, so each row's comparison is taken for a tensor read (a fixture without the "
               "annotation is not flagged)"),
    (_SB + "decoders/ctc.py", "_get_new_beam"): (
        NUMPY, "`if p and p > beam.p:` with `p: float` declared: its caller passes `p=logit_col[token_index]`, an "
               "element of the numpy row that `log_probs: torch.Tensor` mislabels, so the parameter is taken for "
               "a 0-d tensor"),
    (_SB + "nnet/attention.py", "torch.equal"): (
        "right code, not reached: short-circuited by an identity test",
        "`if (query is key or torch.equal(query, key)) and (key is value or torch.equal(key, value))`: the "
        "encoder's self-attention passes one tensor three times, so `torch.equal` never runs; with distinct "
        "tensors it reads the data (a real sync)"),
}
