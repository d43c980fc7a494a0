"""The toy model of Intel's dynamic-shape tutorial: boolean-mask indexing inside InnerNet.

    dynlint confirm examples/confirm/toy_dynamic.py --entry examples.confirm.toy_dynamic:factory
"""
import torch

BATCH_SIZES = (20, 20, 30, 30)  # the input shape changes at the third step


class InnerNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 8, 3, 3)

    def forward(self, x):
        x = torch.flatten(self.conv(x), 1)
        x = x[x > 0]  # data-dependent: how many elements are positive
        return x.sum()


def factory():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.ReLU(), InnerNet())
    batches = [torch.rand(bs, 1, 50, 50) for bs in BATCH_SIZES]
    return model, batches
