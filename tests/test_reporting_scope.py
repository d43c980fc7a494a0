"""Reporting code told from what it does (`dynlint/analysis/reporting.py`), through the real CLI:
a function that draws a figure is cold whoever calls it, and a function whose every return is a
Python float computed from tensors is a statistic (soft cold). Both false alarms were read by
hand (bench/results/handread_b.md, handread_c.md); the snippets are excerpts of real code.
"""
import json

from _tree import corpus_function

_CORPUS_ACCURACY = corpus_function("speechbrain/utils/Accuracy.py", "Accuracy")

# pytorch-forecasting 1.8.0 (MIT), `models/base/_base_model.py`, excerpted: a Lightning step
# calls `create_log`, which calls `log_prediction` every `log_interval` batches, which draws
# `plot_prediction`. The step's own read (`decoder_lengths.cpu()` for packing) is real.
FORECASTING = '''\
import torch
from torch.nn.utils import rnn
import lightning.pytorch as pl


class BaseModel(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        x, y = batch
        log, out = self.step(x, y, batch_idx)
        return log

    def step(self, x, y, batch_idx, **kwargs):
        if (x["decoder_lengths"] < x["decoder_lengths"].max()).any():
            y = rnn.pack_padded_sequence(
                y[0], lengths=x["decoder_lengths"].cpu(), batch_first=True, enforce_sorted=False
            )
        out = self(x, **kwargs)
        log = self.create_log(x, y, out, batch_idx)
        return log, out

    def create_log(self, x, y, out, batch_idx):
        if self.log_interval > 0:
            self.log_prediction(x, out, batch_idx)
        return {}

    def log_prediction(self, x, out, batch_idx, **kwargs):
        if batch_idx % self.log_interval == 0 and self.log_interval > 0:
            fig = self.plot_prediction(x, out, idx=0, add_loss_to_title=True, **kwargs)
            self.logger.experiment.add_figure("prediction", fig, global_step=self.global_step)

    def plot_prediction(self, x, out, idx=0, add_loss_to_title=False, ax=None):
        from matplotlib import pyplot as plt

        y_all = torch.cat([x["encoder_target"][idx], x["decoder_target"][idx]])
        max_encoder_length = x["encoder_lengths"].max()
        y = torch.cat(
            (
                y_all[: x["encoder_lengths"][idx]],
                y_all[max_encoder_length : (max_encoder_length + x["decoder_lengths"][idx])],
            ),
        )
        y_hat = out["prediction"].detach().cpu()[idx, : x["decoder_lengths"][idx]]
        y = y.detach().cpu()
        if ax is None:
            fig, ax = plt.subplots()
        else:
            fig = ax.get_figure()
        ax.plot(y.numpy(), label="observed")
        ax.plot(y_hat.numpy(), label="predicted")
        return fig
'''

# A `forward` that also draws (a debug figure) stays a root: drawing makes no entry point cold.
DEBUG_FORWARD = '''\
import torch
import matplotlib.pyplot as plt


class Net(torch.nn.Module):
    def forward(self, x, debug=False):
        keep = x[x > 0]
        if debug:
            plt.hist(keep.detach().cpu().numpy())
        return keep.sum()
'''

# speechbrain 1.1.2 (Apache 2.0), `utils/Accuracy.py` `Accuracy` (read from the corpus copy) and
# `utils/metric_stats.py` `minDCF` (excerpted): metrics that return Python floats.
# diffusers' `index_for_timestep` returns `indices[pos].item()`, a position the scheduler's step
# goes on with: not a statistic, still reported (the ground truth ran it in every denoising step).
# torch_geometric 2.8.1 (MIT), `nn/models/attract_repel.py` `calculate_r_fraction`: `.item()` of a
# ratio (a true division, a float: never a position), the repel share for analysis (set b).
METRICS = '''\
import torch


def length_to_mask(length, max_len):
    return torch.arange(max_len, device=length.device)[None, :] < length[:, None]


''' + _CORPUS_ACCURACY + '''

def minDCF(positive_scores, negative_scores, c_miss=1.0, c_fa=1.0, p_target=0.01):
    thresholds, _ = torch.sort(torch.cat([positive_scores, negative_scores]))
    thresholds = torch.unique(thresholds)
    interm_thresholds = (thresholds[0:-1] + thresholds[1:]) / 2
    thresholds, _ = torch.sort(torch.cat([thresholds, interm_thresholds]))
    positive_scores = torch.cat(len(thresholds) * [positive_scores.unsqueeze(0)])
    pos_scores_threshold = positive_scores.transpose(0, 1) <= thresholds
    p_miss = (pos_scores_threshold.sum(0)).float() / positive_scores.shape[1]
    negative_scores = torch.cat(len(thresholds) * [negative_scores.unsqueeze(0)])
    neg_scores_threshold = negative_scores.transpose(0, 1) > thresholds
    p_fa = (neg_scores_threshold.sum(0)).float() / negative_scores.shape[1]
    c_det = c_miss * p_miss * p_target + c_fa * p_fa * (1 - p_target)
    c_min, min_index = torch.min(c_det, dim=0)
    return float(c_min), float(thresholds[min_index])


def calculate_r_fraction(attract_z, repel_z):
    attract_norm_squared = torch.sum(attract_z**2)
    repel_norm_squared = torch.sum(repel_z**2)
    r_fraction = repel_norm_squared / (attract_norm_squared + repel_norm_squared + 1e-10)
    return r_fraction.item()


def share(a, b):
    return (a.sum() / b.sum()).item()


def index_for_timestep(timestep, schedule_timesteps):
    indices = (schedule_timesteps == timestep).nonzero()
    pos = 1 if len(indices) > 1 else 0
    return indices[pos].item()
'''

# The same statistic reached from a `forward` in its file is model code: reachability wins.
METRIC_IN_FORWARD = METRICS + '''

class Scorer(torch.nn.Module):
    def forward(self, log_probabilities, targets, length):
        return Accuracy(log_probabilities, targets, length)
'''


def _findings(dynlint, path):
    proc = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    return {(f["line"], f["code"]) for f in json.loads(proc.stdout)}


def _lines(text, needle):
    return [i for i, line in enumerate(text.splitlines(), 1) if needle in line]


def test_plotting_is_cold_whoever_calls_it(dynlint, write):
    path = write("forecasting/base.py", FORECASTING)
    lines = {line for line, _ in _findings(dynlint, path)}
    plot = _lines(FORECASTING, "def plot_prediction")[0]
    assert not [line for line in lines if line > plot], lines     # nothing in the figure code
    assert _lines(FORECASTING, 'lengths=x["decoder_lengths"].cpu()')[0] in lines   # the step's read stays
    assert _lines(FORECASTING, '(x["decoder_lengths"] < x["decoder_lengths"].max()).any()')[0] in lines
    line = _lines(FORECASTING, "y_hat = out[")[0]
    proc = dynlint("check", "--explain", f"{path}:{line}")
    assert proc.returncode == 0, proc.stderr
    assert "cold" in proc.stdout and "draws a figure" in proc.stdout, proc.stdout


def test_a_root_that_draws_stays_a_root(dynlint, write):
    path = write("net.py", DEBUG_FORWARD)
    found = _findings(dynlint, path)
    assert (_lines(DEBUG_FORWARD, "keep = x[x > 0]")[0], "DYN101") in found, found


def test_functions_returning_python_floats_are_statistics(dynlint, write):
    path = write("metrics.py", METRICS)
    found = _findings(dynlint, path)
    index_fn = _lines(METRICS, "def index_for_timestep")[0]
    assert {line for line, _ in found if line < index_fn} == set(), found
    assert (_lines(METRICS, "return indices[pos].item()")[0], "DYN201") in found, found
    line = _lines(METRICS, "return float(c_min)")[0]
    proc = dynlint("check", "--explain", f"{path}:{line}")
    assert "Python floats" in proc.stdout, proc.stdout


def test_a_statistic_reached_from_forward_is_model_code(dynlint, write):
    path = write("scorer.py", METRIC_IN_FORWARD)
    found = _findings(dynlint, path)
    assert (_lines(METRIC_IN_FORWARD, "padded_pred.masked_select(mask)")[0], "DYN105") in found, found


# nerfstudio 1.1.5 (Apache 2.0), `cameras/cameras.py` `Cameras.to_json`, excerpted: a camera
# converted to a JSON dict of Python values for the viewer (read by hand, set e: serialisation,
# not a step). `debug_update` returns such a record beside the state it updates (torch_geometric's
# `GRBCDAttack._update`): its masks stay reported, and so does a dict that holds a tensor.
RECORDS = '''\
import base64
from typing import Dict

import torch


class Cameras:
    def flatten(self):
        return self

    def to_json(self, camera_idx: int, image=None) -> Dict:
        flattened = self.flatten()
        times = flattened[camera_idx].times
        if times is not None:
            times = times.item()
        json_ = {
            "type": "PinholeCamera",
            "cx": flattened[camera_idx].cx.item(),
            "fx": flattened[camera_idx].fx.item(),
            "camera_to_world": self.camera_to_worlds[camera_idx].tolist(),
            "camera_index": camera_idx,
            "times": times,
        }
        if image is not None:
            data = (image * 255).type(torch.uint8).cpu().numpy().tobytes()
            json_["image"] = str("data:image/jpeg;base64," + base64.b64encode(data).decode("ascii"))
        return json_

    def debug_update(self, gradient, edge_weight):
        is_one = torch.isclose(edge_weight, torch.tensor(1.))
        self.edge_weight = edge_weight[is_one]
        scalars = {"positive": (gradient > 0).sum().item()}
        return scalars

    def with_tensor(self, x):
        return {"n": x.sum().item(), "kept": x[x > 0]}
'''


def test_functions_returning_records_of_python_values_are_serialisation(dynlint, write):
    path = write("cameras.py", RECORDS)
    found = _findings(dynlint, path)
    start, end = _lines(RECORDS, "def to_json")[0], _lines(RECORDS, "def debug_update")[0]
    assert not [line for line, _ in found if start < line < end], found
    assert (_lines(RECORDS, "self.edge_weight = edge_weight[is_one]")[0], "DYN101") in found, found
    assert (_lines(RECORDS, 'scalars = {"positive"')[0], "DYN201") in found, found
    assert (_lines(RECORDS, 'return {"n": x.sum().item()')[0], "DYN101") in found, found
    line = _lines(RECORDS, '"cx": flattened')[0]
    proc = dynlint("check", "--explain", f"{path}:{line}")
    assert "record of Python values" in proc.stdout, proc.stdout
