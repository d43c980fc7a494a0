"""A call that names the CPU as its `device=` returns host memory, as torch's factories do:
torch-geometric's `negative_sampling` draws candidates with its own `sample(population, k,
device='cpu')` and hands them to numpy (`rnd.numpy()`: no copy, no sync). Its twin draws on
the device and stays flagged. Selecting from the host draw and moving the selection to the
device (`rnd[~mask].to(edge_index.device)`) is still a data-dependent size on the device.
Through the real CLI; excerpt of torch-geometric 2.8.1 `utils/_negative_sampling.py` (MIT).
"""
import json

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
    proc = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero", str(path))
    assert proc.returncode == 0, proc.stderr
    found = {(f["line"], f["column"], f["code"]) for f in json.loads(proc.stdout)}
    assert (15, 15, "DYN214") in found                 # the one copy: idx.to("cpu")
    assert not any(line == 17 for line, _, _ in found)  # rnd.numpy(): drawn on the CPU
    assert (18, 15, "DYN101") in found                 # the selection goes to the device
    assert (20, 21, "DYN214") in found                 # drawn on the device: a real copy
