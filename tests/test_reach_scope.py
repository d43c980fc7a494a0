"""Scope by reachability, through the real CLI: what runs inside the step is found from the
code (roots, what they reach, decoding loops), one verdict per statement whoever calls it."""
import json

DECODER = '''\
import torch


class Greedy:
    def update(self, tokens, logits):
        best = logits[:, -1].argmax(-1)
        if (best == 0).all():                       # per token: reached from the loop
            return tokens, True
        return torch.cat([tokens, best[:, None]], 1), False

    def finalize(self, tokens):
        return [int(t.max()) for t in tokens]      # once, from `run`: cold


class Task:
    def __init__(self, model):
        self.model = model
        self.decoder = Greedy()

    def _main_loop(self, tokens):
        for _ in range(16):
            logits = self.model(tokens)
            tokens, done = self.decoder.update(tokens, logits)
            if done:
                break
        return tokens

    def run(self, tokens):
        return self.decoder.finalize(self._main_loop(tokens))
'''

TRAINING = '''\
import torch


def fit_epoch(model, loader, opt):
    for x, y in loader:
        out = model(x)
        loss = torch.nn.functional.mse_loss(out, y)
        loss.backward()
        opt.step()
        if bool(loss.isnan()):                      # a training loop, not a decoding loop
            break
'''

SAME_VERDICT = '''\
import torch


def _positive(x):
    return x[x > 0]


def _boxes(sizes):
    return sizes[sizes > 0]


class Net(torch.nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.register_buffer("a", _boxes(torch.tensor(sizes)))   # only __init__ calls _boxes
        self.register_buffer("b", _positive(torch.tensor(sizes)))

    def forward(self, x):
        return _positive(x)                         # forward calls it too: in scope
'''

COMPILED = '''\
import torch
import pytorch_lightning as pl


def step(x):
    if x.sum() > 0:
        return x
    return -x


fast_step = torch.compile(step)


class Lit(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        return batch.sum() / batch.max().item()
'''


def _found(dynlint, write, tmp_path, source, *args):
    write("m.py", source)
    r = dynlint("check", "m.py", "--no-cache", "--format", "json", *args, cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    return sorted((f["code"], f["line"]) for f in json.loads(r.stdout))


def test_decoding_loop_makes_what_it_calls_model_code(dynlint, write, tmp_path):
    found = _found(dynlint, write, tmp_path, DECODER)
    assert ("DYN204", 7) in found                   # update: reached from the driver loop
    assert not any(line == 12 for _, line in found)   # finalize: only `run` (cold) calls it


def test_training_loop_is_no_driver(dynlint, write, tmp_path):
    assert _found(dynlint, write, tmp_path, TRAINING) == []


def test_same_statement_same_verdict_and_cold_by_reachability(dynlint, write, tmp_path):
    found = _found(dynlint, write, tmp_path, SAME_VERDICT, "--select", "DYN101")
    assert found == [("DYN101", 5)]                 # `_boxes` runs once, from __init__ only


def test_compile_by_call_and_lightning_steps_are_roots(dynlint, write, tmp_path):
    found = _found(dynlint, write, tmp_path, COMPILED)
    assert ("DYN204", 6) in found
    assert ("DYN201", 16) in found
