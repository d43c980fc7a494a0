"""README.md and docs/*.md stay true: relative links and #anchors resolve, every page is
reachable from docs/index.md or the README, and TOML configuration examples work as pasted."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path) -> set:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen, out = {}, set()
    for heading in re.findall(r"^#{1,6}\s+(.*)$", text, re.M):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(path):
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page):
    for target in links(page):
        file, _, anchor = target.partition("#")
        dest = (page.parent / file).resolve() if file else page
        assert dest.exists(), f"{page.name}: broken link {target}"
        if anchor and dest.suffix == ".md":
            assert anchor in anchors(dest), f"{page.name}: no #{anchor} in {dest.name}"


def test_every_docs_page_is_linked():
    linked = set()
    for page in (ROOT / "README.md", ROOT / "docs" / "index.md"):
        linked |= {(page.parent / t.partition("#")[0]).resolve() for t in links(page)}
    for page in (ROOT / "docs").glob("*.md"):
        assert page.name == "index.md" or page.resolve() in linked, f"{page.name} is not linked"


def test_slug_is_github_style():
    assert slug("dynlint confirm: run the model, prove or clear each finding") == \
        "dynlint-confirm-run-the-model-prove-or-clear-each-finding"
    assert slug("Masked reductions (DYN101 `x[m]`, DYN105 `masked_select`)") == \
        "masked-reductions-dyn101-xm-dyn105-masked_select"


def test_readme_configuration_example_works_when_pasted(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", readme, re.S)
    configs = [b for b in blocks if "[tool.dynlint]" in b]
    assert configs
    import shutil
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    for block in configs:
        (tmp_path / "pyproject.toml").write_text(block)
        proc = subprocess.run([sys.executable, "-m", "dynlint", "check", "examples"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert proc.returncode in (0, 1), proc.stderr
        assert "error" not in proc.stderr.lower(), proc.stderr


def test_no_placeholder_project_address(tmp_path):
    """No made-up repository address in the docs or in SARIF output."""
    for page in PAGES:
        assert "github.com/dynlint/dynlint" not in page.read_text(encoding="utf-8"), page.name
    import json
    proc = subprocess.run([sys.executable, "-m", "dynlint", "check", "--format", "sarif",
                           str(ROOT / "examples")], capture_output=True, text=True, timeout=120)
    driver = json.loads(proc.stdout)["runs"][0]["tool"]["driver"]
    assert "dynlint/dynlint" not in driver.get("informationUri", "")
