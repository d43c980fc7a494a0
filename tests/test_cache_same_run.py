"""A cache entry read back in the run that wrote it decodes as it will in the next run.

The cross-file step walks a file not checked for its summaries in one round (nothing known
of its callees yet) and asks for it again in a later round, when a callee's summary is known
(crossfile.Memo, tag `#summaries`): the second ask reads the entry the first one stored in
this same run. That entry used to hold the encoder's Python data (a tuple summary), which the
decoder, written for what JSON gives back (lists), rejected: every first run over such a
project warned that the cache file dynlint had just written was malformed, and walked the
file again. Through the real CLI on a small package; then at the level of the cache."""
from __future__ import annotations

import json

from _tree import write_tree

from dynlint.project.cache import Cache

# `helper` (pkg/b.py, not checked) returns a tuple; its first item is what `util` (pkg/c.py)
# returns, known only once the second round has walked c.py: b.py is summarised in round one
# with nothing known, and asked again in round two.
FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/a.py": """\
        from torch import nn
        from pkg.b import helper


        class Net(nn.Module):
            def forward(self, x):
                mask, ones = helper(x)
                return x[mask] + ones
        """,
    "pkg/b.py": """\
        import torch
        from pkg.c import util


        def helper(x):
            return util(x), torch.ones(2)
        """,
    "pkg/c.py": """\
        import torch


        def util(x):
            return torch.zeros(3) > 0
        """,
}


def test_summaries_asked_again_in_the_same_run_are_not_malformed(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    uncached = dynlint("check", "pkg/a.py", "--no-cache", "--output-format", "json", cwd=tmp_path)
    findings = json.loads(uncached.stdout)
    assert [(f["line"], f["code"]) for f in findings] == [(8, "DYN101")], findings
    for run in ("cold", "warm"):
        out = dynlint("check", "pkg/a.py", "--output-format", "json", cwd=tmp_path)
        assert "warning" not in out.stderr, (run, out.stderr)
        assert json.loads(out.stdout) == findings, run


def _strict_decode(data, label):
    """Accepts only what JSON gives back: lists, never tuples."""
    if type(data) is not list or any(type(v) is not list for v in data):
        raise ValueError("unexpected value")
    return [tuple(v) for v in data]


def test_an_entry_stored_this_run_decodes_as_in_the_next(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("x = 1\n")
    stat = src.stat()

    def cache():
        return Cache(tmp_path / ".cache", ("k",), lambda value: value, _strict_decode)

    first = cache()
    shared = [(1, 2)]
    first.store(str(src), stat, "d", shared)
    shared.append("changed after the store")     # the caller's live data, changed later
    assert first.lookup(str(src)) == [(1, 2)]
    assert not first.warned
    first.save()
    second = cache()
    assert second.lookup(str(src)) == [(1, 2)]
    assert not second.warned
