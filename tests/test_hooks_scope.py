"""Scope by reachability across a class hierarchy, through the real CLI: a template method
(`Metric.forward` calling `self.update()`) reaches the overrides of `update` in subclasses of
other files, and a function cold only for want of a caller that is not cold (or by its
`-> float`) is model code once another file's model code reaches it."""
import json
import re

PYPROJECT = '[project]\nname = "pkg"\n'

BASE = '''\
import torch


class Metric(torch.nn.Module):
    def forward(self, x):
        self.update(x)
        return self.compute()

    def update(self, x):
        raise NotImplementedError

    def compute(self):
        raise NotImplementedError
'''

METRICS = '''\
import torch
from pkg.base import Metric


class WithPlot(Metric):
    def update(self, x: torch.Tensor):
        nans = torch.isnan(x)
        if nans.any():
            x = x[~nans]
        self.total = x.sum()

    def compute(self):
        return self.total

    def plot(self):
        self.update(torch.zeros(1))
        return self.compute()


class Standalone:
    def update(self, x: torch.Tensor):
        nans = torch.isnan(x)
        if nans.any():
            x = x[~nans]
        return x

    def plot(self):
        return self.update(torch.zeros(1))


class Builder(torch.nn.Module):
    def __init__(self, sizes: torch.Tensor):
        super().__init__()
        self.n = self._count(sizes)

    def _count(self, sizes: torch.Tensor):
        return int(sizes.max())

    def forward(self, x):
        return x * self.n
'''

FILT = '''\
import torch
from torch import Tensor


def _measure(x: Tensor, n: int) -> float:
    return float(torch.sum(x.abs()))


def spectrogram(x: Tensor):
    return torch.stft(x, 16, return_complex=True).abs()


def vad(x: Tensor):
    out = []
    for i in range(x.shape[0]):
        out.append(_measure(x[i], 3))
    return out
'''

TRANSFORMS = '''\
import torch
import pkg.filt as F


class Spectrogram(torch.nn.Module):
    def forward(self, x):
        return F.spectrogram(x)


class Vad(torch.nn.Module):
    def forward(self, x):
        return F.vad(x)
'''


def _project(write):
    write("pyproject.toml", PYPROJECT)
    write("pkg/__init__.py", "")
    write("pkg/base.py", BASE)
    write("pkg/metrics.py", METRICS)
    write("pkg/filt.py", FILT)
    write("pkg/transforms.py", TRANSFORMS)


def _found(dynlint, tmp_path, *paths):
    r = dynlint("check", *paths, "--no-cache", "--format", "json", cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    return sorted((f["path"].replace("\\", "/").rsplit("pkg/", 1)[-1], f["line"], f["code"])
                  for f in json.loads(r.stdout))


def test_overridden_hook_is_reached_from_the_base_class_entry_point(dynlint, write, tmp_path):
    _project(write)
    found = _found(dynlint, tmp_path, "pkg")
    metrics = [f for f in found if f[0] == "metrics.py"]
    # `WithPlot.update` (only `plot` calls it in its file) runs in `Metric.forward`; the twin
    # in a class no entry point reaches and the helper only `__init__` calls stay cold.
    assert metrics == [("metrics.py", 8, "DYN204"), ("metrics.py", 9, "DYN101")]
    # A file checked alone gets the findings it gets with its project.
    assert _found(dynlint, tmp_path, "pkg/metrics.py") == metrics


def test_explain_tells_the_chain_through_the_override(dynlint, write, tmp_path):
    _project(write)
    r = dynlint("check", "pkg", "--no-cache", "--explain", "pkg/metrics.py:8",
                "--explain", "pkg/metrics.py:23", "--explain", "pkg/metrics.py:36", cwd=tmp_path)
    out = r.stdout
    hook, standalone, builder = re.split(r"^pkg/metrics\.py:", out, flags=re.M)[1:]
    assert "model code (reached from another file)" in hook
    assert "entry point: `Metric.forward` (pkg/base.py:5)" in hook
    assert "`WithPlot.update` (pkg/metrics.py:6), which overrides `pkg.base.Metric.update`" in hook
    assert "DYN204" in hook
    assert "cold" in standalone and "only cold code in this file calls it" in standalone
    assert "cold" in builder and "no findings on this line" in builder


def test_reachability_beats_a_float_annotation(dynlint, write, tmp_path):
    _project(write)
    found = _found(dynlint, tmp_path, "pkg")
    assert [f for f in found if f[0] == "filt.py"] == [("filt.py", 6, "DYN203")]
    assert _found(dynlint, tmp_path, "pkg/filt.py") == [("filt.py", 6, "DYN203")]
    r = dynlint("check", "pkg", "--no-cache", "--explain", "pkg/filt.py:6", cwd=tmp_path)
    # The entry point is the `forward` that calls `F.vad`, not another user of `F`.
    assert "model code (reached from another file)" in r.stdout
    assert "entry point: `Vad.forward` (pkg/transforms.py:11)" in r.stdout
    assert "Spectrogram" not in r.stdout
    assert "DYN203" in r.stdout


def test_hook_in_the_same_file(dynlint, write, tmp_path):
    write("m.py", BASE + "\n\n" + METRICS.split("from pkg.base import Metric\n", 1)[1])
    r = dynlint("check", "m.py", "--no-cache", "--format", "json", cwd=tmp_path)
    found = sorted((f["line"], f["code"]) for f in json.loads(r.stdout))
    shift = BASE.count("\n") + 2 - 2        # METRICS' lines after its two import lines
    assert found == [(8 + shift, "DYN204"), (9 + shift, "DYN101")]


COLLATE = '''\
import torch


def _torch_collate_batch(examples):
    longest = max(len(x) for x in examples)
    return torch.tensor([x + [0] * (longest - len(x)) for x in examples])


class Collator:
    def __call__(self, batch):
        return _torch_collate_batch(batch)
'''


def test_rules_for_cold_code_still_fire_where_only_cold_code_calls(dynlint, write, tmp_path):
    # A helper only a collator calls is cold for want of another caller: what rules find in
    # cold code there (pad to the longest item) is reported as before.
    write("pyproject.toml", PYPROJECT)
    write("pkg/__init__.py", "")
    write("pkg/collate.py", COLLATE)
    assert _found(dynlint, tmp_path, "pkg") == [("collate.py", 5, "DYN401")]


def test_explain_follows_re_exports_as_the_run_does(dynlint, write, tmp_path):
    # `from pkg import functional as F; F.vad(x)` reaches `functional/filtering.py` through
    # the package's `__init__`, which holds nothing but the re-export: explain sees it too.
    write("pyproject.toml", PYPROJECT)
    write("pkg/__init__.py", "")
    write("pkg/functional/__init__.py", "from .filtering import spectrogram, vad\n")
    write("pkg/functional/filtering.py", FILT)
    write("pkg/transforms.py", TRANSFORMS.replace("import pkg.filt as F",
                                                  "from pkg import functional as F"))
    assert _found(dynlint, tmp_path, "pkg") == [("functional/filtering.py", 6, "DYN203")]
    r = dynlint("check", "pkg", "--no-cache", "--explain", "pkg/functional/filtering.py:6",
                cwd=tmp_path)
    assert "model code (reached from another file)" in r.stdout
    assert "entry point: `Vad.forward` (pkg/transforms.py:11)" in r.stdout
