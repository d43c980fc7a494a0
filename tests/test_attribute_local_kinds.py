"""An attribute a method assigns from one of its locals (`self.jump_t = jump_t`) is a tensor
when every value the local may hold there is one: the last binding of each branch
(`jump_t = torch.tensor([])` on one, `jump_t = jump_t.to(dtype)` replacing `sort(...)` on
the other). Another method then reads it on the host (`t0 < self.jump_t[i] < t1`). A local
that may still hold a plain value makes no claim. Through the CLI."""
from __future__ import annotations

from _tree import findings

SOURCE = """\
import torch
from timelib import sort_times


class Solver(torch.nn.Module):
    def prepare(self, t, jumps, steps):
        if jumps is None:
            jump_t = torch.tensor([], device=t.device)
        else:
            jump_t = sort_times(jumps, t[0])
            jump_t = jump_t.to(t.dtype)
        self.jump_t = jump_t
        if steps is None:
            step_t = 0.5
        else:
            step_t = torch.as_tensor(steps, device=t.device)
        self.step_t = step_t

    def forward(self, t0, dt, i: int):
        nxt = self.jump_t[i]
        on_jump = t0 < nxt < t0 + dt
        nxt_step = self.step_t[i]
        on_step = t0 < nxt_step < t0 + dt
        return on_jump, on_step
"""


def test_an_attribute_assigned_from_a_local_of_tensors(dynlint, write, tmp_path):
    write("solver.py", SOURCE)
    found = findings(dynlint, tmp_path, "solver.py", "--no-cache")
    assert found == [("solver.py", 21, "DYN204")], found
