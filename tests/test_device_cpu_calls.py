"""A call that names the CPU as its `device=` returns host memory, as torch's factories do:
torch-geometric's `negative_sampling` draws candidates with its own `sample(population, k,
device='cpu')` and hands them to numpy (`rnd.numpy()`: no copy, no sync). Its twin draws on
the device and stays flagged. Selecting from the host draw and moving the selection to the
device (`rnd[~mask].to(edge_index.device)`) is still a data-dependent size on the device.
Through the real CLI; excerpt of torch-geometric 2.8.1 `utils/_negative_sampling.py` (MIT).
"""
from _tree import findings

SAMPLING = '''\
import random

import numpy as np
import torch


def sample(population, k, device=None):
    if population <= k:
        return torch.arange(population, device=device)
    return torch.tensor(random.sample(range(population), k), device=device)


class NegativeSampling(torch.nn.Module):
    def forward(self, idx, edge_index, population, sample_size):
        idx = idx.to("cpu")
        rnd = sample(population, sample_size, device="cpu")
        mask = torch.from_numpy(np.isin(rnd.numpy(), idx.numpy())).bool()
        rnd = rnd[~mask].to(edge_index.device)
        on_device = sample(population, sample_size, device=edge_index.device)
        return rnd, on_device.numpy()
'''


def test_device_cpu_argument_builds_in_host_memory(dynlint, write):
    path = write("negative_sampling.py", SAMPLING)
    found = {(line, code) for _, line, code in findings(dynlint, path.parent, path.name, "--no-cache", "--isolated")}
    # idx.to("cpu") is the one copy; rnd.numpy() (17) reads the CPU draw; the selection goes to
    # the device (18); the device draw's .numpy() is a real copy (20)
    assert found == {(15, "DYN214"), (18, "DYN101"), (20, "DYN214")}
