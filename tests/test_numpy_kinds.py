"""Numpy is not a tensor: parameters and returns annotated `np.ndarray` / `numpy.ndarray` /
`npt.NDArray[...]` (also `Optional`, `| None`) and the results of `scipy.*` calls hold numpy
arrays, whose items and method results are no tensors either. Through the real CLI; each false
alarm has a tensor-annotated twin that stays flagged. The snippet is modelled on pykeen 1.11.1
(MIT) `metrics/classification.py` and `metrics/ranking.py` (suite h's 30 numpy false alarms).
"""
import json

METRIC = '''\
from typing import Optional

import numpy
import numpy as np
import numpy.typing as npt
import torch
from scipy import stats
from torch import nn


def stable_product(a, is_log: bool = False) -> np.ndarray:
    return a.prod()


def stable_product_tensor(a, is_log: bool = False) -> torch.Tensor:
    return a.prod()


class ConfusionMetric(nn.Module):
    def forward(self, matrix: numpy.ndarray, ranks: Optional[np.ndarray],
                counts: "npt.NDArray[np.int64]", weights: np.ndarray | None, t: torch.Tensor):
        tp = matrix[1, 1].item()
        g = stats.gmean(ranks, weights=weights).item()
        p = stable_product(ranks).item()
        picked = counts[counts > 0]
        w = weights.sum().item()
        return tp, g, p, picked, w, t[1, 1].item(), stable_product_tensor(t).item()
'''


def _findings(dynlint, path):
    proc = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    return {(f["line"], f["column"], f["code"]) for f in json.loads(proc.stdout)}


def test_numpy_annotations_and_scipy_results_are_no_tensors(dynlint, write):
    found = _findings(dynlint, str(write("metric.py", METRIC)))
    assert (22, 14, "DYN201") not in found      # `matrix: numpy.ndarray`
    assert (23, 13, "DYN201") not in found      # `stats.gmean(...)` (scipy)
    assert (24, 13, "DYN201") not in found      # `-> np.ndarray` of a helper in the file
    assert (25, 18, "DYN101") not in found      # `npt.NDArray[np.int64]` (a string annotation)
    assert (26, 13, "DYN201") not in found      # `np.ndarray | None`
    # The tensor twins stay flagged.
    assert found == {(27, 37, "DYN201"), (27, 53, "DYN201")}
