"""0-d tensors standing in for numbers, through the real CLI: a helper declared
`-> int | Tensor` in another file (diffusers' `previous_timestep`), a parameter declared a
number or a tuple of numbers that a caller passes a device tensor (x-transformers'
`pad_at_dim`), and full reductions used as indices (torchmetrics' EER). A file checked alone
gets the findings it gets with its whole project."""
from __future__ import annotations

import json
from pathlib import Path

from _tree import write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/timing.py": """\
        import torch


        def previous(timesteps: torch.Tensor, timestep: int) -> int | torch.Tensor:
            if timesteps.numel() > 1:
                index = (timesteps == timestep).nonzero(as_tuple=True)[0][0]
                return timesteps[index + 1]
            return timestep - 1


        def plain(timestep: int) -> int:
            return timestep - 1
        """,
    "pkg/sched.py": """\
        import torch
        from pkg.timing import plain, previous


        class Scheduler:
            def step(self, out: torch.Tensor, timestep: int):
                prev_t = previous(self.timesteps, timestep)
                alpha = self.alphas_cumprod[prev_t] if prev_t >= 0 else self.one
                before = plain(timestep)
                beta = self.alphas_cumprod[before] if before >= 0 else self.one
                return out * alpha * beta
        """,
    "pkg/pad.py": """\
        import torch
        import torch.nn.functional as F


        def pad_at_dim(t, pad: tuple[int, int], dim=-1):
            if pad == (0, 0):
                return t
            return F.pad(t, (*((0, 0) * (-dim - 1)), *pad))


        def scale(x, factor: int):
            if factor > 1:
                x = x * factor
            return x


        def align_right(t: torch.Tensor, lens: torch.Tensor):
            max_pad_len = (t.shape[1] - lens).amax()
            return scale(pad_at_dim(t, (max_pad_len, 0), dim=1), torch.tensor(2))


        def shift(t: torch.Tensor, amount: int):
            return scale(pad_at_dim(t, (amount, -amount), dim=-2), amount)


        def eer(fpr: torch.Tensor, tpr: torch.Tensor):
            idx = torch.argmin(torch.abs(fpr - (1 - tpr)))
            rows = torch.argmin(fpr, dim=-1)
            return fpr[idx] + tpr[rows]
        """,
}


def _write(root: Path) -> None:
    write_tree(root, FILES)


def _findings(dynlint, root, *args):
    out = dynlint("check", *args, "--output-format", "json", "--no-cache", cwd=root)
    assert out.returncode in (0, 1), out.stderr
    return [(Path(f["path"]).name, f["line"], f["code"], f["confidence"])
            for f in json.loads(out.stdout)]


def test_int_or_tensor_return_from_another_file(dynlint, tmp_path):
    _write(tmp_path)
    whole = _findings(dynlint, tmp_path, ".")
    sched = [f for f in whole if f[0] == "sched.py"]
    # `previous` may return a 0-d tensor: its result indexes and branches (`likely`); `plain`
    # is declared `-> int` and says nothing of the kind.
    assert sched == [("sched.py", 8, "DYN210", "likely"), ("sched.py", 8, "DYN204", "likely")], whole
    assert _findings(dynlint, tmp_path, "pkg/sched.py") == sched
    # Alone (flake8's view), the helper's declaration is out of sight.
    assert _findings(dynlint, tmp_path, "pkg/sched.py", "--no-cross-file") == []


def test_number_parameters_passed_device_tensors(dynlint, tmp_path):
    _write(tmp_path)
    pad = [f[1:3] for f in _findings(dynlint, tmp_path, "pkg/pad.py")]
    # `pad == (0, 0)`: one caller passes a 0-d device tensor in the tuple; `factor > 1` is
    # passed only Python ints and `torch.tensor(2)`, a host scalar: no finding.
    assert (6, "DYN204") in pad and (8, "DYN206") in pad, pad
    assert not any(line == 12 for line, _ in pad), pad
    # `fpr[idx]` of a full reduction, not `tpr[rows]` of one along a dim.
    assert (29, "DYN210") in pad and pad.count((29, "DYN210")) == 1, pad
