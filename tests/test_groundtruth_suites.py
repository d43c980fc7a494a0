"""The ground-truth recorder (bench/groundtruth.py) and its suites' plumbing, run for real on torch:
a throwaway package whose step runs a bool-mask index, an `.item()` and a `bool(t)` under
`inference_mode` must be recorded at those lines; suites whose packages are absent (CI has none of
suite c's) are skipped by name, not crashed on; a namespace package (no `__init__.py`, as
pytorch_tabnet) is attributed like any other; `gt.DEVICE_NAME` stands for the accelerator (suite i);
the committed suite-c to suite-k reports are fully diagnosed."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(REPO, "bench")

FAKE = '''\
import torch


def step(x):
    keep = x > 0
    y = x[keep]
    n = y.sum().item()
    with torch.inference_mode():
        ok = bool((x > 5).any())
    return y, n, ok
'''

DRIVER = '''\
import json, sys
sys.path.insert(0, {bench!r})
sys.path.insert(0, {pkgdir!r})
import torch
import groundtruth as gt
from gt import Step

def build():
    import fakepkg
    x = torch.tensor([1.0, -2.0, 3.0])
    return Step(fakepkg.step), [((x,), {{}})], [((x,), {{}})]

roots = gt.Roots(["fakepkg"])
res = gt.run_model("fake", build, roots, 60)
sys.modules["timm"] = None            # an absent package: its builders are skipped, not fatal
import gt as suites
models, pkgs = suites.suite_c_models()
print(json.dumps({{"res": res, "suite_c": sorted(pkgs), "names": sorted(models)}}))
'''


@pytest.fixture(scope="module")
def driven(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("gt"))


def _run(tmp_path, module="fakepkg/__init__.py", driver_src=DRIVER):
    """Writes FAKE as `module` under tmp_path and runs the driver there: (stdout lines, last line's JSON)."""
    (tmp_path / module).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / module).write_text(FAKE)
    driver = tmp_path / "driver.py"
    driver.write_text(driver_src.format(bench=BENCH, pkgdir=str(tmp_path)))
    out = subprocess.run([sys.executable, str(driver)], capture_output=True, text=True, timeout=300,
                         cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.splitlines(), json.loads(out.stdout.splitlines()[-1])


def test_recorder_attributes_ops_to_package_lines(driven):
    lines, data = driven
    res = data["res"]
    assert res["status"] == "ok" and res["phases"] == {"eval": "ok", "train": "ok"}
    rec = res["files"]["fakepkg/__init__.py"]
    dyn = rec["dynamic"]
    assert "aten.index.Tensor(bool)" in dyn["6"]["ops"]            # y = x[keep]
    assert "aten._local_scalar_dense" in dyn["7"]["ops"]           # .item()
    assert "aten.is_nonzero" in dyn["9"]["ops"]                    # bool(t) under inference_mode
    assert sorted(dyn["6"]["phases"]) == ["eval", "train"]
    assert "5" not in dyn                                           # a comparison is static
    assert {5, 6, 7, 9, 10} <= set(_ranges(rec["executed"]))


def test_suite_c_skips_absent_packages(driven):
    lines, data = driven
    assert "timm" not in data["suite_c"]
    assert not any(n.startswith("timm_") for n in data["names"])
    assert any(line.startswith("skipping timm") for line in lines)
    for pkg, prefix in (("torchmetrics", "tm_"), ("torchaudio", "ta_")):
        present = importlib.util.find_spec(pkg) is not None
        assert (pkg in data["suite_c"]) == present
        assert any(n.startswith(prefix) for n in data["names"]) == present


@pytest.mark.skipif(importlib.util.find_spec("timm") is None, reason="timm not installed (suite c)")
def test_suite_c_timm_losses_recorded(tmp_path):
    dest = tmp_path / "gt_c.json"
    out = subprocess.run([sys.executable, os.path.join(BENCH, "groundtruth.py"), "--suite", "c", "--models",
                          "timm_losses", "--out", str(dest)], capture_output=True, text=True, timeout=600, cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    res = json.loads(dest.read_text())["models"]["timm_losses"]
    assert res["status"] == "ok"
    assert any(f.startswith("timm/loss/") and rec["dynamic"] for f, rec in res["files"].items())


NS_DRIVER = '''\
import json, sys
sys.path.insert(0, {bench!r})
sys.path.insert(0, {pkgdir!r})
import torch
import groundtruth as gt
from gt import Step

def build():
    from nspkg import mod
    x = torch.tensor([1.0, -2.0, 3.0])
    return Step(mod.step), [((x,), {{}})], []

res = gt.run_model("ns", build, gt.Roots(["nspkg"]), 60)
print(json.dumps(res))
'''


def test_namespace_package_attributed(tmp_path):
    """pytorch_tabnet ships no `__init__.py`: `Roots` takes the package directory from `__path__`."""
    _, res = _run(tmp_path, module="nspkg/mod.py", driver_src=NS_DRIVER)
    assert res["status"] == "ok", res["error"]
    assert "aten.index.Tensor(bool)" in res["files"]["nspkg/mod.py"]["dynamic"]["6"]["ops"]


NAME_SRC = '''\
def step(x, dev):
    a = x.to(dev) * 2
    b = x.to("cpu")
    return a, b
'''

NAME_DRIVER = '''\
import json, sys
sys.path.insert(0, {bench!r})
sys.path.insert(0, {pkgdir!r})
import torch
import groundtruth as gt
from gt import DEVICE_NAME, Step

def build():
    from devpkg import mod
    x = torch.tensor([1.0, -2.0, 3.0])
    return Step(mod.step), [((x, DEVICE_NAME), {{}})], []

res = gt.run_model("devname", build, gt.Roots(["devpkg"]), 60)
print(json.dumps(res))
'''


def test_device_name_is_the_accelerator(tmp_path):
    """sbi keeps its device as a string: `gt.DEVICE_NAME` (a "cpu" string known by identity) is the
    accelerator to the provenance tracker, so `.to(DEVICE_NAME)` of a step input is no host copy, while
    `.to("cpu")` of the same tensor still is one."""
    (tmp_path / "devpkg").mkdir()
    (tmp_path / "devpkg" / "__init__.py").write_text("")
    (tmp_path / "devpkg" / "mod.py").write_text(NAME_SRC)
    driver = tmp_path / "driver.py"
    driver.write_text(NAME_DRIVER.format(bench=BENCH, pkgdir=str(tmp_path)))
    out = subprocess.run([sys.executable, str(driver)], capture_output=True, text=True, timeout=300,
                         cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr[-2000:]
    res = json.loads(out.stdout.splitlines()[-1])
    assert res["status"] == "ok", res["error"]
    dyn = res["files"]["devpkg/mod.py"]["dynamic"]
    assert "2" not in dyn                                   # x.to(DEVICE_NAME): stays on the accelerator
    assert "host-copy:to" in dyn["3"]["ops"]                # x.to("cpu"): a host copy


def _ranges(text):
    out = []
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


# suite -> (package, prefix of its model names); each suite's first-look report in bench/results/
SUITES = {
    "c": (("timm", "timm_"), ("torchmetrics", "tm_"), ("torchaudio", "ta_")),
    "d": (("effdet", "effdet_"), ("demucs", "demucs_"), ("torchdiffeq", "torchdiffeq_"), ("open_clip", "openclip_")),
    "e": (("speechbrain", "sb_"),),
    "f": (("segmentation_models_pytorch", "smp_"), ("torchsde", "torchsde_")),
    # gpytorch's runs count linear_operator's files too (one builder module, two packages)
    "g": (("pytorch_metric_learning", "pml_"), ("gpytorch", "gpytorch_"), ("linear_operator", "gpytorch_")),
    "h": (("pykeen", "pykeen_"), ("pytorch_tabnet", "tabnet_")),
    "i": (("torchrl", "torchrl_"), ("sbi", "sbi_")),
    "j": (("botorch", "botorch_"), ("deepxde", "deepxde_")),
    "k": (("k_diffusion", "kdiff_"), ("normflows", "nflows_")),
}


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_suite_cli_lists_or_skips(suite):
    out = subprocess.run([sys.executable, os.path.join(BENCH, "groundtruth.py"), "--suite", suite, "--list"],
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    for pkg, prefix in SUITES[suite]:
        if importlib.util.find_spec(pkg) is None:
            assert f"skipping {pkg}" in out.stdout
        else:
            assert any(line.startswith(prefix) for line in out.stdout.splitlines())


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_suite_report_fully_diagnosed(suite):
    report = os.path.join(BENCH, "results", f"pr_{suite}_firstlook.json")
    packages = [pkg for pkg, _ in SUITES[suite]]
    out = subprocess.run([sys.executable, os.path.join(BENCH, "gt", "misslist.py"), report, "--packages",
                          ",".join(packages)], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    text = out.stdout
    for pkg in packages:
        assert f"## {pkg}" in text
    causes = text.split("## Miss causes by count", 1)[1].split("\n## ", 1)[0]
    assert "unknown" not in causes and "- " in causes
    assert "] ?" not in text                     # every site has a diagnosis
