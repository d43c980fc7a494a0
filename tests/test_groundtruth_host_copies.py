"""The ground-truth recorder sees device-to-host copies that dispatch nothing on a CPU run: `.cpu()`,
`.to("cpu")`, `.tolist()`, `.numpy()`, printing of a tensor that a GPU run holds on the device (the
model's parameters, the step's inputs and what is computed from them) are recorded as `host-copy:*`
ops; the same calls on tensors built on the host (`torch.arange(n)`, `torch.zeros(2, device="cpu")`,
the result of an earlier `.cpu()`) are not. precision_recall counts host copies as host syncs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(REPO, "bench")

FAKE = '''\
import numpy as np
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x):
        y = self.lin(x)
        a = y.cpu()
        b = a.detach().numpy()
        h = torch.arange(4)
        c = h.cpu()
        d = y.tolist()
        s = f"{y}"
        z = torch.zeros(2, device=x.device)
        e = z.to("cpu")
        w = torch.zeros(2, device="cpu").tolist()
        n = np.asarray(y.detach())
        k = h.to(y.device)
        m = k.cpu()
        q = h.sum().item()
        r = y.detach().to(device="cpu").numpy()
        u = y.to(h.device).tolist()
        return y
'''
LINES = {ln: i + 1 for i, ln in enumerate(FAKE.splitlines())}


def line(text: str) -> str:
    return str(next(n for src, n in LINES.items() if src.strip() == text))


DRIVER = '''\
import json, sys
sys.path.insert(0, {bench!r})
sys.path.insert(0, {pkgdir!r})
import torch
import groundtruth as gt

def build():
    import fakepkg
    x = torch.rand(2, 3)
    return fakepkg.Net(), [((x,), {{}})], [((x,), {{}})]

res = gt.run_model("fake", build, gt.Roots(["fakepkg"]), 60)
print(json.dumps(res))
'''


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gtcopy")
    (tmp / "fakepkg").mkdir()
    (tmp / "fakepkg" / "__init__.py").write_text(FAKE)
    (tmp / "driver.py").write_text(DRIVER.format(bench=BENCH, pkgdir=str(tmp)))
    out = subprocess.run([sys.executable, str(tmp / "driver.py")], capture_output=True, text=True,
                         timeout=300, cwd=str(tmp))
    assert out.returncode == 0, out.stderr[-2000:]
    res = json.loads(out.stdout.splitlines()[-1])
    assert res["status"] == "ok", res["error"]
    return res["files"]["fakepkg/__init__.py"]


def test_host_copies_of_device_tensors_are_recorded(recorded):
    dyn = recorded["dynamic"]
    assert dyn[line("a = y.cpu()")]["ops"] == {"host-copy:cpu": 2}          # eval and train
    assert dyn[line("d = y.tolist()")]["ops"] == {"host-copy:tolist": 2}
    assert dyn[line('s = f"{y}"')]["ops"] == {"host-copy:format": 2}
    assert dyn[line('e = z.to("cpu")')]["ops"] == {"host-copy:to": 2}       # zeros(device=x.device)
    assert dyn[line("n = np.asarray(y.detach())")]["ops"] == {"host-copy:numpy": 2}
    assert dyn[line("m = k.cpu()")]["ops"] == {"host-copy:cpu": 2}          # moved there by .to(y.device)
    assert dyn[line('r = y.detach().to(device="cpu").numpy()')]["ops"] == {"host-copy:to": 2}
    # the device of a host-built tensor decides nothing: `y` stays device memory, `.tolist()` copies
    assert dyn[line("u = y.to(h.device).tolist()")]["ops"] == {"host-copy:tolist": 2}
    assert sorted(dyn[line("a = y.cpu()")]["phases"]) == ["eval", "train"]


def test_copies_of_host_tensors_are_not(recorded):
    dyn = recorded["dynamic"]
    for text in ("b = a.detach().numpy()", "c = h.cpu()", 'w = torch.zeros(2, device="cpu").tolist()',
                 "h = torch.arange(4)", "y = self.lin(x)"):
        assert line(text) not in dyn, text
    # still noted as host reads (any tensor), as before
    assert "tolist" in recorded["host_reads"][line('w = torch.zeros(2, device="cpu").tolist()')]
    # a host sync of a host-built tensor stays recorded, marked as such
    item = dyn[line("q = h.sum().item()")]
    assert item["ops"] == {"aten._local_scalar_dense": 2}
    assert item["host_built"] == {"aten._local_scalar_dense": 2}


def test_precision_recall_counts_host_copies_as_host_syncs():
    sys.path.insert(0, BENCH)
    try:
        import precision_recall as pr
    finally:
        sys.path.remove(BENCH)
    assert pr.op_class("host-copy:cpu") == "host-copy"
    gt = {("pkg/a.py", 3): Counter({"host-copy:tolist": 1}), ("pkg/a.py", 5): Counter({"aten.nonzero": 1})}
    flagged = {("pkg/a.py", 3): {"DYN202"}}
    row = pr.per_package(gt, flagged, {("pkg/a.py", 3), ("pkg/a.py", 5)}, {})["pkg"]
    assert (row["host_sites"], row["shape_sites"]) == (1, 1)
    assert row["recall_host"] == 1.0 and row["precision_executed"] == 1.0
