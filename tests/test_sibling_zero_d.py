"""Implementations of one interface receive the same values (crossfile._sibling_sites): a
scheduler's `step(self, x, timestep: int, sample)` whose sibling (a class sharing a base of
the project with it) declares `step(..., timestep: int | Tensor, ...)` may be handed the 0-d
tensor of a denoising loop, `for t in scheduler.timesteps: scheduler.step(out, t, x)`, written
in a pipeline that holds any of them. Its `self.alphas_cumprod[timestep]` and
`prev_timestep >= 0` read the device (`likely`), also through helpers that pass the timestep
on, three calls deep (`step` -> `step_plms` -> `_prev`). A class without such a sibling, or
whose sibling declares a plain `int`, learns nothing. Through the real CLI on a small
package; a file checked alone gets the findings it gets with its whole project."""
from __future__ import annotations

import json

from _tree import write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/base.py": """\
        class SchedulerMixin:
            order = 1
        """,
    "pkg/sched_a.py": """\
        import torch
        from .base import SchedulerMixin


        class ASched(SchedulerMixin):
            def __init__(self):
                self.alphas_cumprod = torch.ones(10)

            def step(self, model_output: torch.Tensor, timestep: int | torch.Tensor, sample):
                return sample * self.alphas_cumprod[timestep]
        """,
    "pkg/sched_b.py": """\
        import torch
        from .base import SchedulerMixin


        class BSched(SchedulerMixin):
            def __init__(self):
                self.alphas_cumprod = torch.ones(10)
                self.final = torch.tensor(1.0)
                self.counter = 0

            def _prev(self, sample, timestep: int, prev_timestep: int):
                a = self.alphas_cumprod[timestep]
                b = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.final
                return sample * a / b

            def step_plms(self, model_output, timestep: int, sample):
                prev_timestep = timestep - self.config_steps // self.counter
                return self._prev(sample, timestep, prev_timestep)

            def step(self, model_output: torch.Tensor, timestep: int, sample: torch.Tensor):
                return self.step_plms(model_output=model_output, timestep=timestep, sample=sample)
        """,
}
FLAGGED = [("sched_a.py", 10, "DYN210"), ("sched_b.py", 12, "DYN210"),
           ("sched_b.py", 13, "DYN204"), ("sched_b.py", 13, "DYN210")]


def _findings(dynlint, root, *args):
    out = dynlint("check", *args, "--output-format", "json", cwd=root)
    return sorted((f["path"].replace("\\", "/").rsplit("/", 1)[-1], f["line"], f["code"],
                   f["confidence"]) for f in json.loads(out.stdout))


def test_a_sibling_declaring_a_tensor_makes_the_number_a_zero_d_tensor(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    whole = _findings(dynlint, tmp_path, ".", "--no-cache")
    assert [f[:3] for f in whole] == FLAGGED, whole
    assert all(f[3] == "likely" for f in whole), whole
    for cache in (["--no-cache"], [], []):          # alone: cold, then cache cold and warm
        assert _findings(dynlint, tmp_path, "pkg/sched_b.py", *cache) == \
            [f for f in whole if f[0] == "sched_b.py"]
    # Judged alone (what flake8 sees), no sibling is in sight.
    assert _findings(dynlint, tmp_path, "pkg/sched_b.py", "--no-cross-file", "--no-cache") == []


def test_no_sibling_declaring_a_tensor_teaches_nothing(dynlint, tmp_path):
    files = dict(FILES)
    # The sibling declares a plain `int`: nothing says a tensor is ever passed.
    files["pkg/sched_a.py"] = files["pkg/sched_a.py"].replace("timestep: int | torch.Tensor",
                                                              "timestep: int")
    write_tree(tmp_path, files)
    assert _findings(dynlint, tmp_path, ".", "--no-cache") == []
    # A class of another hierarchy with the same method and parameter is no sibling.
    files = dict(FILES)
    files["pkg/sched_a.py"] = files["pkg/sched_a.py"].replace(
        "from .base import SchedulerMixin", "SchedulerMixin = object")
    write_tree(tmp_path, files)
    assert [f[:3] for f in _findings(dynlint, tmp_path, ".", "--no-cache")] == \
        [("sched_a.py", 10, "DYN210")]
