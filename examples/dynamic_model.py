"""The toy model from Intel Gaudi's dynamic-shape guide: boolean-mask indexing in forward.

`x[x > 0]` keeps a different number of elements for every batch, so each step has a new
shape and a graph compiler recompiles. See static_model.py for the static twin.
"""
import torch


class InnerNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 8, 3, 3)

    def forward(self, x):
        x = torch.flatten(self.conv(x), 1)
        x = x[x > 0]  # dynamic: the result size depends on the data
        return x.sum()


def build():
    return torch.nn.Sequential(torch.nn.ReLU(), InnerNet())
