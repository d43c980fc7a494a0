"""Objects held in attributes and called, and plain objects built in the step.

`self.bm(t0, t1)` where a base class of another file stores `self.bm = bm` with `bm:
Optional[BaseBrownian]` (or the class itself stores it, `Union[BaseBrownian, None]`) may run the
`__call__` of `BaseBrownian` and of each of its subclasses (dynamic dispatch): they are reached,
and their parameters learn what the call passes (0-d tensors here, so `float(ta)` is a host
read), also when the file with `__call__` is checked alone. A plain class of the file built in
a `forward` (`Interval(ts[0], ts[-1])`) runs its `__init__` in the step; an nn.Module's
`__init__` and an exception's (built in a `raise`) stay cold. Through the CLI."""
from __future__ import annotations

import json

BASE = """\
import abc


class BaseBrownian(metaclass=abc.ABCMeta):
    @abc.abstractmethod
    def __call__(self, ta, tb):
        raise NotImplementedError
"""

INTERVAL = """\
import torch

from .base import BaseBrownian


class Interval(BaseBrownian):
    def __call__(self, ta, tb):
        ta = float(ta)
        tb = float(tb)
        return torch.randn(3) * (tb - ta)
"""

SOLVER_BASE = """\
from typing import Optional

from ..brownian.base import BaseBrownian


class BaseSolver:
    def __init__(self, bm: Optional[BaseBrownian] = None):
        self.bm = bm

    def step(self, ts, y):
        raise NotImplementedError

    def integrate(self, y, ts):
        return self.step(ts, y)
"""

EULER = """\
import torch

from . import base


class Euler(base.BaseSolver):
    def step(self, ts: torch.Tensor, y):
        return y + self.bm(ts[0], ts[1])
"""

SOLVER_MODEL = """\
import torch

from .brownian.base import BaseBrownian
from .solver.euler import Euler


class Model(torch.nn.Module):
    def __init__(self, bm: BaseBrownian):
        super().__init__()
        self.solver = Euler(bm)

    def forward(self, ts: torch.Tensor, y):
        return self.solver.integrate(y, ts)
"""

OWN_HOLDER = """\
from typing import Union

import torch

from .base import BaseBrownian


class Solver(torch.nn.Module):
    def __init__(self, bm: Union[BaseBrownian, None]):
        super().__init__()
        self.bm = bm

    def forward(self, ts: torch.Tensor, y):
        return y + self.bm(ts[0], ts[-1])
"""

BUILT_IN_STEP = """\
import torch


class Interval:
    def __init__(self, t0, t1):
        if t0 > t1:
            raise Invalid(t0)
        self._start = float(t0)
        self._end = float(t1)


class Invalid(ValueError):
    def __init__(self, t):
        super().__init__(float(t))


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.scale = float(torch.ones(n).sum())
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, ts: torch.Tensor):
        bm = Interval(ts[0], ts[-1])
        if ts.numel() == 0:
            raise Invalid(ts[0])
        return self.lin(ts) * bm._end
"""


def _found(dynlint, cwd, *paths):
    out = dynlint("check", *paths, "--no-cache", "--output-format", "json", cwd=cwd)
    return sorted((f["path"].replace("\\", "/"), f["line"], f["code"]) for f in json.loads(out.stdout))


def _package(write):
    write("pyproject.toml", "[project]\nname = 'pkg'\n")
    write("pkg/__init__.py", "")
    write("pkg/brownian/__init__.py", "")
    write("pkg/brownian/base.py", BASE)
    write("pkg/brownian/interval.py", INTERVAL)


def test_attribute_a_base_of_another_file_stores(dynlint, write, tmp_path):
    _package(write)
    write("pkg/solver/__init__.py", "")
    write("pkg/solver/base.py", SOLVER_BASE)
    write("pkg/solver/euler.py", EULER)
    write("pkg/model.py", SOLVER_MODEL)
    expected = [("pkg/brownian/interval.py", 8, "DYN203"), ("pkg/brownian/interval.py", 9, "DYN203")]
    assert _found(dynlint, tmp_path, "pkg") == expected
    assert _found(dynlint, tmp_path, "pkg/brownian/interval.py") == expected   # checked alone


def test_attribute_the_class_stores_from_a_declared_parameter(dynlint, write, tmp_path):
    _package(write)
    write("pkg/model.py", OWN_HOLDER.replace("from .base", "from .brownian.base"))
    expected = [("pkg/brownian/interval.py", 8, "DYN203"), ("pkg/brownian/interval.py", 9, "DYN203")]
    assert _found(dynlint, tmp_path, "pkg") == expected
    assert _found(dynlint, tmp_path, "pkg/brownian/interval.py") == expected


def test_a_stored_attribute_only_read_reaches_no_call(dynlint, write, tmp_path):
    _package(write)
    write("pkg/model.py", OWN_HOLDER.replace("from .base", "from .brownian.base").replace(
        "self.bm(ts[0], ts[-1])", "self.bm.scale(ts[0], ts[-1])"))
    assert _found(dynlint, tmp_path, "pkg") == []


def test_plain_class_built_in_the_step_runs_its_constructor(dynlint, write, tmp_path):
    write("model.py", BUILT_IN_STEP)
    assert _found(dynlint, tmp_path, "model.py") == [
        ("model.py", 6, "DYN204"), ("model.py", 8, "DYN203"), ("model.py", 9, "DYN203")]


TEMPLATE_BASE = """\
import torch


class BaseSolver:
    def step(self, t0, t1, y):
        raise NotImplementedError

    def integrate(self, y, ts: torch.Tensor):
        return self.step(ts[0], ts[1], y)
"""

TEMPLATE_EULER = """\
from .base import BaseSolver


class Euler(BaseSolver):
    def step(self, t0, t1, y):
        return y * float(t0)
"""

TEMPLATE_CHOSEN = """\
from .base import BaseSolver


class Chosen(BaseSolver):
    def __init__(self, additive):
        if additive:
            self.step = self.additive_step
        else:
            self.step = self.general_step

    def step(self, t0, t1, y):
        raise RuntimeError

    def additive_step(self, t0, t1, y):
        return y * float(t1)

    def general_step(self, t0, t1, y):
        return y + float(t0)
"""


def test_template_method_of_a_plain_class_passes_to_overrides_in_other_files(
        dynlint, write, tmp_path):
    # `integrate` calls `self.step(ts[0], ts[1], y)`: each subclass's `step` (and the method
    # a subclass stores under that name) receives 0-d tensors, so `float(t0)` is a host read.
    write("pyproject.toml", "[project]\nname = 'pkg'\n")
    write("pkg/__init__.py", "")
    write("pkg/base.py", TEMPLATE_BASE)
    write("pkg/euler.py", TEMPLATE_EULER)
    write("pkg/chosen.py", TEMPLATE_CHOSEN)
    expected = [("pkg/chosen.py", 15, "DYN203"), ("pkg/chosen.py", 18, "DYN203"),
                ("pkg/euler.py", 6, "DYN203")]
    assert _found(dynlint, tmp_path, "pkg") == expected
    assert _found(dynlint, tmp_path, "pkg/euler.py") == [("pkg/euler.py", 6, "DYN203")]


BUILT = """\
import torch


class Interval:
    def __init__(self, t0, t1):
        if t0 > t1:
            raise ValueError("t0 > t1")
        self._start = float(t0)
        self._end = float(t1)

    def width(self):
        return self._end - self._start


class Net(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.scale = float(torch.ones(n).sum())
"""

BUILDER = """\
import torch

from .interval import Interval, Net


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, ts: torch.Tensor):
        bm = Interval(ts[0], ts[-1])
        net = Net(3)
        return self.lin(ts) * bm.width() * net.scale
"""


def test_plain_class_of_another_file_built_in_the_step(dynlint, write, tmp_path):
    # `Interval.__init__` runs in `Model.forward` (its arguments 0-d tensors); `Net` is an
    # nn.Module: its `__init__` stays cold even when a `forward` builds one.
    write("pyproject.toml", "[project]\nname = 'pkg'\n")
    write("pkg/__init__.py", "")
    write("pkg/interval.py", BUILT)
    write("pkg/model.py", BUILDER)
    expected = [("pkg/interval.py", 6, "DYN204"), ("pkg/interval.py", 8, "DYN203"),
                ("pkg/interval.py", 9, "DYN203")]
    assert _found(dynlint, tmp_path, "pkg") == expected
    assert _found(dynlint, tmp_path, "pkg/interval.py") == expected


SAME_FILE = """\
import torch


class BaseBrownian:
    def __call__(self, ta, tb):
        raise NotImplementedError


class Interval(BaseBrownian):
    def __call__(self, ta, tb):
        ta = float(ta)
        tb = float(tb)
        return torch.randn(3) * (tb - ta)


class Solver(torch.nn.Module):
    def __init__(self, bm: BaseBrownian):
        super().__init__()
        self.bm = bm

    def forward(self, ts: torch.Tensor, y):
        return y + self.bm(ts[0], ts[-1])
"""


def test_attribute_declared_a_class_of_the_same_file(dynlint, write, tmp_path):
    write("model.py", SAME_FILE)
    assert _found(dynlint, tmp_path, "model.py") == [("model.py", 11, "DYN203"), ("model.py", 12, "DYN203")]
