"""Lightning step methods of a class whose `LightningModule` base lives in another file of the
project (torchgeo: every task derives from `BaseTask(LightningModule)` of `trainers/base.py`),
through the real CLI: the step is an entry point, as it is when the base is in the same file,
also when it draws a figure; a file checked alone gets the same findings; a step method of a
class whose bases are known to be no module stays cold."""
from __future__ import annotations

import json
from pathlib import Path

from _tree import write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/base.py": """\
        from abc import ABC
        from lightning.pytorch import LightningModule


        class BaseTask(LightningModule, ABC):
            def __init__(self):
                super().__init__()
        """,
    "pkg/moco.py": """\
        import matplotlib.pyplot as plt
        import torch
        from .base import BaseTask


        class MoCoTask(BaseTask):
            def training_step(self, batch, batch_idx):
                h = self.forward(batch)
                std = torch.std(h, dim=0).mean()
                self.avg_std = 0.9 * self.avg_std + 0.1 * std.item()
                return h.sum()

            def validation_step(self, batch, batch_idx):
                h = self.forward(batch)
                keep = h[h > 0]
                if batch_idx < 2:
                    plt.plot(keep.tolist())
                return keep.sum()
        """,
    "pkg/runner_base.py": """\
        class Runner:
            def __init__(self):
                self.steps = 0
        """,
    "pkg/runner.py": """\
        import torch
        from .runner_base import Runner


        class MyRunner(Runner):
            def training_step(self, batch, batch_idx):
                return torch.std(batch, dim=0).mean().item()
        """,
}


def _write(root: Path) -> None:
    write_tree(root, FILES)


def _findings(dynlint, root, *args):
    out = dynlint("check", *args, "--output-format", "json", "--no-cache", cwd=root)
    return [(f["path"].rsplit("/", 1)[-1], f["line"], f["code"]) for f in json.loads(out.stdout)]


def test_lightning_steps_with_a_base_in_another_file_are_entry_points(dynlint, tmp_path):
    _write(tmp_path)
    whole = _findings(dynlint, tmp_path, ".")
    assert ("moco.py", 10, "DYN201") in whole, whole          # `std.item()` every step
    assert ("moco.py", 15, "DYN101") in whole, whole          # `h[h > 0]` in validation_step
    assert not [f for f in whole if f[0] == "runner.py"], whole
    assert _findings(dynlint, tmp_path, "pkg/moco.py") == [f for f in whole if f[0] == "moco.py"]
    why = dynlint("check", "--no-cache", "--explain", "pkg/moco.py:10", cwd=tmp_path).stdout
    assert "MoCoTask.training_step" in why and "entry point" in why, why
