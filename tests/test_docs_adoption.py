"""The console sessions in docs/suppression.md, docs/notebooks.md and docs/output-formats.md
still print what they show. A `<!-- file: NAME -->` line before a code block writes that file;
in a ```console block, `$ dynlint ...`, `$ python ...` and `$ cat FILE` lines are run in order
in one temporary directory per page and their output (stdout, then stderr) must match."""
import re
import shlex
import subprocess
import sys

import pytest

from conftest import ROOT, run_dynlint

PAGES = ["suppression.md", "notebooks.md", "output-formats.md"]
_BLOCK = re.compile(r"(?:<!-- file: (?P<file>\S+) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S)


def _sessions(text):
    for m in _BLOCK.finditer(text):
        yield m.group("file"), m.group("lang"), m.group("body")


@pytest.mark.parametrize("page", PAGES)
def test_console_sessions_run_as_shown(page, tmp_path):
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    ran = 0
    for name, lang, body in _sessions(text):
        if name:
            (tmp_path / name).write_text(body, encoding="utf-8")
            continue
        if lang != "console":
            continue
        steps = re.split(r"^\$ ", body, flags=re.M)[1:]
        for step in steps:
            command, _, expected = step.partition("\n")
            argv = shlex.split(command)
            if argv[0] == "dynlint":
                r = run_dynlint(*argv[1:], cwd=tmp_path, env={"DYNLINT_OUTPUT_FORMAT": ""})  # the default
            elif argv[0] == "cat":
                got = (tmp_path / argv[1]).read_text(encoding="utf-8")
                assert got == expected, f"{page}: `{command}`"
                continue
            else:
                assert argv[0] == "python", f"{page}: cannot run {command!r}"
                r = subprocess.run([sys.executable, *argv[1:]], cwd=tmp_path,
                                   capture_output=True, text=True)
            assert r.stdout + r.stderr == expected, f"{page}: `{command}` printed:\n{r.stdout}{r.stderr}"
            ran += 1
    assert ran, f"{page} has no console session"


@pytest.mark.parametrize("page", PAGES)
def test_relative_links_resolve(page):
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
        assert (ROOT / "docs" / target).exists(), f"{page}: broken link {target}"
