"""The static twin of toy_dynamic.py: torch.where keeps every element, zeroing the rest.

    dynlint confirm examples/confirm/toy_static.py --entry examples.confirm.toy_static:factory
"""
import torch

BATCH_SIZES = (20, 20, 30, 30)


class InnerNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 8, 3, 3)

    def forward(self, x):
        x = torch.flatten(self.conv(x), 1)
        x = torch.where(x > 0, x, torch.zeros_like(x))  # same shape whatever the data
        return x.sum()


def factory():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.ReLU(), InnerNet())
    batches = [torch.rand(bs, 1, 50, 50) for bs in BATCH_SIZES]
    return model, batches
