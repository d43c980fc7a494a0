"""Two facts read from the code, through the real CLI on small packages:

* a method that calls `self.register_buffer(<its parameter>, value)` registers buffers for its
  callers: `self.register_coeff_buffer("clip_value", v)` makes `self.clip_value` a tensor, as
  `register_buffer("clip_value", v)` does (attributes.buffer_wrapper), in the class or a subclass,
  of the same file or (through the cross-file step) of another;
* building a dataclass runs its `__post_init__` (the generated `__init__` calls it): an object
  built in a `forward` runs it every step, in the same file and from another file
  (naming.constructed_classes, scopes/crossfile)."""
from __future__ import annotations

import json

from _tree import write_tree

WRAPPER = """\
    import torch
    from torch import nn


    class LossModule(nn.Module):
        def register_coeff_buffer(self, name, value, *, device=None):
            if value is None:
                setattr(self, name, None)
                return
            value = torch.as_tensor(value, device=device)
            self.register_buffer(name, value)

        def set_coeff(self, name, value):
            if isinstance(value, torch.Tensor):
                self.register_buffer(name, value)
            else:
                setattr(self, name, value)      # not always a buffer: `self.<name>` may be a float


    class PPOLoss(LossModule):
        def __init__(self, clip_value=None, scale=1.0):
            super().__init__()
            self.register_coeff_buffer("clip_value", clip_value)
            self.set_coeff("scale", scale)

        def forward(self, x):
            if self.clip_value:
                x = x.clamp(-1, 1)
            if self.scale:
                x = x * 2
            return x
    """

MOG = """\
    from dataclasses import dataclass

    import torch


    @dataclass
    class MoG:
        logits: torch.Tensor
        means: torch.Tensor

        def __post_init__(self):
            if not torch.all(torch.isfinite(self.logits)):
                raise ValueError("non-finite logits")
    """

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/loss.py": WRAPPER,
    # a subclass in another file registering through the inherited wrapper
    "pkg/ppo2.py": """\
    from .loss import LossModule


    class PPOLoss2(LossModule):
        def __init__(self, clip_value=None):
            super().__init__()
            self.register_coeff_buffer("clip_value", clip_value)

        def forward(self, x):
            if self.clip_value:
                x = x.clamp(-1, 1)
            return x
    """,
    # the dataclass and the module building it every step, in one file
    "pkg/mdn.py": MOG + """\


    class MDN(torch.nn.Module):
        def forward(self, x):
            return MoG(x, x * 2)
    """,
    # the dataclass in another file than the module building it
    "pkg/mog2.py": MOG.replace("MoG", "MoG2"),
    "pkg/mdn2.py": """\
    import torch

    from .mog2 import MoG2


    class MDN2(torch.nn.Module):
        def forward(self, x):
            return MoG2(x, x * 2)
    """,
}


def _findings(dynlint, root, *args):
    out = dynlint("check", *args, "--output-format", "json", cwd=root)
    return sorted((f["path"].replace("\\", "/").rsplit("/", 1)[-1], f["line"], f["code"])
                  for f in json.loads(out.stdout))


def test_buffer_wrapper_and_dataclass_post_init(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    found = _findings(dynlint, tmp_path, ".", "--no-cache")
    assert found == [("loss.py", 27, "DYN204"), ("mdn.py", 12, "DYN204"),
                     ("mog2.py", 12, "DYN204"), ("ppo2.py", 10, "DYN204")], found
    # a file checked alone gets what it gets with its project (cold, then cache cold and warm)
    for cache in (["--no-cache"], [], []):
        assert _findings(dynlint, tmp_path, "pkg/ppo2.py", *cache) == [("ppo2.py", 10, "DYN204")]
