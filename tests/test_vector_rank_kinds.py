"""A 1-d tensor by the code that builds it (`torch.arange`, `x.flatten()`, `x.view(-1)`, the
counts of `unique` without `dim`, kept through cumulative sums and arithmetic with numbers):
an item taken by a Python int (a literal, a `range` loop variable) or one iteration over it
is a 0-d tensor, read back to an int when it indexes (DYN210). A shape's item, an item of a
tensor of unknown rank, a list of ints or a named tuple's tensor (`topk(k).indices`) as the
index, and a tensor built in host memory (`torch.arange(8)`: no device to wait for) make no
new claim. A helper every return of which is 1-d returns a 1-d tensor. Through the CLI."""
from __future__ import annotations

import json

SOURCE = """\
import torch
from torch import Tensor


def tie_average(target: Tensor, preds: Tensor, cums: Tensor) -> Tensor:
    _, inv, counts = torch.unique(-preds, return_inverse=True, return_counts=True)
    groups = counts.cumsum(dim=0) - 1
    out = torch.zeros_like(counts, dtype=torch.float32)
    out[0] = cums[groups[0]]
    return out


class Net(torch.nn.Module):
    def forward(self, x: Tensor, table: Tensor, lens: Tensor):
        steps = torch.arange(x.shape[0], device=x.device)
        for s in steps:
            x = x + table[s]
        flat = x.flatten()
        y = table[flat[2]]
        v = lens.view(-1)
        for i in range(x.shape[0]):
            y = y + table[v[i]]
        host = torch.arange(8)
        y = y + table[host[1]]
        y = y + table[x.shape[0]]
        y = y + table[v[[0, 1]]]
        y = y + table[x[0]]
        idx = [0, 1]
        y = y + table[v[idx]]
        picked = v[torch.rand(2, 3).topk(2, dim=1).indices]
        k = x.topk(2).indices
        return y + table[picked] + table[v[k]]


def grid(n: int, x: Tensor) -> Tensor:
    return torch.arange(n, device=x.device) * 2


class Head(torch.nn.Module):
    def forward(self, x: Tensor, table: Tensor):
        g = grid(x.shape[0], x)
        return table[g[1]]


def last(lens: Tensor, table: Tensor, names: list):
    v = lens.flatten()
    return table[v[len(names) - 1]]
"""


def test_items_of_one_dimensional_tensors(dynlint, write, tmp_path):
    write("net.py", SOURCE)
    out = dynlint("check", "net.py", "--no-cache", "--output-format", "json", cwd=tmp_path)
    found = sorted((f["line"], f["code"], f["confidence"]) for f in json.loads(out.stdout)
                   if f["code"] == "DYN210")
    assert found == [(9, "DYN210", "likely"), (17, "DYN210", "certain"),
                     (19, "DYN210", "certain"), (22, "DYN210", "certain"),
                     (42, "DYN210", "certain"),
                     (47, "DYN210", "likely")], found
