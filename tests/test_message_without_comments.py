"""A message quotes the matched code on one line; a call written over several lines with a
comment after an argument must not drag the comment into it (`RelaxedBernoulli( # The token
logits ...`, transformers' tapas), while a `#` inside a string argument stays. Through the
real CLI."""
from __future__ import annotations

import json

from _tree import write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/head.py": """\
        import torch


        class Head(torch.nn.Module):
            def forward(self, logits):
                dist = torch.distributions.RelaxedBernoulli(  # the token logits
                    torch.tensor(1.0),  # temperature
                    logits=logits,
                )
                keep = torch.nonzero(  # the kept rows
                    logits > 0, out=None
                )
                return dist.rsample(), keep
        """,
}


def test_messages_quote_code_without_its_comments(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    out = dynlint("check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path)
    messages = {f["line"]: f["message"] for f in json.loads(out.stdout)}
    assert messages[6].startswith("`torch.distributions.RelaxedBernoulli( torch.tensor(1.0), ...`"), messages
    assert messages[10].startswith("`torch.nonzero( logits > 0, out=None )`"), messages


def test_a_hash_inside_a_string_stays():
    from dynlint.engine.match import _without_comments
    text = 'f(  # note\n    "a#b",  # another\n    c)'
    assert " ".join(_without_comments(text).split()) == 'f( "a#b", c)'
    assert _without_comments('g("a#b")') == 'g("a#b")'     # one line: left as written
