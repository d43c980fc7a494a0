"""The README stays true: its rules table is the generated one, its quickstart is exactly two
commands, and CI runs the same test command."""
import re

from conftest import ROOT
from dynlint.report.docs import rules_table
from dynlint.engine.rules import load_rules

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_rules_table_is_current():
    table = rules_table(load_rules(), "markdown").strip()
    assert table in README, "README's rules table is stale: run `dynlint rules --update README.md`"


def _quickstart():
    section = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def test_quickstart_is_two_commands():
    commands = _quickstart()
    assert len(commands) == 2
    assert "dynlint check examples" in commands[0]
    assert "pytest" in commands[1] and ".[test]" in commands[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    test_command = _quickstart()[1]
    assert test_command in ci
    assert _quickstart()[0].split("&&")[0].strip() in ci
