"""Which classes are models, across files, through the real CLI: a class is an nn.Module
through a base in another file (then its `forward_*`/`__call__` are entry points), known not
to be one (every base resolved, none a module: its `forward` is model code only if something
reachable calls it), or unknown (a base no file of the project defines: its `forward` stays an
entry point). A metric's `__call__` is one (a scorer), and reaches a helper in another file;
a model holding an instance of a class of another file reaches the methods it calls on it.
A method found in a base only as what a class inherits does not reach the overrides of the
base's other subclasses."""
import re

from test_hooks_scope import _found   # (path inside pkg/, line, code) of a real CLI run

PYPROJECT = '[project]\nname = "pkg"\n'

BASE = '''\
import torch
from torch import nn


class Unit(nn.Module):
    pass


class Hub:
    def __call__(self, x):
        return x


class Runner(Hub):
    def forward(self, x):
        return self._forward(x)

    def _forward(self, x):
        raise NotImplementedError
'''

# A module through `pkg.base.Unit`; a runner that is no module; a class of a library
# outside the project.
MODELS = '''\
import torch
from otherlib import Estimator
from pkg.base import Runner, Unit


class Mixer(Unit):
    def forward_features(self, x: torch.Tensor):
        return x.sum(0).tolist()


class TextRunner(Runner):
    def _forward(self, x: torch.Tensor):
        return x.sum(0).tolist()


class Wrapped(Estimator):
    def forward(self, x: torch.Tensor):
        return x.sum(0).tolist()


class Routed(Unit):
    def forward(self, x):
        return load_balance(x)


def load_balance(x: torch.Tensor):
    return x.sum(0).tolist()
'''

UTILS = '''\
import torch


def surface(pred: torch.Tensor, gt: torch.Tensor):
    return (pred - gt).abs().sum(0).tolist()


class Selector:
    def select(self, scores: torch.Tensor):
        return scores.sum(0).tolist()
'''

METRICS = '''\
from pkg.utils import surface


class SurfaceMetric:
    def __call__(self, pred, gt):
        return surface(pred, gt)
'''

DETECTOR = '''\
from torch import nn
from pkg.utils import Selector


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.selector = Selector()

    def forward(self, x):
        return self.selector.select(x)
'''

# A model reaching `__call__` it inherits from the mixin it shares with the runners.
SHARED = '''\
from torch import nn
from pkg.base import Hub


class Tagged(nn.Module, Hub):
    def forward(self, x):
        return self(x)
'''


def _project(write):
    write("pyproject.toml", PYPROJECT)
    write("pkg/__init__.py", "")
    write("pkg/base.py", BASE)
    write("pkg/models.py", MODELS)
    write("pkg/utils.py", UTILS)
    write("pkg/metrics.py", METRICS)
    write("pkg/detector.py", DETECTOR)
    write("pkg/shared.py", SHARED)
    write("pkg/hubs.py", "import torch\nfrom pkg.base import Hub\n\n\nclass Loud(Hub):\n"
                         "    def __call__(self, x: torch.Tensor):\n"
                         "        return x.sum(0).tolist()\n")


def test_module_ness_is_decided_across_files(dynlint, write, tmp_path):
    _project(write)
    found = _found(dynlint, tmp_path, "pkg")
    assert [f for f in found if f[0] == "models.py"] == [
        ("models.py", 8, "DYN202"),     # Mixer: a module through pkg.base.Unit
        ("models.py", 18, "DYN202"),    # Wrapped: its base is unknown, as before
        # a helper cold by its name that the entry point left to the cross-file step
        # reaches in its file: model code once that step makes `Routed.forward` one
        ("models.py", 27, "DYN202"),
    ]                                   # (TextRunner._forward: Runner is no module)
    # A file checked alone gets what it gets with its project.
    assert _found(dynlint, tmp_path, "pkg/models.py") == \
        [f for f in found if f[0] == "models.py"]


def test_a_known_non_module_forward_is_no_entry_point(dynlint, write, tmp_path):
    _project(write)
    found = _found(dynlint, tmp_path, "pkg")
    assert not [f for f in found if f[0] in ("base.py", "hubs.py")]
    # The model whose `__call__` is the mixin's does not reach `Loud.__call__`, another
    # subclass of the mixin.
    r = dynlint("check", "pkg", "--no-cache", "--explain", "pkg/hubs.py:7",
                "--explain", "pkg/models.py:13", cwd=tmp_path)
    hubs, runner = re.split(r"^pkg/\w+\.py:", r.stdout, flags=re.M)[1:]
    assert "neutral" in hubs and "reached from no entry point" in hubs
    assert "neutral" in runner and "reached from no entry point" in runner


def test_metric_call_and_held_instance_reach_helpers_in_other_files(dynlint, write, tmp_path):
    _project(write)
    found = _found(dynlint, tmp_path, "pkg")
    assert [f for f in found if f[0] == "utils.py"] == [("utils.py", 5, "DYN202"),
                                                         ("utils.py", 10, "DYN202")]
    assert _found(dynlint, tmp_path, "pkg/utils.py") == [("utils.py", 5, "DYN202"),
                                                         ("utils.py", 10, "DYN202")]
    r = dynlint("check", "pkg", "--no-cache", "--explain", "pkg/utils.py:5",
                "--explain", "pkg/utils.py:10", cwd=tmp_path)
    helper, selector = re.split(r"^pkg/utils\.py:", r.stdout, flags=re.M)[1:]
    assert "entry point: `SurfaceMetric.__call__` (pkg/metrics.py:5)" in helper
    assert "entry point: `Detector.forward` (pkg/detector.py:10)" in selector
    assert "`Selector.select` (pkg/utils.py:9)" in selector


def test_explain_names_the_base_that_makes_a_module(dynlint, write, tmp_path):
    _project(write)
    r = dynlint("check", "pkg", "--no-cache", "--explain", "pkg/models.py:8", cwd=tmp_path)
    assert "model code (reached from another file)" in r.stdout
    assert "entry point: `Mixer.forward_features` (pkg/models.py:7) " \
           "(an nn.Module through its bases)" in r.stdout


def test_without_the_cross_file_step_an_unresolved_base_keeps_forward(dynlint, write, tmp_path):
    # One file at a time (flake8, --no-cross-file): a base of another file is unknown, so
    # `forward` stays an entry point, as before; `forward_features` of a class no base of
    # this file makes a module is not one.
    _project(write)
    found = _found(dynlint, tmp_path, "pkg/models.py", "--no-cross-file")
    assert found == [("models.py", 18, "DYN202"), ("models.py", 27, "DYN202")]
