"""The static twin of dynamic_model.py: same result, same shape on every step."""
import torch


class InnerNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 8, 3, 3)

    def forward(self, x):
        x = torch.flatten(self.conv(x), 1)
        x = torch.where(x > 0, x, torch.zeros_like(x))
        return x.sum()


def build():
    return torch.nn.Sequential(torch.nn.ReLU(), InnerNet())
