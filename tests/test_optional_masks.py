"""Masks that are `None` on some path (fairseq's `masked_tokens`, `mask_indices`): the mask's
kind survives the `if` that sets it to None, the `else` reads what the name held before the
`if` (not what the body bound), and the legacy `t.new(data)` keeps the receiver's dtype.
Through the real CLI, one finding per line (concise format)."""
import textwrap


def _check(dynlint, write, source, *extra):
    path = write("m.py", textwrap.dedent(source))
    proc = dynlint("check", "--no-cache", "--isolated", *extra, path.name, cwd=path.parent)
    assert proc.returncode in (0, 1), proc.stderr
    return sorted((int(line.split(":")[1]), line.split()[1]) for line in proc.stdout.splitlines()
                  if line.startswith("m.py:"))


def test_mask_set_to_none_on_one_path_is_still_a_mask(dynlint, write):
    # fairseq/criterions/masked_lm.py: None on TPU, `.new([True])` on an accelerator.
    found = _check(dynlint, write, """\
        import torch
        class MaskedLmLoss(torch.nn.Module):
            def forward(self, model, sample, tpu: bool):
                masked_tokens = sample["target"].ne(1)
                if tpu:
                    masked_tokens = None
                else:
                    masked_tokens = torch.where(
                        masked_tokens.any(), masked_tokens, masked_tokens.new([True]))
                logits = model(sample["net_input"], masked_tokens=masked_tokens)
                targets = sample["target"]
                if masked_tokens is not None:
                    targets = targets[masked_tokens]
                return logits, targets
        """)
    assert found == [(13, "DYN101")]


def test_optional_receiver_and_conditional_expression(dynlint, write):
    found = _check(dynlint, write, """\
        import torch
        class Head(torch.nn.Module):
            def forward(self, feats, keep, labels, tpu: bool):
                if feats is not None:
                    tokens = self.proj(feats)
                else:
                    tokens = None
                sel = tokens.masked_select(keep.unsqueeze(-1))
                m = None if tpu else labels.ne(-100)
                return sel, labels[m]
        """)
    assert found == [(8, "DYN105"), (10, "DYN101")]


def test_none_on_one_path_adds_no_dtype(dynlint, write):
    # Positions stay positions; a name None on every path stays None; what the body binds
    # is what code after the `if` sees when the `else` does not rebind it.
    found = _check(dynlint, write, """\
        import torch
        class Net(torch.nn.Module):
            def forward(self, x, scores, flag: bool):
                idx = scores.argsort()
                if flag:
                    idx = None
                a = x[idx]
                m = None
                if flag:
                    m = None
                b = x[m]
                k = scores > 0
                if flag:
                    k = scores.argmax(-1)
                else:
                    pass
                return a, b, x[k]
        """)
    assert found == []


def test_else_reads_the_value_from_before_the_if(dynlint, write):
    found = _check(dynlint, write, """\
        import torch
        class Net(torch.nn.Module):
            def forward(self, x, t, flag: bool):
                m = t > 0
                if flag:
                    m = None
                    n = t.argmax(-1)
                else:
                    n = m.logical_not()             # `m` is the mask here, not None
                return x[n]
        """)
    assert found == [(10, "DYN101")]


def test_legacy_new_keeps_the_receivers_dtype_only_on_a_tensor(dynlint, write):
    found = _check(dynlint, write, """\
        import hmac
        import torch
        def f(x: torch.Tensor, t: torch.Tensor, key: bytes):
            m = (t > 0).new([True])
            h = hmac.new(key)
            i = t.long().new([0])
            return x[m], x[h], x[i]
        """)
    assert found == [(7, "DYN101")]


def test_a_proof_from_the_callers_beats_the_name(dynlint, write):
    # fairseq's replicate_first_beam: the parameter `mask` is unknown in the first walk (the
    # name says mask: `likely`); its callers pass a bool mask (second walk: `certain`).
    import json
    path = write("m.py", textwrap.dedent("""\
        import torch
        class Gen(torch.nn.Module):
            def forward(self, lprobs, tokens):
                eos_mask = tokens.eq(2)
                return self.replicate(lprobs, eos_mask)
            def replicate(self, tensor, mask):
                return tensor[mask]
        """))
    proc = dynlint("check", "--no-cache", "--isolated", "--format", "json", path.name,
                   cwd=path.parent)
    found = [(f["line"], f["code"], f["confidence"]) for f in json.loads(proc.stdout)]
    assert found == [(7, "DYN101", "certain")]


def test_numpy_bool_arrays_made_tensors_are_masks(dynlint, write):
    # fairseq's wav2vec2/transformer_ulm: span masks drawn with numpy, then `from_numpy`.
    found = _check(dynlint, write, """\
        import numpy as np
        import torch
        def span_mask(shape, p):
            mask = np.full(shape, False)
            mask[:, :2] = True
            return mask
        class Ulm(torch.nn.Module):
            def forward(self, inp, x, p: float):
                drop = np.random.uniform(0, 1, (inp.shape[0],)) < p
                drop = torch.from_numpy(drop).to(inp.device)
                inp[drop] = 0
                m = torch.from_numpy(span_mask(x.shape[:2], p)).to(x.device)
                ids = torch.from_numpy(np.full(3, 1)).to(x.device)
                counts = torch.as_tensor(np.zeros(3, dtype=bool), dtype=torch.long)
                return x[m], x[ids], x[counts], drop
        """, "--extend-select", "DYN112")
    assert found == [(11, "DYN112"), (15, "DYN101")]


def test_a_tensor_annotation_says_no_dtype_so_a_mask_name_still_tells(dynlint, write):
    # espnet2's HuBERTDecoder.forward(x, mask_m: torch.Tensor, mask_u: torch.Tensor) and
    # smoothness penalty; ultralytics' losses take `fg_mask: torch.Tensor` the same way.
    found = _check(dynlint, write, """\
        import torch
        class Decoder(torch.nn.Module):
            def forward(self, x: torch.Tensor, mask_m: torch.Tensor, pad_mask: torch.Tensor,
                        ids_mask: torch.LongTensor, mask_len: torch.Tensor):
                logits = self.proj(x)[mask_m]
                x[pad_mask[:, 1:]] = 0
                return logits, x[ids_mask], x[mask_len]
        """, "--extend-select", "DYN112")
    assert found == [(5, "DYN101"), (6, "DYN112")]


def test_torch_full_of_a_bool_is_a_mask(dynlint, write):
    found = _check(dynlint, write, """\
        import torch
        def span_mask(b: int, t: int):
            mask = torch.full((b, t), False)
            mask[:, :2] = True
            return mask
        class Model(torch.nn.Module):
            def forward(self, x):
                fill = torch.full((x.shape[0],), 3)
                return x[span_mask(x.shape[0], x.shape[1])], x[fill]
        """)
    assert found == [(9, "DYN101")]


def test_python_bools_read_from_tensors_index_as_a_mask(dynlint, write):
    # espnet2's s2t models drop samples without text: `encoder_out[is_valid]`.
    found = _check(dynlint, write, """\
        import torch
        class S2T(torch.nn.Module):
            def forward(self, encoder_out, ys_pad, names: list):
                is_valid = [self.na not in y for y in ys_pad]
                if not any(is_valid):
                    return None
                keep = [n in self.kept for n in names]
                return encoder_out[is_valid], encoder_out[:, keep]
        """)
    assert found == [(8, "DYN101")]


def test_rows_of_a_numpy_copy_are_numpy(dynlint, write):
    # espnet's rnn decoder logs hypotheses from `.cpu().numpy()` copies (a false alarm before).
    found = _check(dynlint, write, """\
        import torch
        class Decoder(torch.nn.Module):
            def forward(self, ys_hat, ys_true):
                for (i, y_hat), y_true in zip(enumerate(ys_hat.detach().cpu().numpy()),
                                              ys_true.detach().cpu().numpy()):
                    idx = y_true[y_true != -1]
                for y in ys_true:
                    kept = y[y != -1]
                return kept
        """, "--select", "DYN101")
    assert found == [(8, "DYN101")]


def test_items_of_a_list_of_numpy_arrays_are_numpy(dynlint, write):
    # speechbrain 1.1.2 (Apache 2.0), `integrations/alignment/ctc_seg.py` 570-575: token ids
    # as numpy arrays, filtered per utterance (a false alarm of the set-b hand reading). The
    # same filter over a list of tensors is still a boolean-mask index.
    found = _check(dynlint, write, """\
        import numpy as np
        import torch
        class Segmenter(torch.nn.Module):
            def forward(self, text, config, tokens):
                token_list = [
                    np.array(self._tokenizer.encode_as_ids(utt)) for utt in text
                ]
                unk = config.char_list.index("<unk>")
                token_list = [utt[utt != unk] for utt in token_list]
                ids = [torch.tensor(t) for t in tokens]
                return [t[t != unk] for t in ids], token_list
        """, "--select", "DYN101")
    assert found == [(11, "DYN101")]


def test_flag_set_to_a_bool_constant_on_one_path_is_still_a_tensor(dynlint, write):
    # torchdiffeq's adaptive step: `accept = err <= 1`, overridden by host tests of the step
    # size; the truth test after them reads the tensor on the path that keeps it.
    found = _check(dynlint, write, """\
        import torch
        class Step(torch.nn.Module):
            def forward(self, err, y0, y1, dt: float, max_dt: float, min_dt: float):
                accept = err.norm() <= 1
                if dt > max_dt:
                    accept = False
                if dt <= min_dt:
                    accept = True
                if accept:
                    return y1
                return y0
        """)
    assert found == [(9, "DYN204")]


def test_bool_constant_keeps_no_number_nor_non_bool_tensor(dynlint, write):
    # A number read from a tensor, a tensor that is no flag, a name only ever a constant:
    # no flag joins them.
    found = _check(dynlint, write, """\
        import torch
        class Step(torch.nn.Module):
            def forward(self, x, flag: bool):
                scale = x.norm()
                if flag:
                    scale = False
                done = False
                if flag:
                    done = True
                n = 0
                if flag:
                    n = False
                if done or n:
                    return x * scale
                return x
        """)
    assert found == []


def test_tensor_rebound_to_a_plain_value_on_a_rare_path_is_still_a_tensor(dynlint, write):
    # torchsde's BrownianInterval.__call__: `ta` is the caller's tensor time, rebound to the
    # interval's float start only when `tb` is not given; `float(ta)` after the `if` reads the
    # tensor on the common path. A name every path rebinds holds no tensor after the `if`,
    # nor one a path recasts with a method tensors lack (torchvision's PIL `pad`, whose
    # caller passes its `img: Tensor` under `if not isinstance(img, torch.Tensor):`).
    found = _check(dynlint, write, """\
        import torch
        class Query(torch.nn.Module):
            def __init__(self, start):
                super().__init__()
                self.start = float(start)
            def forward(self, x, tb=None):
                ta = x.amax()
                if tb is None:
                    ta, tb = self.start, ta
                t0 = float(ta)
                s = x.sum()
                if tb is None:
                    s = 0.5
                else:
                    s = 1.5
                img = x.float()
                if tb is None:
                    img = img.crop((0, 0, 4, 4))   # a method tensors lack: no tensor here
                return t0, float(s), float(img)
        """)
    assert found == [(10, "DYN203")]
