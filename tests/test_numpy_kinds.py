"""Numpy is not a tensor: parameters and returns annotated `np.ndarray` / `numpy.ndarray` /
`npt.NDArray[...]` (also `Optional`, `| None`) and the results of `scipy.*` calls hold numpy
arrays, whose items and method results are no tensors either. Through the real CLI; each false
alarm has a tensor-annotated twin that stays flagged. The snippet is modelled on pykeen 1.11.1
(MIT) `metrics/classification.py` and `metrics/ranking.py` (suite h's 30 numpy false alarms).
"""
from _tree import findings

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



def test_numpy_annotations_and_scipy_results_are_no_tensors(dynlint, write, tmp_path):
    write("metric.py", METRIC)
    found = findings(dynlint, tmp_path, "metric.py", "--no-cache", "--isolated", "--exit-zero")
    assert ("metric.py", 22, "DYN201") not in found     # `matrix: numpy.ndarray`
    assert ("metric.py", 23, "DYN201") not in found     # `stats.gmean(...)` (scipy)
    assert ("metric.py", 24, "DYN201") not in found     # `-> np.ndarray` of a helper in the file
    assert ("metric.py", 25, "DYN101") not in found     # `npt.NDArray[np.int64]` (a string)
    assert ("metric.py", 26, "DYN201") not in found     # `np.ndarray | None`
    # The tensor twins stay flagged (`t[1, 1].item()`, `stable_product_tensor(t).item()`).
    assert found == [("metric.py", 27, "DYN201"), ("metric.py", 27, "DYN201")]
