"""A non-editable install into a fresh venv carries the bundled rules and works.

Offline and quick: the wheel is built with this environment's setuptools (no build isolation,
no index), installed with --no-deps, and the venv borrows this environment's site-packages for
the dependencies (pyyaml, libcst) through a .pth file. The venv's own site-packages come first
on sys.path, so `dynlint` there is the installed wheel, never the checkout.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

from _pkgsnap import REPO, snapshot

BAD = """\
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        return x[x > 0].sum()
"""


def _run(cmd, **kw):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env, **kw)
    return proc


def _can_build_offline() -> bool:
    spec = importlib.util.find_spec("setuptools")
    if spec is None:
        return False
    import setuptools
    return int(setuptools.__version__.split(".")[0]) >= 68


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    root = tmp_path_factory.mktemp("install")
    src = snapshot(root / "src")
    wheels = root / "wheels"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", wheels, src]
    if _can_build_offline():
        build[4:4] = ["--no-build-isolation", "--no-index"]
    proc = _run(build)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (wheel,) = wheels.glob("dynlint-*.whl")

    env_dir = root / "venv"
    proc = _run([sys.executable, "-m", "venv", "--without-pip", env_dir])
    assert proc.returncode == 0, proc.stderr
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    proc = _run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps",
                 "--no-index", wheel])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    site = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    # Every site directory this interpreter sees, including ones chained through a .pth file
    # (a light venv layered on a shared one): .pth files inside those are not processed again.
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"],
            *(p for p in sys.path if p.endswith("site-packages"))}
    site = Path(site.stdout.strip())
    (site / "_dynlint_test_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    return bindir, python, site


def test_installed_package_and_rules_come_from_the_venv(venv, tmp_path):
    _, python, site = venv
    code = "import dynlint, dynlint.engine.rules as r; print(dynlint.__file__, r.bundled_rules_dir())"
    proc = _run([python, "-c", code], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    package, rules_dir = map(Path, proc.stdout.split())
    assert package.is_relative_to(site), package
    assert rules_dir == site / "dynlint" / "rules_data"
    shipped = sorted(p.name for p in rules_dir.glob("*.yaml"))
    assert shipped == sorted(p.name for p in (REPO / "rules").glob("*.yaml"))


def test_dynlint_rules_lists_every_bundled_rule(venv, tmp_path):
    bindir, _, _ = venv
    proc = _run([bindir / "dynlint", "rules", "--format", "json"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    want = sorted(yaml.safe_load(p.read_text())["code"] for p in (REPO / "rules").glob("*.yaml"))
    listed = sorted(r["code"] for r in json.loads(proc.stdout))
    # Besides the YAML rules, the file diagnostics (DYN9xx) are listed: they are selectable.
    assert [c for c in listed if not c.startswith("DYN9")] == want
    assert "DYN901" in listed and "DYN999" in listed


def test_dynlint_check_works_from_the_install(venv, tmp_path):
    bindir, _, _ = venv
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "clean.py").write_text(BAD.replace("x[x > 0].sum()", "x.sum()"))
    dynlint = bindir / "dynlint"
    proc = _run([dynlint, "check", "bad.py", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert [(f["code"], f["line"]) for f in json.loads(proc.stdout)] == [("DYN101", 6)]
    proc = _run([dynlint, "check", "clean.py", "--no-cache"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_wheel_registers_the_flake8_plugin(venv, tmp_path):
    _, python, site = venv
    code = ("import importlib.metadata as m, dynlint.integrations.flake8_plugin\n"
            "d = m.distribution('dynlint')\n"
            "print(d.locate_file(''))\n"
            "print([e.value for e in d.entry_points if e.group == 'flake8.extension'])")
    proc = _run([python, "-c", code], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    location, eps = proc.stdout.splitlines()
    assert Path(location) == site
    assert eps == "['dynlint.integrations.flake8_plugin:Plugin']"          # registered as DYN in pyproject
