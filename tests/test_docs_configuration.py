"""docs/configuration.md stays true: its TOML examples work (and change what is reported),
its shell commands run, and its reference lists every setting and option there is."""
import json
import re
import shlex
import textwrap

import pytest

from conftest import ROOT
from dynlint.project.config import KNOWN_KEYS

DOC = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", DOC, re.S)
TOML = [body for lang, body in BLOCKS if lang == "toml"]
COMMANDS = [line for lang, body in BLOCKS if lang == "bash"
            for line in body.splitlines() if line.startswith("dynlint ")]

BODY = textwrap.dedent("""\
    import torch


    class Net(torch.nn.Module):
        def forward(self, x):
            y = x[x > 0]
            if y.sum() > 0:
                return torch.nonzero(y)
            return y
    """)
FILES = ("src/pkg/__init__.py", "src/pkg/model.py", "src/pkg/gen_ops.py", "tests/test_model.py",
         "legacy/old.py", "vendor/ours.py", "vendor/theirs.py", "scripts/run.py", "setup.py",
         "generated/out.py")


@pytest.fixture
def project(tmp_path):
    for name in FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(BODY)
    (tmp_path / "legacy" / "broken.py").write_text('print "old"\n')
    (tmp_path / "pyproject.toml").write_text(TOML[0])
    return tmp_path


def _findings(dynlint, cwd, *extra, target="."):
    r = dynlint("check", target, "--no-cache", "--format", "json", *extra, cwd=cwd)
    assert r.returncode in (0, 1), r.stderr
    assert "error" not in r.stderr.lower(), r.stderr
    return {(f["path"], f["code"]) for f in json.loads(r.stdout)}


def test_doc_has_examples():
    assert len(TOML) >= 4 and len(COMMANDS) >= 4


@pytest.mark.parametrize("index", range(len(TOML)))
def test_toml_example_works_and_has_an_effect(dynlint, project, index):
    block = TOML[index]
    if block.lstrip().startswith("[tool.dynlint]"):
        (project / "pyproject.toml").write_text(block)
    else:                                           # a nested dynlint.toml (legacy/)
        (project / "legacy" / "dynlint.toml").write_text(block)
    configured = _findings(dynlint, project)
    defaults = _findings(dynlint, project, "--isolated")
    assert configured != defaults, f"example {index} changes nothing:\n{block}"
    # And the same from a subdirectory and from the directory above.
    sub = {(p, c) for p, c in _findings(dynlint, project / "src")}
    assert sub == {(p[len("src/"):], c) for p, c in configured if p.startswith("src/")}
    above = _findings(dynlint, project.parent, target=project.name)
    assert {(p.split("/", 1)[1], c) for p, c in above if p.startswith(project.name + "/")} == configured


@pytest.mark.parametrize("command", COMMANDS)
def test_shell_example_runs(dynlint, project, command):
    words = shlex.split(command)
    stdin = None
    if "<" in words:
        i = words.index("<")
        stdin = (project / words[i + 1]).read_text()
        words = words[:i] + words[i + 2:]
    r = dynlint(*words[1:], cwd=project, input=stdin)
    assert r.returncode in (0, 1), r.stderr
    assert "Traceback" not in r.stderr and "error" not in r.stderr.lower(), r.stderr
    assert r.stdout.strip(), command


def test_reference_lists_every_setting_and_option(dynlint):
    table = DOC.split("## Settings", 1)[1].split("\n### ", 1)[0]
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", table, re.M))
    assert documented == KNOWN_KEYS | {"extend"}
    help_text = dynlint("check", "--help").stdout
    options = DOC.split("## Command-line options", 1)[1].split("\n## ", 1)[0]
    for option in set(re.findall(r"`(--[a-z-]+)", options)):
        assert option in help_text, option
