"""DYN301's `mark_step()` split, applied on request (`--apply-display-only`), on the guide's
shape (static1 -> dynamic -> static2) and on torchvision's detection models.

Without Gaudi software the rewritten file must import and run unchanged (the guarded import
falls back to a no-op); with it, `mark_step()` must be the real one and run at the section's
two ends. A stand-in `habana_frameworks.torch.core` that counts the calls plays Gaudi here.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
from _detection_run import run_in_copy  # noqa: E402

GUIDE_SHAPE = textwrap.dedent("""\
    import torch


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.static1 = torch.nn.Linear(6, 6)
            self.static2 = torch.nn.Linear(1, 3)

        def forward(self, x):
            x = self.static1(x)
            x = x[x > 0]
            x = self.static2(x.unsqueeze(-1))
            return x.sum()
    """)

RUN_GUIDE = textwrap.dedent("""\
    import importlib.util, json, sys
    import torch
    spec = importlib.util.spec_from_file_location("net", sys.argv[1])
    net = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(net)
    torch.manual_seed(0)
    model = net.Net()
    outs = [float(model(torch.randn(b, 6))) for b in (2, 5)]
    try:
        from habana_frameworks.torch.core import calls
    except ImportError:
        calls = None
    print(json.dumps({"outs": outs, "calls": calls}))
    """)

FAKE_CORE = textwrap.dedent("""\
    calls = []


    def mark_step(*args, **kwargs):
        calls.append(len(calls))
    """)


def _run(tmp_path, module, extra_path=None):
    script = tmp_path / "run_guide.py"
    script.write_text(RUN_GUIDE)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if extra_path is not None:
        env["PYTHONPATH"] = str(extra_path)
    done = subprocess.run([sys.executable, str(script), str(module)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(importlib.util.find_spec("habana_frameworks") is not None,
                    reason="Gaudi software is installed here")
def test_guide_shape_split_runs_without_gaudi_and_calls_the_real_mark_step(tmp_path, dynlint):
    original = tmp_path / "original.py"
    original.write_text(GUIDE_SHAPE)
    fixed = tmp_path / "fixed.py"
    fixed.write_text(GUIDE_SHAPE)
    r = dynlint("check", "--select", "DYN301", "--no-cache", "fixed.py", cwd=tmp_path)
    assert "fixed.py:12:13: DYN301" in r.stdout, r.stdout
    r = dynlint("check", "--select", "DYN301", "--fix", "--apply-display-only", "--no-cache",
                "fixed.py", cwd=tmp_path)
    text = fixed.read_text()
    body = text.split("def forward")[1].splitlines()
    # mark_step() right before the dynamic statement and right before static2.
    assert [line.strip() for line in body[1:6]] == [
        "x = self.static1(x)", "mark_step()", "x = x[x > 0]", "mark_step()",
        "x = self.static2(x.unsqueeze(-1))"], text
    again = dynlint("check", "--select", "DYN301", "--fix", "--apply-display-only",
                    "--no-cache", "fixed.py", cwd=tmp_path)
    assert fixed.read_text() == text and "DYN301" not in again.stdout, again.stdout
    # Off Gaudi: imports, runs, same outputs as the original.
    before, after = _run(tmp_path, original), _run(tmp_path, fixed)
    assert after["outs"] == before["outs"] and after["calls"] is None
    # With (stand-in) Gaudi software the real mark_step runs, twice per forward.
    fake = tmp_path / "gaudi"
    (fake / "habana_frameworks" / "torch").mkdir(parents=True)
    (fake / "habana_frameworks" / "__init__.py").write_text("")
    (fake / "habana_frameworks" / "torch" / "__init__.py").write_text("")
    (fake / "habana_frameworks" / "torch" / "core.py").write_text(FAKE_CORE)
    on_gaudi = _run(tmp_path, fixed, fake)
    assert on_gaudi["outs"] == before["outs"] and len(on_gaudi["calls"]) == 4


@pytest.mark.skipif(importlib.util.find_spec("habana_frameworks") is not None,
                    reason="Gaudi software is installed here")
def test_split_torchvision_detection_runs_unchanged_without_gaudi(tmp_path, dynlint):
    torchvision = pytest.importorskip("torchvision")
    src = Path(torchvision.__file__).parent
    runs = {}
    for label, split in (("original", False), ("split", True)):
        site = tmp_path / label
        shutil.copytree(src, site / "torchvision", ignore=shutil.ignore_patterns("__pycache__"))
        if split:
            r = dynlint("check", "--select", "DYN301", "--fix", "--apply-display-only",
                        "--no-cache", "torchvision/models/detection", "torchvision/ops",
                        cwd=site, timeout=600)
            assert "fixed" in r.stdout, r.stdout[-2000:]
            rpn = (site / "torchvision/models/detection/rpn.py").read_text()
            assert "mark_step()" in rpn and "from habana_frameworks.torch.core import" in rpn
        runs[label] = run_in_copy(site, ["fasterrcnn_resnet50_fpn", "ssd300_vgg16"], tmp_path)
    assert runs["split"] == runs["original"]
