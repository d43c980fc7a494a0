"""A template method's call `self._advance(t[i])` in a base class's method is a call site of
every override of `_advance` in the file's subclasses (the instance may be any of them), so
their parameters learn what it passes: `while next_t > self.t1:` in one override and `if
next_t == 0:` in another read a 0-d tensor on the host. A caller of the override passing a
plain number withdraws the claim. Through the CLI."""
from __future__ import annotations

from _tree import findings

SOURCE = """\
import torch


class Base:
    def __init__(self, y0):
        self.y0 = y0
        self.t1 = torch.zeros((), device=y0.device)

    def integrate(self, t):
        t = t.to(self.y0.dtype)
        out = []
        for i in range(1, len(t)):
            out.append(self._advance(t[i]))
        return torch.stack(out)

    def _advance(self, next_t):
        raise NotImplementedError


class Adaptive(Base):
    def _advance(self, next_t):
        while next_t > self.t1:
            self.t1 = self.t1 + 0.1
        return self.y0


class Fixed(Base):
    def _advance(self, next_t):
        if next_t == 0:
            return self.y0
        return self.y0 * 2


class Model(torch.nn.Module):
    def forward(self, y, t):
        return Adaptive(y).integrate(t)
"""


def test_a_template_methods_call_reaches_the_overrides(dynlint, write, tmp_path):
    write("solver.py", SOURCE)
    assert findings(dynlint, tmp_path, "solver.py", "--no-cache") == [
        ("solver.py", 22, "DYN204"), ("solver.py", 29, "DYN204")]


def test_a_caller_passing_a_number_withdraws_the_claim(dynlint, write, tmp_path):
    source = SOURCE.replace("        return self.y0 * 2\n", "        return self.y0 * 2\n\n"
                            "    def start(self):\n        return self._advance(0)\n")
    write("solver.py", source)
    assert findings(dynlint, tmp_path, "solver.py", "--no-cache") == [("solver.py", 22, "DYN204")]
