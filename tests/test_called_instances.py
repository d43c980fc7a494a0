"""An object called as a function runs its class's `__call__`: `bm = Interval(...)`, then
`bm(t0, t1)` in model code makes `Interval.__call__` model code, and its parameters learn
what the call passes (0-d tensors here, so `float(ta)` is a host read). The class may be of
the same file or imported from another file of the project; the file with `__call__`
checked alone gets the same findings. A local also bound to something else, or never
called, makes no claim. Through the CLI."""
from __future__ import annotations

import json

INTERVAL = """\
import torch


class Interval:
    def __call__(self, ta, tb):
        ta = float(ta)
        tb = float(tb)
        return torch.randn(3) * (tb - ta)
"""

SAME_FILE = INTERVAL + """

class Model(torch.nn.Module):
    def forward(self, ts: torch.Tensor):
        bm = Interval()
        return bm(ts[0], ts[1])
"""

NOT_CALLED = INTERVAL + """

class Model(torch.nn.Module):
    def forward(self, ts: torch.Tensor, other):
        bm = Interval()
        keep = Interval() if other else other
        f = lambda g: g(ts[0], ts[1])       # a lambda's parameter: no local binding
        return keep(ts[0], ts[1]), f(bm), bm
"""

OTHER_FILE = """\
import torch

from .interval import Interval


class Model(torch.nn.Module):
    def forward(self, ts: torch.Tensor):
        bm = Interval()
        return bm(ts[0], ts[1])
"""


def _found(dynlint, cwd, *paths):
    out = dynlint("check", *paths, "--no-cache", "--output-format", "json", cwd=cwd)
    return sorted((f["path"].replace("\\", "/"), f["line"], f["code"]) for f in json.loads(out.stdout))


def test_instance_of_a_class_of_the_same_file(dynlint, write, tmp_path):
    write("model.py", SAME_FILE)
    assert _found(dynlint, tmp_path, "model.py") == [
        ("model.py", 6, "DYN203"), ("model.py", 7, "DYN203")]


def test_no_claim_without_a_plain_call_of_the_instance(dynlint, write, tmp_path):
    write("model.py", NOT_CALLED)
    assert _found(dynlint, tmp_path, "model.py") == []


def test_instance_of_a_class_of_another_file(dynlint, write, tmp_path):
    write("pyproject.toml", "[project]\nname = 'pkg'\n")
    write("pkg/__init__.py", "")
    write("pkg/interval.py", INTERVAL)
    write("pkg/model.py", OTHER_FILE)
    expected = [("pkg/interval.py", 6, "DYN203"), ("pkg/interval.py", 7, "DYN203")]
    assert _found(dynlint, tmp_path, "pkg") == expected
    assert _found(dynlint, tmp_path, "pkg/interval.py") == expected     # checked alone
