"""Cold by its callers, across files, through the real CLI: a module-level function that no
model code reaches and that only cold code of other files calls (`__init__` building constant
bases, as e3nn's `orthonormalize` for `ReducedTensorProducts`; a chain of such helpers; a
script's `main`; a constant built at import) is cold, as it is when its callers are in its own
file. Its twins stay in scope: a function nothing calls (public API), one that library code in
scope also calls, one that `__init__` also hands on as a callback, one only a comment names,
one only tests call, one only a method cold by a weak name (`log_prob`) calls, one only a host
algorithm calls. A file checked alone gets the findings it gets with its project (issue 9).
Also: a function declared to return metrics by name is a report."""
from __future__ import annotations

import json
from pathlib import Path

from _tree import write_tree

BODY = """
    if x.norm() > 1e-9:
        x = x / x.norm()
    return x[x.nonzero()[0, 0]]
"""
HELPERS = ["orthonormalize", "inner", "api_only", "also_library", "callback", "commented",
           "tested", "weak", "scripted", "constant", "stepsize"]

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/linalg.py": "import torch\n" + "".join(f"\n\ndef {name}(x):{BODY}" for name in HELPERS),
    "pkg/build.py": """\
        from pkg.linalg import inner


        def build_basis(x):
            return inner(x) * 2
        """,
    "pkg/library.py": """\
        from pkg import linalg


        def project(x):
            return linalg.also_library(x)
        """,
    "pkg/reduce.py": """\
        import torch
        from pkg.linalg import orthonormalize, also_library, callback, weak
        from pkg.build import build_basis


        class Reduce(torch.nn.Module):
            def __init__(self, x):
                super().__init__()
                self.register_buffer("q", orthonormalize(x))
                self.register_buffer("b", build_basis(x))
                self.register_buffer("c", also_library(x))
                self.register_buffer("d", callback(x))
                self.fn = callback
                # commented(x) would be slower here

            def forward(self, y):
                return y @ self.q + self.fn(y)


        class Dist:
            def log_prob(self, value):
                return weak(value)
        """,
    "pkg/tables.py": """\
        import torch
        from pkg import linalg

        TABLE = linalg.constant(torch.eye(3))
        """,
    "pkg/solver.py": """\
        import bisect
        from pkg.linalg import stepsize


        class Solver:
            def _before_integrate(self, t):
                self.i = bisect.bisect(self.grid, float(t[0]))
                return stepsize(t)
        """,
    "pkg/cli.py": """\
        import torch
        from pkg.linalg import scripted


        def main():
            print(scripted(torch.randn(3)))


        if __name__ == "__main__":
            main()
        """,
    "tests/test_linalg.py": """\
        import torch
        from pkg.linalg import tested


        def test_tested():
            assert tested(torch.ones(3)).shape == ()
        """,
}


def _findings(dynlint, root, *args, cache=False):
    out = dynlint("check", *args, "--output-format", "json", *([] if cache else ["--no-cache"]),
                  cwd=root)
    return sorted((f["path"].rsplit("/", 1)[-1], f["scope"], f["code"])
                  for f in json.loads(out.stdout))


def test_function_only_cold_code_of_other_files_calls_is_cold(dynlint, tmp_path: Path):
    write_tree(tmp_path, FILES)
    whole = _findings(dynlint, tmp_path, ".")
    flagged = {scope for path, scope, _ in whole if path == "linalg.py"}
    # `__init__` of another file; a helper whose only caller (another file) `__init__` calls;
    # a script's `main`; a constant built at import.
    assert not flagged & {"orthonormalize", "inner", "scripted", "constant"}, whole
    # Nothing calls it; library code in scope calls it too; handed on as a callback; named
    # in a comment only; called by tests only; by `log_prob` only (a weak name); by a host
    # algorithm only (which may run every step: torchdiffeq's initial step-size search).
    assert flagged == {"api_only", "also_library", "callback", "commented", "tested", "weak",
                       "stepsize"}, whole
    assert {code for path, scope, code in whole if scope == "api_only"} == {"DYN102", "DYN210"}
    # A file checked alone gets what it gets with its project.
    alone = _findings(dynlint, tmp_path, "pkg/linalg.py")
    assert alone == [f for f in whole if f[0] == "linalg.py"], (alone, whole)
    # Cold, then warm (the step read from its record): the same.
    assert _findings(dynlint, tmp_path, ".", cache=True) == whole
    assert _findings(dynlint, tmp_path, ".", cache=True) == whole
    why = dynlint("check", "--no-cache", "--explain", "pkg/linalg.py:7", cwd=tmp_path).stdout
    assert "cold" in why and "only from cold code" in why, why


# nerfstudio `models/*.py`, excerpted: an evaluation's metrics by name beside its images; the
# twin hands back tensors (what a step may go on with), still flagged.
METRICS = '''\
from typing import Dict, Tuple

import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return x * 2

    def get_image_metrics_and_images(
        self, outputs, batch
    ) -> Tuple[Dict[str, float], Dict[str, torch.Tensor]]:
        psnr = ((outputs["rgb"] - batch["image"]) ** 2).mean()
        metrics_dict = {"psnr": float(psnr.item())}
        return metrics_dict, {"img": outputs["rgb"]}

    def get_loss_and_images(
        self, outputs, batch
    ) -> Tuple[Dict[str, torch.Tensor], Dict[str, torch.Tensor]]:
        psnr = ((outputs["rgb"] - batch["image"]) ** 2).mean()
        scale = psnr.item()
        return {"psnr": psnr * scale}, {"img": outputs["rgb"]}
'''


def test_declared_metrics_by_name_are_a_report(dynlint, write):
    out = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero",
                  str(write("model.py", METRICS)))
    found = {(f["line"], f["code"]) for f in json.loads(out.stdout)}
    assert found == {(21, "DYN201")}, found


# torchgeo `samplers/single.py`, excerpted: a sampler parameterised by what it yields is a
# sampler (data code, cold); the twin's generic base says nothing.
GENERIC_BASES = '''\
from typing import Generic, Iterator, TypeVar

import torch
from torch.utils.data import Sampler

T = TypeVar("T")


class RandomGeoSampler(Sampler[tuple[slice, slice]]):
    def draw(self, areas):
        return areas[areas > 0]


class Boxes(Generic[T]):
    def draw(self, areas):
        return areas[areas > 0]
'''


def test_parameterised_data_base_is_a_data_base(dynlint, write):
    out = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero",
                  str(write("samplers.py", GENERIC_BASES)))
    found = {(f["line"], f["code"]) for f in json.loads(out.stdout)}
    assert found == {(16, "DYN101")}, found
