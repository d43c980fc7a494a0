"""A false-alarm cause of hand-read set g (escnn 1.0.11, bench/results/handread_causes.md, "Set g
first look"), decided by facts of the code, through the real CLI, with twins that stay flagged:

a self-check (`cold.self_test`): a method that runs its own object (`self(x)`) on an input it
draws itself in host memory (`x = torch.randn(3, c, 10, 10)`: no `device=`, nothing moved) and
takes no data, only settings with constant defaults (`atol=1e-6, rtol=1e-5`). escnn's modules
each have such a `check_equivariance` (24 findings); no step runs them. The same check drawing
its input on a device, moving it there, or taking the input from its caller stays.
"""
from _tree import findings, line_of, write_tree

# escnn 1.0.11 (BSD-3), `nn/modules/nonlinearities/relu.py` `ReLU.check_equivariance`, excerpted.
CHECK = '''\
import numpy as np
import torch


class ReLU(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)

    def check_equivariance(self, atol: float = 1e-6, rtol: float = 1e-5):
        x = torch.randn(3, 8, 10, 10)
        errors = []
        for el in range(4):
            out1 = self(x).roll(el, 1)
            out2 = self(x.roll(el, 1))
            errs = (out1 - out2).detach().numpy()
            print(el, errs.max(), errs.mean())
            assert torch.allclose(out1, out2, atol=atol, rtol=rtol), "too high"
            errors.append((el, errs.mean()))
        return errors

    def check_on_device(self, atol: float = 1e-6):
        x = torch.randn(3, 8, 10, 10, device="cuda")
        assert torch.allclose(self(x), self(x), atol=atol), "not deterministic"

    def check_moved(self, atol: float = 1e-6):
        x = torch.randn(3, 8, 10, 10).to(self.device)
        assert torch.allclose(self(x), self(x), atol=atol), "not deterministic"

    def check_given(self, x, atol: float = 1e-6):
        y = torch.randn(3, 8, 10, 10)
        assert torch.allclose(self(x), self(x + 0 * y), atol=atol), "not deterministic"
'''


def test_a_self_check_on_its_own_host_input(dynlint, tmp_path):
    write_tree(tmp_path, {"relu.py": CHECK})
    found = {(line, code) for _, line, code in findings(dynlint, tmp_path, "relu.py", "--no-cache", "--exit-zero")}
    lines = {line for line, _ in found}
    assert line_of(CHECK, "assert torch.allclose(out1, out2") not in lines, found
    # drawn on a device, moved to one, or data from the caller: flagged
    for nth in (1, 2, 3):
        assert (line_of(CHECK, "assert torch.allclose(self(x)", nth), "DYN208") in found, found
