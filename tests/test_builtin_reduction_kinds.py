"""Builtin `max`/`min`/`sum` of one sequence of tensors (a comprehension of tensors, a
`Tuple[Tensor, ...]`) is a tensor: `m = max([rms(t) for t in ts]); if m < 1:` reads it on
the host. Over a `.cpu()` copy's items the result lives in host memory (`likely`: no device
waits); over a dict of tensors (its keys) or with `default=` no claim. Through the CLI."""
from __future__ import annotations

import json

SOURCE = """\
from typing import Dict, Tuple

import torch
from torch import Tensor


def rms(t: Tensor) -> Tensor:
    return t.pow(2).mean().sqrt()


class Net(torch.nn.Module):
    def forward(self, ts: Tuple[Tensor, ...], named: Dict[str, Tensor], x: Tensor):
        m = max([rms(t) for t in ts])
        if m < 1:
            return x
        s = sum(ts)
        if s.sum() > 0:
            return x
        lp = x.log_softmax(-1).cpu()
        total = sum(lp[i] for i in range(lp.shape[0]))
        if total < 0.5:
            return x
        k = max(named)
        if k == "a":
            return x
        d = max([rms(t) for t in ts], default=0)
        if d:
            return x
        return x * 2
"""


def test_builtin_reductions_of_tensors(dynlint, write, tmp_path):
    write("net.py", SOURCE)
    out = dynlint("check", "net.py", "--no-cache", "--output-format", "json", cwd=tmp_path)
    found = sorted((f["line"], f["code"], f["confidence"]) for f in json.loads(out.stdout)
                   if f["code"] == "DYN204")
    assert found == [(14, "DYN204", "certain"), (17, "DYN204", "certain"),
                     (21, "DYN204", "likely")], found
