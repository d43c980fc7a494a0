"""Evaluation and prediction steps (dynlint/analysis/evalsteps.py), through the real CLI: what an
inference loop (`torch.inference_mode()`/`no_grad()`, or `m.eval()`) calls on each batch, when it
runs a model on it, is in scope whatever the loop's name (`evaluate`, `_predict_epoch`) and
whoever else calls it: shape rules and host reads that steer Python fire there, while the bulk
hand-off of each batch's predictions (`scores.cpu().numpy()`) and the loop's own metric
accumulation stay quiet. Twins: no inference mode, an index that is no batch (a grid cell's
bounds), a per-batch helper that runs no model. The snippets are excerpts of pykeen 1.11.1 (MIT)
`evaluation/evaluator.py` and pytorch-tabnet 4.1.0 (MIT) `abstract_model.py`, trimmed.
"""
import json

# pykeen: the filtered evaluation. `evaluate` (cold by its name) splits the triples into
# batches and runs `_evaluate_batch` on each; the filter helpers only that step calls.
EVALUATOR = '''\
import torch


@torch.inference_mode()
def evaluate(evaluator, mapped_triples, batch_size, **kwargs):
    hits = 0
    for batch in mapped_triples.split(split_size=batch_size):
        relation_filter = _evaluate_batch(batch=batch, evaluator=evaluator, **kwargs)
        hits += (relation_filter.sum(dim=1) > 0).sum().item()
    return evaluator.finalize(), hits


def create_sparse_positive_filter_(hrt_batch, all_pos_triples):
    relation_filter = all_pos_triples[:, 1:2].view(1, -1) == hrt_batch[:, 1:2]
    entity_filter = all_pos_triples[:, 0:1].view(1, -1) == hrt_batch[:, 0:1]
    filter_batch = (entity_filter & relation_filter).nonzero(as_tuple=False)
    return filter_batch, relation_filter


def filter_scores_(scores: torch.Tensor, filter_batch):
    scores[filter_batch[:, 0], filter_batch[:, 1]] = float("nan")
    if ((scores != scores).sum(dim=1) == scores.shape[1]).any():
        print("all filtered")
    return scores


def _evaluate_batch(batch, model, evaluator, all_pos_triples):
    scores = model.predict(hrt_batch=batch)
    positive_filter, relation_filter = create_sparse_positive_filter_(batch, all_pos_triples)
    scores = filter_scores_(scores, positive_filter)
    evaluator.process_scores_(hrt_batch=batch, scores=scores.detach().cpu().numpy())
    return relation_filter
'''

# The same loop without inference mode: nothing says a model runs there for inference.
NO_INFERENCE = EVALUATOR.replace("@torch.inference_mode()\n", "")

# pytorch-tabnet: the validation epoch `fit` runs after each training epoch (between
# `self.network.eval()` and `.train()`), calling `_predict_batch` on each batch.
ESTIMATOR = '''\
import numpy as np
import torch


class TabModel:
    def fit(self, train_loader, valid_loader, max_epochs):
        for epoch in range(max_epochs):
            self._train_epoch(train_loader)
            self._predict_epoch("valid", valid_loader)

    def _predict_epoch(self, name, loader):
        self.network.eval()
        list_y_true, list_y_score = [], []
        for batch_idx, (X, y) in enumerate(loader):
            scores = self._predict_batch(X)
            list_y_true.append(y)
            list_y_score.append(scores)
            self._count(y)
        self.network.train()
        return np.vstack(list_y_score)

    def _predict_batch(self, X):
        X = X.to(self.device).float()
        scores, _ = self.network(X)
        kept = scores[scores > 0]
        return scores.cpu().detach().numpy(), kept

    def _count(self, y):
        return y[y > 0].numel()
'''

# nerfstudio-like export: a `no_grad` loop over grid cells hands each cell's bounds (an
# index into a list of floats, no batch) to a function that evaluates the field.
EXPORT = '''\
import numpy as np
import torch


def evaluate_cell(evaluate, points: torch.Tensor, x_min, x_max):
    valid = points.norm(dim=-1) < (x_max - x_min)
    return evaluate(points[valid])


@torch.no_grad()
def evaluate_grid(field, n, grid):
    xs = np.linspace(-1.0, 1.0, n + 1)
    out = []
    for i in range(n):
        x_min, x_max = xs[i], xs[i + 1]
        out.append(evaluate_cell(field, grid, x_min, x_max))
    return out


@torch.no_grad()
def evaluate_chunks(field, points, chunk):
    out = []
    for i in range(0, points.shape[0], chunk):
        out.append(evaluate_cell(field, points[i:i + chunk], -1.0, 1.0))
    return out
'''


def _findings(dynlint, path):
    proc = dynlint("check", "--format", "json", "--no-cache", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    return {(f["path"].rpartition("/")[2], f["line"], f["code"]) for f in json.loads(proc.stdout)}


def test_what_an_inference_loop_runs_per_batch_is_in_scope(dynlint, write):
    found = _findings(dynlint, str(write("evaluator.py", EVALUATOR)))
    assert found == {("evaluator.py", 16, "DYN102"), ("evaluator.py", 22, "DYN204")}
    # (not the loop's `.sum().item()` metric, line 8, nor the step's `.cpu().numpy()`, 30)


def test_a_loop_without_inference_mode_is_no_evaluation(dynlint, write):
    assert _findings(dynlint, str(write("evaluator.py", NO_INFERENCE))) == set()


def test_validation_epoch_step_between_eval_and_train(dynlint, write):
    # two files, so that the cross-file step runs: it must not make the step cold again
    # (`_predict_epoch`, cold as an evaluation, is its only caller)
    write("tabnet/__init__.py", "")
    write("tabnet/classifier.py", "from .abstract_model import TabModel\n\n\n"
                                  "class TabNetClassifier(TabModel):\n    pass\n")
    write("tabnet/abstract_model.py", ESTIMATOR)
    found = _findings(dynlint, str(write("tabnet/abstract_model.py", ESTIMATOR).parent))
    assert found == {("abstract_model.py", 25, "DYN101")}
    # (not `_count`, which runs no model; not the step's `.cpu().detach().numpy()` hand-off)


def test_an_index_is_no_batch_but_a_chunk_is(dynlint, write):
    found = _findings(dynlint, str(write("exporter.py", EXPORT)))
    assert found == {("exporter.py", 7, "DYN101")}
    # the chunk loop's step; without `evaluate_chunks`, the grid-cell loop alone keeps it cold
    alone = EXPORT[:EXPORT.index("@torch.no_grad()\ndef evaluate_chunks")]
    assert _findings(dynlint, str(write("exporter2.py", alone))) == set()


def test_explain_names_the_evaluation_step(dynlint, write):
    path = write("evaluator.py", EVALUATOR)
    proc = dynlint("check", "--no-cache", "--exit-zero", path, "--explain", f"{path}:28")
    assert "is an evaluation step" in proc.stdout, proc.stdout + proc.stderr


# A step cold by its name (`eval_step`) runs the network and uses its output: in scope. A
# per-batch helper cold by its name that only hands the batch on (`log_batch`: the logger's
# result is dropped) computes nothing there: it stays cold.
NAMED = '''\
import torch


class Runner:
    @torch.no_grad()
    def evaluate(self, loader):
        for x in loader:
            self.eval_step(x)
            self.log_batch(x)

    def eval_step(self, x):
        out = self.network(x)
        return out[out > 0]

    def log_batch(self, x: torch.Tensor):
        self.logger.log(x)
        return x[x > 0]
'''


def test_a_step_cold_by_its_name_is_in_scope_a_logger_is_not(dynlint, write):
    found = _findings(dynlint, str(write("runner.py", NAMED)))
    assert found == {("runner.py", 13, "DYN101")}
