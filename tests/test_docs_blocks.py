"""Every code block in README.md and docs/*.md runs as written, or says it is illustrative.

Markers (an HTML comment on the line before the block):
  <!-- file: NAME -->     the block is written to NAME for the commands that follow
  <!-- illustrative -->   the block is not run (a sketch, a diagram, a formula, an install step)
  <!-- tested-by: PATH -->  the block needs a project set up by that test file, which runs it
                            (the test checks that PATH exists and names the page)

Each page runs in one temporary directory (holding a copy of `examples/` if the page names it).
By language:
  console          `$ CMD` lines are run in order; `dynlint`, `python`, `flake8` and `cat FILE`
                   commands, and their output (stdout then stderr) must be what is shown
  bash, sh, shell  every command (`&&` chains, `# comments` dropped) is run: `dynlint ...` through
                   the real CLI, which must exit 0 or 1 without an error; `pip install ...` is what
                   the test environment already did, so it is checked, not run
  toml             parsed; a `[tool.dynlint]` table (or a bare dynlint.toml) is also applied to a
                   check of the examples, which must run without a configuration error
  python           executed (`python -c`), must exit 0
  yaml, ini, json  parsed
Anything else, or a block these rules cannot run, fails the test unless marked illustrative.
"""
from __future__ import annotations

import configparser
import json
import re
import shlex
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, run_dynlint

# What a user sees: the default output format, not the one the other tests pin.
USER_ENV = {"DYNLINT_OUTPUT_FORMAT": ""}

try:
    import tomllib
except ImportError:                        # Python 3.10
    import tomli as tomllib

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^(?:<!-- (?P<mark>(?:file|tested-by): \S+|illustrative) -->\n)?```(?P<lang>[\w-]*)[^\n]*\n"
                   r"(?P<body>.*?)^```[ \t]*$", re.S | re.M)


def blocks(page):
    return [(m.group("mark") or "", m.group("lang"), m.group("body"))
            for m in BLOCK.finditer(page.read_text(encoding="utf-8"))]


def _ok(r, what):
    out = r.stdout + r.stderr
    assert r.returncode in (0, 1), f"{what}: exit {r.returncode}\n{out}"
    assert "Traceback" not in out and "error:" not in r.stderr, f"{what}:\n{out}"


def _run_console(body, cwd, page):
    for step in re.split(r"^\$ ", body, flags=re.M)[1:]:
        command, _, expected = step.partition("\n")
        argv = shlex.split(command)
        if argv[0] == "cat":
            assert (cwd / argv[1]).read_text(encoding="utf-8") == expected, f"{page}: `{command}`"
            continue
        if argv[0] == "dynlint":
            r = run_dynlint(*argv[1:], cwd=cwd, env=USER_ENV)
        elif argv[0] in ("python", "flake8"):
            pre = [] if argv[0] == "python" else ["-m", "flake8"]
            r = subprocess.run([sys.executable, *pre, *argv[1:]], cwd=cwd, capture_output=True,
                               text=True, timeout=300)
        else:
            raise AssertionError(f"{page}: cannot run `{command}`: mark the block illustrative")
        assert r.stdout + r.stderr == expected, f"{page}: `{command}` printed:\n{r.stdout}{r.stderr}"


# What the environment running the tests has already done: installing dynlint (and its
# extras), and running the test suite this file belongs to.
SATISFIED = (["pip", "install"], ["python", "-m", "pytest"])


def _run_shell(body, cwd, page):
    ran = 0
    for line in body.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        for command in filter(None, (c.strip() for c in line.split("&&"))):
            argv = shlex.split(command)
            env = dict(USER_ENV)
            while argv and re.match(r"^[A-Z_]+=", argv[0]):
                key, _, value = argv.pop(0).partition("=")
                # (outside `cwd`: a `dynlint` directory there would shadow `python -m dynlint`)
                env[key] = value.replace("$RUNNER_TEMP", f"{cwd}-runner-temp")
            if any(argv[:len(done)] == done for done in SATISFIED):
                continue
            assert argv and argv[0] == "dynlint", \
                f"{page}: cannot run `{command}`: mark the block illustrative"
            _ok(run_dynlint(*argv[1:], cwd=cwd, env=env), f"{page}: `{command}`")
            ran += 1
    assert ran, f"{page}: a shell block with nothing to run:\n{body}"


def _apply_toml(body, cwd, page, name=None):
    """Parse; a dynlint config (`[tool.dynlint]`, or a file block named dynlint.toml) becomes the
    page's config, and a check with it must run without a configuration error."""
    data = tomllib.loads(body)
    if name is None:
        if "dynlint" not in data.get("tool", {}):
            return                        # another tool's configuration: parsed is all
        name = "pyproject.toml"
    elif not name.endswith(("pyproject.toml", "dynlint.toml")):
        return
    (cwd / name).write_text(body, encoding="utf-8")
    _ok(run_dynlint("check", "--no-cache", ".", cwd=cwd, env=USER_ENV), f"{page}: toml block")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_code_blocks_run(page, tmp_path):
    if "examples/" in page.read_text(encoding="utf-8"):
        shutil.copytree(ROOT / "examples", tmp_path / "examples")
    for mark, lang, body in blocks(page):
        if mark == "illustrative":
            continue
        if mark.startswith("tested-by: "):
            tester = ROOT / mark[len("tested-by: "):]
            assert tester.is_file() and page.name in tester.read_text(encoding="utf-8"), mark
        elif mark.startswith("file: "):
            name = mark[len("file: "):]
            target = tmp_path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(body, encoding="utf-8")
            if lang == "toml":
                _apply_toml(body, tmp_path, page.name, name)
        elif lang == "console":
            _run_console(body, tmp_path, page.name)
        elif lang in ("bash", "sh", "shell"):
            _run_shell(body, tmp_path, page.name)
        elif lang == "toml":
            _apply_toml(body, tmp_path, page.name)
        elif lang == "python":
            r = subprocess.run([sys.executable, "-c", body], cwd=tmp_path, capture_output=True,
                               text=True, timeout=300)
            assert r.returncode == 0, f"{page.name}: python block failed:\n{body}\n{r.stderr}"
        elif lang in ("yaml", "yml"):
            yaml.safe_load(body)
        elif lang == "ini":
            configparser.ConfigParser().read_string(body)
        elif lang == "json":
            json.loads(body)
        else:
            raise AssertionError(f"{page.name}: a ```{lang} block that is not run; run it or mark "
                                 f"it <!-- illustrative -->:\n{body[:300]}")


def test_markers_are_recognised():
    """A block marked illustrative is skipped; an unmarked block that cannot run is an error."""
    text = "<!-- illustrative -->\n```\nfree text\n```\n\n```bash\nmake all\n```\n"
    found = [(m.group("mark"), m.group("lang")) for m in BLOCK.finditer(text)]
    assert found == [("illustrative", ""), (None, "bash")]
    assert [m.group("mark") for m in BLOCK.finditer(
        "<!-- tested-by: tests/x.py -->\n```bash\ndynlint check\n```\n")] == ["tested-by: tests/x.py"]
    with pytest.raises(AssertionError, match="mark the block illustrative"):
        _run_shell("make all\n", ROOT, "x.md")


def test_readme_quickstart_exits_1_with_findings_in_the_default_format(tmp_path):
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Quickstart", 1)[1]
    command = re.search(r"```bash\n(.*?)```", section, re.S).group(1).splitlines()[0]
    argv = shlex.split(command.split("&&")[1])
    assert argv[:2] == ["dynlint", "check"]
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    r = run_dynlint(*argv[1:], cwd=tmp_path, env=USER_ENV)
    assert r.returncode == 1, r.stderr
    # full, ruff's default: each finding with its location line, source line and caret
    assert " --> examples/dynamic_model.py:16:13" in r.stdout and "^^^^^^^^" in r.stdout
    assert re.search(r"^Found \d+ issues\.$", r.stdout, re.M)
