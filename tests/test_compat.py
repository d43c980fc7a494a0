"""dynlint supports Python 3.10+: its own code must not use newer syntax, and the static
analyzer must not import torch (it is an optional extra)."""
import ast
import subprocess
import sys

from conftest import ROOT


def test_sources_parse_as_python_310():
    for path in sorted((ROOT / "dynlint").rglob("*.py")):
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 10))


def test_static_analyzer_never_imports_torch():
    code = ("import sys, dynlint.integrations.cli, dynlint.api, dynlint.integrations.flake8_plugin\n"
            "from dynlint.api import check_source\n"
            "check_source('import torch\\nx = torch.nonzero(y)\\n')\n"
            "bad = [m for m in ('torch', 'libcst', 'numpy') if m in sys.modules]\n"
            "print(bad)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
