"""Patterns are compiled once into closures (engine/patterns.py) instead of being interpreted
at every node: on every node of real modules, each pattern of the bundled rules (match and
fix patterns) must match exactly where the interpreter matches, with the same bindings."""
import ast
from pathlib import Path

import pytest

from dynlint.analysis.scopes import index_module
from dynlint.engine.patterns import Matcher, compile_pattern
from dynlint.engine.rules import load_rules

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")

SOURCES = [
    Path(torchvision.__file__).parent / "ops" / "boxes.py",
    Path(torchvision.__file__).parent / "models" / "detection" / "roi_heads.py",
    Path(torch.__file__).parent / "nn" / "functional.py",
]
# Calls with extra, missing or `**` keywords, starred arguments, repeated code, statements.
SYNTHETIC = """\
import torch
from torch import nonzero as nz
x = torch.where(c, out=o)
y = torch.where(c)
z = x.item(1)
w = x.item()
nz(m, as_tuple=True)
torch.cat([a, b], dim=0)
torch.cat([a, a], dim=0)
torch.cat([a, b], 0, dim=1)
f(*args, k=1)
f(*args, **kw)
v.view(n, n)
v.view(n, m)
if c:
    return x
for i in range(len(v)):
    v[m] = 0
"""
EXTRA = ["torch.cat([$X, $Y], dim=$D)", "$F(..., $X, ...)", "$X.view($A, $A)", "[$_, ...]",
         "$X[$M] = $V", "if $C:\n    return $X", "f(*$A, k=$K)"]


def _patterns():
    out = [compile_pattern(p) for p in EXTRA]
    for rule in load_rules():
        for spec in [*rule.matches, *rule.fixes]:
            out += [p for p in spec.patterns if p.root is not None]
    return out


def _interpreted(matcher, pat, node):
    binds = {}
    return binds if matcher._node(pat.root, node, binds) else None


@pytest.mark.parametrize("path", [*SOURCES, None], ids=lambda p: p.name if p else "synthetic")
def test_compiled_patterns_match_as_interpreted(path):
    source = path.read_text(encoding="utf-8") if path else SYNTHETIC.replace(
        "if c:\n    return x", "def g():\n    if c:\n        return x")
    tree = ast.parse(source)
    # Names resolve through the module's imports, as in a check (`nz` is `torch.nonzero`).
    scopes = index_module(tree, source.split("\n"))
    matcher = Matcher(scopes.qualname)
    nodes = list(ast.walk(tree))
    hits = 0
    for pat in _patterns():
        for node in nodes:
            want = _interpreted(matcher, pat, node)
            got = matcher.match(pat, node)
            assert (got is None) == (want is None), (pat.source, ast.dump(node)[:200])
            if want is not None:
                hits += 1
                assert got.keys() == want.keys() and all(got[k] is want[k] for k in want)
    assert hits > (5 if path is None else 100)     # both paths were exercised
