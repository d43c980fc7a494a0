"""Scope facts from the code, found by the set-e hand reading (bench/results/handread_e.md), through
the real CLI: a memoized function runs once per distinct arguments, a function doing symbolic
algebra (`sympy`) runs on the host, a module's `forward` that returns a dict of Python floats is
a metric, and a module-level `test()` is a test. Each false alarm has a twin that stays flagged.
The snippets are excerpts of e3nn 0.6.0 (MIT) and asteroid 0.7.0 (MIT).
"""
import json

# e3nn `o3/_wigner.py`, excerpted: the Clebsch-Gordan table is cached by its three degrees.
MEMOIZED = '''\
import functools
import torch


@functools.lru_cache(maxsize=None)
def _so3_clebsch_gordan(l1: int, l2: int, l3: int) -> torch.Tensor:
    C = torch.randn(2 * l1 + 1, 2 * l2 + 1, 2 * l3 + 1, dtype=torch.complex128)
    assert torch.all(torch.abs(torch.imag(C)) < 1e-5)
    return torch.real(C)


def uncached_clebsch_gordan(l1: int, l2: int, l3: int) -> torch.Tensor:
    C = torch.randn(2 * l1 + 1, 2 * l2 + 1, 2 * l3 + 1, dtype=torch.complex128)
    assert torch.all(torch.abs(torch.imag(C)) < 1e-5)
    return torch.real(C)


class Net(torch.nn.Module):
    @functools.cached_property
    def table(self):
        w = self.weight.detach()
        return w[w > 0]

    def forward(self, x):
        return x * _so3_clebsch_gordan(1, 1, 2).sum() * self.table.sum()
'''

# e3nn `o3/_spherical_harmonics_generator.py`, excerpted: sympy polynomials written from
# tensor coefficients (code generation, offline).
SYMPY = '''\
import torch
import sympy


def _generate_polynomials(coefficients):
    x = sympy.symbols("x")
    return [sympy.nsimplify(c.item()) * x for c in coefficients]


def _scaled(coefficients):
    return [c.item() * 2 for c in coefficients]
'''

# e3nn `nn/models/v2106/gate_points_message_passing.py`, excerpted: the naive radius graph is
# only built by the module's own `test()`; its twin is only called by a public `check()`.
TEST_ONLY = '''\
import torch


def radius_graph(pos, r_max):
    r = torch.cdist(pos, pos)
    return ((r < r_max) & (r > 0)).nonzero().T


def radius_graph_twin(pos, r_max):
    r = torch.cdist(pos, pos)
    return ((r < r_max) & (r > 0)).nonzero().T


def test() -> None:
    node_pos = torch.randn(4, 3)
    edge_index = radius_graph(node_pos, 3.0)
    assert edge_index.shape[0] == 2


def check() -> None:
    node_pos = torch.randn(4, 3)
    edge_index = radius_graph_twin(node_pos, 3.0)
    assert edge_index.shape[0] == 2
'''

# asteroid `metrics.py` `F1Tracker`, excerpted: a module whose forward reports Python floats;
# the twin returns the tensors (a module a step may differentiate through), still flagged.
METRIC_MODULE = '''\
import torch
from torch import nn


class F1Tracker(nn.Module):
    def __init__(self, epsilon=1e-7):
        super().__init__()
        self.epsilon = epsilon

    def forward(self, y_pred, y_true):
        tp = (y_true * y_pred).sum().to(torch.float32)
        fp = ((1 - y_true) * y_pred).sum().to(torch.float32)
        accuracy = (tp + self.epsilon) / (tp + fp + self.epsilon)
        precision = tp / (tp + fp + self.epsilon)
        return {
            "accuracy": float(accuracy),
            "precision": float(precision),
        }


class F1Scores(nn.Module):
    def forward(self, y_pred, y_true):
        tp = (y_true * y_pred).sum().to(torch.float32)
        fp = ((1 - y_true) * y_pred).sum().to(torch.float32)
        if fp > 0:
            tp = tp + 1
        return {"accuracy": tp, "precision": float(fp)}
'''


def _findings(dynlint, path):
    proc = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    return {(f["line"], f["code"]) for f in json.loads(proc.stdout)}


def test_memoized_function_is_cold_whoever_calls_it(dynlint, write):
    found = _findings(dynlint, str(write("wigner.py", MEMOIZED)))
    assert (8, "DYN204") not in found            # in the lru_cache'd table, called from forward
    assert (14, "DYN204") in found               # the same assert, uncached
    assert (22, "DYN101") not in found           # a cached property: once per object
    assert found == {(14, "DYN204")}


def test_symbolic_algebra_is_a_host_algorithm(dynlint, write):
    found = _findings(dynlint, str(write("generator.py", SYMPY)))
    assert found == {(11, "DYN201")}            # only the twin without sympy


def test_module_level_test_function_is_a_test(dynlint, write):
    found = _findings(dynlint, str(write("message_passing.py", TEST_ONLY)))
    assert found == {(11, "DYN102")}            # only the helper the public `check()` calls


def test_forward_returning_python_floats_is_a_metric(dynlint, write):
    found = _findings(dynlint, str(write("metrics.py", METRIC_MODULE)))
    assert {line for line, _ in found} == {25, 27}   # F1Scores: `if fp > 0` and `float(fp)`


# nerfstudio 1.1.5 (Apache 2.0) `cameras/cameras.py`, excerpted: `Cameras` is a dataclass of
# tensors declared with jaxtyping (`fx: Float[Tensor, "*num_cameras 1"]`), set by its `__init__`
# through a helper the walk cannot see; the per-type mask of the ray generation selects from
# them. A field declared a number (`width: int`) holds none; `names` is reassigned a list.
DATACLASS_FIELDS = '''\
from dataclasses import dataclass

import torch
from jaxtyping import Float, Int
from torch import Tensor


@dataclass(init=False)
class Cameras:
    fx: Float[Tensor, "*num_cameras 1"]
    camera_type: Int[Tensor, "*num_cameras 1"]
    width: int
    names: Tensor

    def __init__(self, fx, camera_type, width):
        self.fx = self._init_get(fx)
        self.camera_type = self._init_get(camera_type)
        self.width = width
        self.names = ["a", "b"]

    def _init_get(self, value):
        return value

    def _generate_rays(self, true_indices, kind, flags):
        fx = self.fx[true_indices].squeeze(-1)
        mask = (self.camera_type[true_indices] == kind).squeeze(-1)
        out = fx[mask]
        wide = self.width[flags > 0]
        named = self.names[flags > 0]
        return out, wide, named
'''


def test_declared_dataclass_fields_hold_tensors(dynlint, write):
    found = _findings(dynlint, str(write("cameras.py", DATACLASS_FIELDS)))
    assert found == {(27, "DYN101")}            # fx[mask]; not the int nor the list field


# transformers `utils/import_utils.py`, excerpted: a memoized availability check installs a
# patched function that runs on every call of `torch.linalg.cholesky`: its closure is no
# memoized code.
MEMOIZED_CLOSURE = '''\
import functools
import torch


@functools.lru_cache
def is_device_available():
    original_cholesky = torch.linalg.cholesky

    def safe_cholesky(A, *args, **kwargs):
        output = original_cholesky(A, *args, **kwargs)
        if torch.isnan(output).any():
            output = original_cholesky(A + 1e-6, *args, **kwargs)
        return output

    torch.linalg.cholesky = safe_cholesky
    return True
'''


def test_closure_of_a_memoized_function_is_not_memoized(dynlint, write):
    assert _findings(dynlint, str(write("import_utils.py", MEMOIZED_CLOSURE))) == {(11, "DYN204")}
