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
        return [int(t.max()) for t in tokens]      # from `run`, the decoding API: in the step


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
    # `run` calls its own class's decoding loop: it is the decoding API (whisper's
    # DecodingTask.run), so what it calls once per decode runs in the inference step too
    assert ("DYN203", 12) in found


def test_explain_names_the_decoding_api_as_entry_point(dynlint, write, tmp_path):
    write("m.py", DECODER)
    r = dynlint("check", "--explain", "m.py:12", cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    assert "model code" in r.stdout and "entry point: `Task.run`" in r.stdout
    assert "`Greedy.finalize`" in r.stdout


def test_training_loop_is_no_driver(dynlint, write, tmp_path):
    # No driver (nothing it calls becomes model code), but it runs the backward pass itself:
    # its loop body is the training step, where the NaN test syncs every step.
    assert _found(dynlint, write, tmp_path, TRAINING) == [("DYN203", 10)]


def test_same_statement_same_verdict_and_cold_by_reachability(dynlint, write, tmp_path):
    found = _found(dynlint, write, tmp_path, SAME_VERDICT, "--select", "DYN101")
    assert found == [("DYN101", 5)]                 # `_boxes` runs once, from __init__ only


def test_compile_by_call_and_lightning_steps_are_roots(dynlint, write, tmp_path):
    found = _found(dynlint, write, tmp_path, COMPILED)
    assert ("DYN204", 6) in found
    assert ("DYN201", 16) in found


# A loop whose iterations are independent (build a model, fit it, score it) drives nothing;
# what it calls stays library code, where exports to the host (`.tolist()`) are not flagged.
BACKTEST = '''\
import torch


def score(pred, truth):
    return (pred - truth).abs().mean(0).tolist()


def backtest(data, model_fn, forecaster_fn, transform=None):
    results = []
    for t1 in range(1, data.size(0)):
        model = model_fn()
        forecaster = forecaster_fn(model, data[:t1])
        pred = forecaster(data[:t1])
        truth = data[t1:]
        if transform is not None:
            pred, truth = transform(pred, truth)
        results.append(score(pred, truth))
    return results
'''

# The same shape with the output fed back: a sampler writing each token into the tensor the
# next iteration reads (esm's GVPTransformerModel.sample) drives the model.
FEEDBACK = '''\
import torch


def pick(logits):
    return logits.argmax(-1).tolist()


class Sampler:
    def __init__(self, decoder):
        self.decoder = decoder

    def sample(self, tokens, steps):
        total = 0
        for i in range(1, steps):
            logits = self.decoder(tokens[:, :i])
            tokens[:, i] = torch.tensor(pick(logits[:, -1]))
        return tokens

    def score_all(self, batches):
        total = 0.0
        for b in batches:
            total += self.decoder(b).sum()      # only accumulates: no driver
        return pick(total)
'''


def test_independent_iterations_drive_nothing(dynlint, write, tmp_path):
    assert _found(dynlint, write, tmp_path, BACKTEST) == []
    r = dynlint("check", "--explain", "m.py:5", cwd=tmp_path)
    assert "model code" not in r.stdout, r.stdout


def test_output_written_back_into_the_next_input_drives(dynlint, write, tmp_path):
    found = _found(dynlint, write, tmp_path, FEEDBACK)
    assert ("DYN202", 5) in found                   # pick: reached from the sampling loop
    r = dynlint("check", "--explain", "m.py:14", cwd=tmp_path)
    assert "entry point: `Sampler.sample`" in r.stdout, r.stdout


# A function that runs a model it is given once and hands the result to numpy is a caller of
# the step (esm's get_sequence_loss), whatever its name says: "loss" in a name makes no root.
HAND_OFF = '''\
import torch
import torch.nn.functional as F


def get_sequence_loss(model, tokens, target):
    logits = model.forward(tokens)
    loss = F.cross_entropy(logits, target, reduction="none")
    return loss[0].detach().numpy()


class Net(torch.nn.Module):
    def forward(self, x):
        return x.cpu()                              # inside the step: flagged
'''


def test_a_loss_name_makes_no_entry_point(dynlint, write, tmp_path):
    assert _found(dynlint, write, tmp_path, HAND_OFF) == [("DYN214", 13)]


# Lazy initialisation on the first forward: what follows `if self.initted: return` (or the body
# of `if not self.initted:`) runs once per object when the method itself sets the flag; the
# test of the flag runs every step.
ONCE = '''\
import torch


class Codebook(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("initted", torch.tensor(False))
        self.register_buffer("embed", torch.zeros(8, 4))

    def init_embed_(self, data, mask):
        if self.initted:
            return
        data = data[mask]
        self.embed.data.copy_(data[:8])
        self.initted.data.copy_(torch.tensor(True))

    def warm(self, data, mask):
        if not self.initted:
            self.embed.data.copy_(data[mask][:8])
            self.initted.fill_(True)
        return data[mask]

    def update_stats(self, x, mask):
        if self.frozen:
            return
        if self.steps.item() >= 100:                # the flag is set only after 100 calls
            self.frozen = True
            return
        self.embed.mul_(0.9).add_(x[mask].mean(0))

    def forward(self, x, mask):
        self.init_embed_(x, mask)
        self.update_stats(x, mask)
        return self.warm(x, mask)
'''


def test_one_shot_initialisation_is_not_the_step(dynlint, write, tmp_path):
    found = _found(dynlint, write, tmp_path, ONCE)
    assert ("DYN204", 11) in found                  # `if self.initted:` reads a buffer per call
    assert ("DYN204", 18) in found
    assert ("DYN101", 21) in found                  # after the guarded block: every call
    assert not any(line in (13, 14, 19) for _, line in found), found
    assert ("DYN201", 26) in found and ("DYN101", 29) in found   # every call until the flag is set
    r = dynlint("check", "--explain", "m.py:13", cwd=tmp_path)
    assert "runs once per object" in r.stdout and "line 11" in r.stdout, r.stdout


# Test packages (a package named `testing`, `tests`...) hold no step code: a goodness-of-fit
# helper shipped in `pkg.testing` is cold, the same code elsewhere in the package is library
# code and flagged; the same verdict when the file is checked alone. An example package is no
# library either (its helpers count only when model code reaches them), but the models it
# defines are models, and what they call in another file of the package is model code.
GOF = '''\
import torch


def goodness_of_fit(counts, probs):
    counts = torch.as_tensor(counts)
    total = int(counts.sum())
    return (counts - total * probs).pow(2).sum()
'''


def test_test_and_example_packages_are_cold(dynlint, write, tmp_path):
    write("pyproject.toml", "[project]\nname = 'pkg'\n")
    for name in ("pkg/__init__.py", "pkg/testing/__init__.py", "pkg/examples/__init__.py"):
        write(name, "")
    for name in ("pkg/testing/gof.py", "pkg/examples/gof.py", "pkg/ops.py"):
        write(name, GOF)
    r = dynlint("check", "pkg", "--no-cache", "--format", "json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert {(f["path"].replace("\\", "/"), f["code"]) for f in json.loads(r.stdout)} == {("pkg/ops.py", "DYN203")}
    alone = dynlint("check", "pkg/testing/gof.py", "--no-cache", cwd=tmp_path)
    assert alone.returncode == 0, alone.stdout
    why = dynlint("check", "--explain", "pkg/testing/gof.py:6", cwd=tmp_path)
    assert "in a test package" in why.stdout, why.stdout
    why = dynlint("check", "--explain", "pkg/examples/gof.py:6", cwd=tmp_path)
    assert "in an example package" in why.stdout, why.stdout


def test_models_of_example_packages_are_models(dynlint, write, tmp_path):
    write("pyproject.toml", "[project]\nname = 'pkg'\n")
    for name in ("pkg/__init__.py", "pkg/examples/__init__.py"):
        write(name, "")
    write("pkg/examples/model.py", GOF + """
from pkg.examples.helpers import positive


class Net(torch.nn.Module):
    def forward(self, x):
        return x[x > 0], positive(x)
""")
    write("pkg/examples/helpers.py", "import torch\n\n\ndef positive(x):\n    return int(torch.as_tensor(x).sum())\n")
    r = dynlint("check", "pkg", "--no-cache", "--format", "json", cwd=tmp_path)
    found = {(f["path"].replace("\\", "/"), f["code"], f["line"]) for f in json.loads(r.stdout)}
    # goodness_of_fit (line 6) is reached by nothing: not flagged; the model and its helper are
    assert found == {("pkg/examples/model.py", "DYN101", 14),
                     ("pkg/examples/helpers.py", "DYN203", 5)}, r.stdout
    for path in ("pkg/examples/model.py", "pkg/examples/helpers.py"):
        alone = dynlint("check", path, "--no-cache", "--format", "json", cwd=tmp_path)
        assert {(f["path"].replace("\\", "/"), f["code"], f["line"])
                for f in json.loads(alone.stdout)} == {x for x in found if x[0] == path}


# A function that keeps a heap runs a host algorithm (pyro's tracking.hashing.merge_points: a
# greedy clustering whose distances become heap keys); the same read elsewhere is in scope.
HOST_ALGORITHM = '''\
import heapq

import torch


def merge_points(points, radius):
    points = torch.as_tensor(points)
    queue = []
    for i in range(len(points)):
        for j in range(i):
            d2 = (points[i] - points[j]).pow(2).sum().item()
            if d2 < radius:
                heapq.heappush(queue, (d2, j, i))
    return queue


def nearest(points, x):
    points = torch.as_tensor(points)
    return (points - x).pow(2).sum(-1).argmin().item()
'''


def test_a_host_algorithm_is_cold(dynlint, write, tmp_path):
    assert _found(dynlint, write, tmp_path, HOST_ALGORITHM) == [("DYN201", 19)]
    r = dynlint("check", "--explain", "m.py:11", cwd=tmp_path)
    assert "host algorithm" in r.stdout, r.stdout


# Data and logging code named by the library's own classes and modules (speechbrain's
# `TextMelCollate`, PyG's `InMemoryDataset` subclasses, stable-baselines3's `common.logger`).
DATA_AND_LOGS = '''\
import torch
from pkg.data import InMemoryDataset


class TextMelCollate:
    def __call__(self, batch):
        lengths, order = torch.sort(torch.stack([b.size(0) for b in batch]), descending=True)
        return [batch[i] for i in order if int(lengths[0]) > 0]


class Actor(InMemoryDataset):
    def process(self, row):
        return torch.zeros(int(row.max()) + 1)


class Writer:
    def write(self, value):
        return float(value.item())


def to_dense(batch: torch.Tensor):
    return torch.zeros(int(batch.max()) + 1)


class Stats:
    def summarize(self, scores: torch.Tensor):
        return {"best": self._best(scores)}

    def _best(self, scores: torch.Tensor):
        return float(scores.max())


def ratio(x: torch.Tensor, y: torch.Tensor) -> float:
    return float(x[y > 0].sum())              # a statistic: declared to return a float


def size_of(index: torch.Tensor) -> int:
    return int(index.max()) + 1               # a size a step may need: in scope
'''


def test_collate_dataset_summary_statistic_and_logging_code_is_cold(dynlint, write, tmp_path):
    write("pyproject.toml", "[project]\nname = 'pkg'\n")
    write("pkg/__init__.py", "")
    write("pkg/data.py", "class InMemoryDataset:\n    pass\n")
    write("pkg/utils.py", DATA_AND_LOGS)
    write("pkg/logger.py", DATA_AND_LOGS)
    r = dynlint("check", "pkg", "--no-cache", "--format", "json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    found = {(f["path"].replace("\\", "/"), f["line"]) for f in json.loads(r.stdout)}
    # only the library functions (readers of the same data in code that may run in a step) are
    # reported; the writer outside a logging module returns a Python float computed from a
    # tensor, a statistic by its code (`analysis/reporting.py`)
    assert found == {("pkg/utils.py", 22), ("pkg/utils.py", 38)}, found
    why = dynlint("check", "--explain", "pkg/utils.py:18", cwd=tmp_path)
    assert "Python floats" in why.stdout, why.stdout
    why = dynlint("check", "--explain", "pkg/utils.py:8", cwd=tmp_path)
    assert "collate" in why.stdout, why.stdout
    why = dynlint("check", "--explain", "pkg/utils.py:13", cwd=tmp_path)
    assert "InMemoryDataset" in why.stdout, why.stdout
    why = dynlint("check", "--explain", "pkg/logger.py:18", cwd=tmp_path)
    assert "logging module" in why.stdout, why.stdout
    why = dynlint("check", "--explain", "pkg/utils.py:30", cwd=tmp_path)   # only `summarize` calls it
    assert "cold" in why.stdout, why.stdout
    why = dynlint("check", "--explain", "pkg/utils.py:34", cwd=tmp_path)
    assert "return Python floats" in why.stdout, why.stdout
