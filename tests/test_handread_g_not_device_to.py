"""A false-alarm cause of hand-read set g (escnn 1.0.11, bench/results/handread_causes.md, "Set g
first look"), decided by a fact of the code, through the real CLI, with twins that stay flagged:

`e.to('radians')`, `flip, e = e.to('Q')`: a tensor's or a module's `to` takes a device string
there, so a string that names no device (`'radians'`, `'Q'`, `'int'`) says the receiver is some
other object with a `to` of its own (escnn's `GroupElement.to(self, param: str)`), not a tensor
(34 findings of escnn's group restriction maps and irreps). `x.to("cuda:1")`, `x.to("cpu")` and
`x.to(device)` stay what they were.
"""
from _tree import findings, line_of, write_tree

# escnn 1.0.11 (BSD-3), `group/groups/o3group.py` `o3_to_dih`, `so2group.py` `_build_child_map`,
# `group/utils.py` `psichi`, excerpted.
GROUPS = '''\
import numpy as np
import torch


def o3_to_dih(adj, dih):
    def _map(e, dih=dih, adj=adj):
        e = adj @ e @ (~adj)
        flip, e = e.to('Q')
        if flip == 1:
            return None
        return e
    return _map


def child_mapping(e, order):
    radians = e.to('radians')
    return int(round(radians * order / (2. * np.pi)))


def psichi(theta: float, s: int, k: int = 1):
    s = (-1 if s else 1)
    return np.array([[np.cos(k * theta), -s * np.sin(k * theta)]])


def restrict(e):
    f, theta = e.to('radians')
    return psichi(theta, f)


class Head(torch.nn.Module):
    def forward(self, x, device):
        y = x.to("cuda:1")
        if y.sum() > 0:
            x = x + 1
        z = x.to(device)
        if z.amax() > 1:
            x = x - 1
        return int(x.to("cpu").sum())
'''


def test_to_with_a_string_that_names_no_device(dynlint, tmp_path):
    write_tree(tmp_path, {"groups.py": GROUPS})
    found = {(line, code) for _, line, code in findings(dynlint, tmp_path, "groups.py", "--no-cache", "--exit-zero")}
    lines = {line for line, _ in found}
    assert line_of(GROUPS, "if flip == 1:") not in lines, found
    assert line_of(GROUPS, "return int(round(radians") not in lines, found
    assert line_of(GROUPS, "s = (-1 if s else 1)") not in lines, found
    # device strings and a device variable: still tensors
    assert (line_of(GROUPS, "if y.sum() > 0:"), "DYN204") in found, found
    assert (line_of(GROUPS, "if z.amax() > 1:"), "DYN204") in found, found
    assert (line_of(GROUPS, 'return int(x.to("cpu").sum())'), "DYN203") in found, found
