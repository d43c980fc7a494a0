"""Sizes read from host memory (`dynlint/analysis/hostmem.py`) through the real CLI: a torch
factory without `device=` sized by a host tensor builds a host tensor from host data, CPU work
that no device waits for and no device graph holds (DYN206 `likely`: a torch.compile graph
break still, and the runtime ground truth, run on the CPU, records the read); the same size
given to a tensor built on the device, or a device size read for a host tensor, is `certain`."""
import json

SRC = '''import torch
from torch import nn


class DropChunk(nn.Module):
    def forward(self, waveforms, lengths):
        batch_size = waveforms.size(0)
        drop_times = torch.randint(low=1, high=4, size=(batch_size,))
        for i in range(batch_size):
            length = torch.randint(low=2, high=9, size=(drop_times[i],))
            for j in range(length.shape[0]):
                noise = torch.rand(length[j], device=waveforms.device)
                waveforms[i, : noise.shape[0]] += noise
        n = lengths.max()
        pad = torch.zeros(n)
        grid = torch.arange(6).view(drop_times[0], -1)
        return waveforms, pad, grid
'''


def _found(dynlint, write) -> dict:
    path = write("augment.py", SRC)
    proc = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    return {(f["line"], f["code"]): f["confidence"] for f in json.loads(proc.stdout)}


def test_host_factory_sized_by_host_memory_is_likely(dynlint, write):
    found = _found(dynlint, write)
    assert found.get((10, "DYN206")) == "likely"    # host size, host tensor: CPU work
    assert found.get((16, "DYN206")) == "likely"    # a host tensor reshaped by a host size


def test_device_side_of_a_host_size_is_still_reported(dynlint, write):
    found = _found(dynlint, write)
    assert found.get((12, "DYN206")) == "certain"    # the device tensor's shape follows the data
    assert found.get((15, "DYN206")) == "certain"    # a device size read for a host tensor
