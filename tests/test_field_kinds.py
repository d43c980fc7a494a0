"""Fields of instances of the file's own classes have the kinds the class gives them: a
NamedTuple's or a dataclass's field declared `Tensor`, read through a parameter annotated
with the class (`s: State`), a local whose only binding builds one (`st = State(...)`, or a
`st._replace(...)` of it) or an attribute holding only such instances (`self.state =
State(...)`), is a tensor, so `if s.t1 > 0:` reads it on the host. A field declared `int`, a
parameter rebound, a local also bound to something else make no claim. Through the CLI."""
from __future__ import annotations

import json

SOURCE = """\
from dataclasses import dataclass
from typing import NamedTuple, Optional

import torch
from torch import Tensor


class State(NamedTuple):
    y: Tensor
    t1: Tensor
    n: int


@dataclass
class Window:
    start: Tensor


class Solver(torch.nn.Module):
    def __init__(self, y):
        super().__init__()
        self.state = State(y, y.sum(), 0)

    def forward(self, x: Tensor, s: State, w: Optional["Window"], r: State, other):
        if self.state.t1 > 0:
            return x
        if s.t1 > 0:
            return x
        if w.start > 0:
            return x
        st = State(x, x.sum(), 1)
        st = st._replace(n=2)
        if st.t1 > 0:
            return x
        if st.n > 0:
            return x
        r = other
        if r.t1 > 0:
            return x
        mixed = State(x, x.sum(), 1) if other else other
        if mixed.t1 > 0:
            return x
        return x
"""


def test_fields_of_the_files_classes(dynlint, write, tmp_path):
    write("solver.py", SOURCE)
    out = dynlint("check", "solver.py", "--no-cache", "--output-format", "json", cwd=tmp_path)
    found = sorted((f["line"], f["code"]) for f in json.loads(out.stdout))
    assert found == [(25, "DYN204"), (27, "DYN204"), (29, "DYN204"), (33, "DYN204")], found
