"""Device provenance (`dynlint/analysis/hostmem.py`) through the real CLI: a tensor built in
host memory is no device read when it is read (`likely`: still a torch.compile graph break),
and a data-dependent op on it is CPU work (not reported); the fact is lost wherever the code
may put the tensor on a device."""
import json

import pytest

HEAD = "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x, lengths):\n"


def _findings(dynlint, write, body: str) -> dict:
    path = write("net.py", HEAD + body)
    proc = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    return {(f["line"], f["code"]): f["confidence"] for f in json.loads(proc.stdout)}


def test_host_tensor_read_is_likely_and_its_mask_index_is_not_reported(dynlint, write):
    found = _findings(dynlint, write, (
        "        v = torch.arange(8)\n"                      # 5
        "        w = v.view(2, 4) + 1\n"                     # 6
        "        n = w[0, 1].item()\n"                       # 7: host memory
        "        picked = v[v > n]\n"                        # 8: CPU work
        "        m = lengths.max().item()\n"                 # 9: a device read
        "        return x[:, :m] * picked.sum()\n"))         # 10
    assert found.get((7, "DYN201")) == "likely"
    assert (8, "DYN101") not in found
    assert found.get((9, "DYN201")) == "certain"


def test_a_host_copy_is_host_memory_and_the_copy_is_the_device_read(dynlint, write):
    found = _findings(dynlint, write, (
        "        c = lengths.int().cpu()\n"                 # 5: the copy (DYN214)
        "        n = c.max().item()\n"                      # 6: reads host memory
        "        kept = c[c > n]\n"                         # 7: CPU work
        "        m = lengths.detach().cpu().item()\n"       # 8: the copy reads the device
        "        ids, order = torch.sort(torch.LongTensor([1, 2]))\n"   # 9: legacy constructor
        "        k = ids[0].item()\n"                       # 10: host memory
        "        return x * n * m * k * kept.sum().cpu()\n"))   # 11: a copy of a device tensor
    assert found.get((5, "DYN214")) == "certain"
    assert found.get((6, "DYN201")) == "likely"
    assert (7, "DYN101") not in found
    assert found.get((8, "DYN201")) == "certain"
    assert found.get((10, "DYN201")) == "likely"


@pytest.mark.parametrize("build", [
    "torch.arange(8).to(x.device)",                  # moved to the device
    "torch.arange(8, device=x.device)",              # built there
    "torch.zeros_like(x)",                           # the device of a (probable) device tensor
    "torch.arange(8) + x",                           # an operand that may be on a device
    "torch.cat([torch.zeros(1), *lengths])",         # unpacked items may be on a device
])
def test_host_fact_lost_where_the_tensor_may_be_on_a_device(dynlint, write, build):
    found = _findings(dynlint, write, (
        f"        t = {build}\n"
        "        return x * t.max().item()\n"))
    assert found.get((6, "DYN201")) == "certain"


def test_host_fact_needs_every_path(dynlint, write):
    found = _findings(dynlint, write, (
        "        t = lengths.sum()\n"                        # 5: a device tensor ...
        "        if x.dim() > 2:\n"
        "            t = torch.tensor(0)\n"                  # ... or a host one
        "        for _ in range(3):\n"
        "            u = torch.tensor(1)\n"                  # bound only here: host
        "        a = t.item()\n"                             # 10
        "        return x * a * u.item()\n"))                # 11
    assert found.get((10, "DYN201")) == "certain"            # `t` may be on the device
    assert found.get((11, "DYN201")) == "likely"


def test_default_device_changes_make_factories_device_tensors(dynlint, write):
    found = _findings(dynlint, write, (
        "        with torch.device(x.device):\n"
        "            t = torch.arange(8)\n"
        "        return x * t.max().item()\n"))
    assert found.get((7, "DYN201")) == "certain"
    path = write("net2.py", "import torch\ntorch.set_default_device('cuda')\n" + HEAD[13:] +
                 "        t = torch.arange(8)\n        return x * t.max().item()\n")
    proc = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero", path)
    assert [f["confidence"] for f in json.loads(proc.stdout) if f["code"] == "DYN201"] == ["certain"]


def test_tolist_of_host_memory_is_not_reported_but_a_device_copy_is(dynlint, write):
    # `.tolist()` of a host tensor copies nothing from a device (DYN214 leaves its `.numpy()`
    # too); `.item()` of it stays a `likely` read, which the CPU ground truth records.
    found = _findings(dynlint, write, (
        "        axes = torch.arange(2, x.dim()).tolist()\n"              # 5: host memory
        "        keep = (torch.rand(4) < 0.5).tolist()\n"                 # 6: a CPU draw
        "        sizes = lengths.detach().cpu().tolist()\n"               # 7: reads the device
        "        n = torch.arange(4).sum().item()\n"                      # 8: host read, likely
        "        return x.sum(axes) * n, keep, sizes\n"))
    assert (5, "DYN202") not in found
    assert (6, "DYN202") not in found
    assert found.get((7, "DYN202")) == "certain"
    assert found.get((8, "DYN201")) == "likely"


def test_host_tensor_built_inside_the_call_that_reads_it(dynlint, write):
    # nerfstudio's `get_average_image_metrics`: `torch.tensor` of a comprehension, built inside
    # the reduction that uses it (the operand's kind is read after the call's own), and a
    # helper given `torch.from_numpy(...)` of a constant inline (asteroid's DCUNet strides).
    path = write("net.py", (
        "import numpy as np\nimport torch\n\n\n"
        "def _fix(x, prod):\n"
        "    return x * int(prod[0])\n\n\n"                                     # 6
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x, rows):\n"
        "        s = float(torch.mean(torch.tensor([r['a'] for r in rows])))\n"  # 11
        "        sd, mu = torch.std_mean(torch.tensor([r['a'] for r in rows]))\n"
        "        t = float(sd)\n"                                               # 13
        "        return _fix(x, torch.from_numpy(np.ones(2))) * s * t\n"))
    proc = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero", path)
    found = {(f["line"], f["code"]): f["confidence"] for f in json.loads(proc.stdout)}
    assert found == {(6, "DYN203"): "likely", (11, "DYN203"): "likely", (13, "DYN203"): "likely"}, found
