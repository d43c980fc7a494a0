"""docs/installation.md stays true: the extras it lists are pyproject's, the message it
quotes is the one `dynlint confirm` prints without torch, and pytest really uses xdist."""
import re
import sys

from conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:                                    # pragma: no cover
    import tomli as tomllib

DOC = (ROOT / "docs" / "installation.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_extras_and_their_packages_are_documented():
    extras = PYPROJECT["project"]["optional-dependencies"]
    for extra, requirements in extras.items():
        assert f"'.[{extra}]'" in DOC, extra
        for req in requirements:
            name = re.match(r"[A-Za-z0-9_.-]+", req).group(0)
            assert name in DOC, (extra, name)
    for req in PYPROJECT["project"]["dependencies"]:
        assert re.match(r"[A-Za-z0-9_.-]+", req).group(0) in DOC, req


def test_quoted_confirm_message_is_the_real_one():
    from dynlint.extras import missing_message
    assert f"dynlint confirm: error: {missing_message('torch', 'dynlint confirm')}" in DOC


def test_pytest_runs_with_xdist_as_documented(pytestconfig):
    addopts = PYPROJECT["tool"]["pytest"]["ini_options"]["addopts"]
    assert f'addopts = "{addopts}"' in DOC and "-n auto" in addopts
    # xdist is installed and loaded (in a worker, the worker count is not passed on).
    assert pytestconfig.pluginmanager.hasplugin("xdist")
    assert "--index-url https://download.pytorch.org/whl/cpu" in DOC
