"""Scope decided by what a loop runs, not by names (issue 9, held-out suites f, h, i), through
the real CLI. A function that runs a backward pass outside any loop is called once per
minibatch; the innermost loop calling it is the training step's minibatch loop, whatever the
looping function's name (`run`). The snippet is an excerpt of segmentation-models-pytorch
0.3 (MIT) `utils/train.py`.
"""
import json

# `Epoch.run` loops over the loader and calls `self.batch_update(x, y)`, a template method
# whose override in `TrainEpoch` runs the backward pass: the loss copy runs every step.
EPOCH = '''\
import torch


class Epoch:
    def __init__(self, model, loss):
        self.model = model
        self.loss = loss

    def batch_update(self, x, y):
        raise NotImplementedError

    def run(self, dataloader):
        logs = []
        for x, y in dataloader:
            loss, y_pred = self.batch_update(x, y)
            loss_value = loss.cpu().detach().numpy()
            logs.append(loss_value)
        summary = loss.cpu().detach().numpy()
        return logs, summary


class TrainEpoch(Epoch):
    def __init__(self, model, loss, optimizer):
        super().__init__(model, loss)
        self.optimizer = optimizer

    def batch_update(self, x, y):
        self.optimizer.zero_grad()
        prediction = self.model.forward(x)
        loss = self.loss(prediction, y)
        loss.backward()
        self.optimizer.step()
        return loss, prediction


def train_step(model, optimizer, x, y):
    out = model(x)
    loss = torch.nn.functional.mse_loss(out, y)
    loss.backward()
    optimizer.step()
    return loss


def run(model, optimizer, loader):
    for x, y in loader:
        loss = train_step(model, optimizer, x, y)
        print(loss.cpu().numpy())


def epoch(model, optimizer, loader):
    for x, y in loader:
        loss = train_step(model, optimizer, x, y)


def fit(model, optimizer, loaders):
    for loader in loaders:
        epoch(model, optimizer, loader)
        print(model.weight.cpu().numpy())
'''

# The same loop around a step function that has a minibatch loop of its own: an epoch loop.
EPOCHS = '''\
import torch


class Trainer:
    def _train_epoch(self, loader):
        for x, y in loader:
            loss = self.loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()

    def run(self, loaders):
        for loader in loaders:
            self._train_epoch(loader)
            print(self.model.weight.cpu().numpy())
'''


def _findings(dynlint, path):
    proc = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    return {(f["line"], f["code"]) for f in json.loads(proc.stdout)}


def test_loop_calling_a_per_batch_step_is_the_step(dynlint, write):
    found = _findings(dynlint, str(write("train.py", EPOCH)))
    assert (16, "DYN214") in found          # Epoch.run's loop calls the overridden batch_update
    assert (18, "DYN214") not in found      # after the loop: once per call
    assert (47, "DYN214") in found          # module-level `run` looping over `train_step`
    assert (58, "DYN214") not in found      # `fit` loops over `epoch`, which has its own loop


def test_loop_around_an_epoch_is_no_step(dynlint, write):
    found = _findings(dynlint, str(write("trainer.py", EPOCHS)))
    assert (13, "DYN214") not in found


def test_explain_says_why(dynlint, write):
    path = write("train.py", EPOCH)
    proc = dynlint("check", "--no-cache", "--isolated", "--explain", f"{path}:16")
    assert "model code" in proc.stdout and "minibatch loop" in proc.stdout, proc.stdout


# A fit loop that runs a training epoch and then, in the same loop, a validation epoch: the
# validation runs every epoch, between training epochs, on the same device pipeline. Its
# per-batch loop (in inference mode, calling the evaluation step) is part of the training
# run; an evaluation called once after the loop is not. Excerpted from pytorch_tabnet 4.1
# (MIT) `abstract_model.py` and sbi 0.25 (Apache 2.0) `inference/trainers/base.py`.
FIT = '''\
import torch


class TabModel:
    def fit(self, train_loader, valid_loader):
        for epoch in range(10):
            self._train_epoch(train_loader)
            self._predict_epoch(valid_loader)
        self.final = self.evaluate(valid_loader)

    def _train_epoch(self, loader):
        for X, y in loader:
            self._train_batch(X, y)

    def _train_batch(self, X, y):
        output = self.network(X)
        loss = self.loss_fn(output, y)
        loss.backward()
        self._optimizer.step()

    def _predict_epoch(self, loader):
        self.network.eval()
        outs = []
        for X, y in loader:
            scores = self._predict_batch(X)
            outs.append(scores.cpu().numpy())
        self.network.train()
        return outs

    def _predict_batch(self, X):
        return self.network(X)

    def evaluate(self, loader):
        self.network.eval()
        outs = []
        for X, y in loader:
            scores = self._predict_batch(X)
            outs.append(scores.cpu().numpy())
        self.network.train()
        return outs


class Inference:
    def train(self, train_loader, val_loader):
        while self.epoch < 10:
            self._train_epoch(train_loader)
            self._val_loss = self._validate_epoch(val_loader)
            self.epoch += 1

    def _train_epoch(self, train_loader) -> float:
        total = 0
        for batch in train_loader:
            losses = self._get_losses(batch=batch)
            loss = torch.mean(losses)
            total += losses.sum().item()
            loss.backward()
            self.optimizer.step()
        return total

    def _validate_epoch(self, val_loader) -> float:
        total = 0
        with torch.no_grad():
            for batch in val_loader:
                losses = self._get_losses(batch=batch)
                total += losses.sum().item()
        return total
'''


def test_validation_epoch_of_the_fit_loop_is_in_the_step(dynlint, write):
    found = _findings(dynlint, str(write("abstract_model.py", FIT)))
    assert (26, "DYN214") in found          # _predict_epoch, run every epoch of `fit`
    assert (38, "DYN214") not in found      # evaluate, once after the loop
    assert (55, "DYN201") in found          # the training epoch's own read
    assert (65, "DYN201") in found          # _validate_epoch (`-> float`), run every epoch
