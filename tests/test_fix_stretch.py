"""Stretches across statements (dynlint/fix/stretch.py): substituted only when every use is
accounted for; otherwise the one-statement fixes (display-only, with their reason) apply."""
import pytest

from dynlint.engine.match import Engine
from dynlint.engine.rules import load_rules

ENGINE = Engine(load_rules())
HEAD = "import torch\n\n\ndef f(x: torch.Tensor, m: torch.BoolTensor, helper):\n"
STRETCH = "is only reduced (sum/mean/any/all) before it dies"
WHERE = "only indexes tensors of the condition's shape"


def fixes(body):
    source = HEAD + "".join("    " + line + "\n" for line in body.split("\n"))
    return [(f.code, f.fix.applicability, f.fix.description) for f in ENGINE.check(source, "f.py")
            if f.fix is not None and f.code in ("DYN101", "DYN104")]


@pytest.mark.parametrize("body", [
    "y = x[m]\ns = y.sum()\nreturn s, y.mean()",
    "y = x[m]\nif helper:\n    s = y.all()\nelse:\n    s = y.any()\nreturn s",
    "y = x[x > 0]\na = y.any()\ny = y.mean()\nreturn a, y",
])
def test_every_use_accounted_for(body):
    got = fixes(body)
    assert any(app == "safe" and STRETCH in d for _, app, d in got), got


@pytest.mark.parametrize("body,why", [
    ("y = x[m]\ns = y.sum()\nx.add_(1)\nreturn s, y.mean()", "an in-place change in between"),
    ("y = x[m]\ns = y.sum()\nhelper(x)\nreturn s, y.mean()", "a call handed x"),
    ("y = x[m]\nm = ~m\nreturn y.sum(), y.mean()", "the mask is rebound"),
    ("y = x[m]\ns = y.mean()\nreturn s, y", "y itself is returned"),
    ("y = x[m]\ng = lambda: y.sum()\nreturn g, y.mean()", "read in a nested scope"),
    ("y = x[m]\nreturn y.sum(dim=0), y.mean()", "a reduction over one dimension"),
    ("y = x[m]\nx[0] = 1\nreturn y.sum(), y.mean()", "an item written in between"),
])
def test_a_use_not_accounted_for_leaves_the_stretch(body, why):
    got = fixes(body)
    assert not any(STRETCH in d for _, _, d in got), (why, got)
    # The selection still gets a one-statement suggestion that says why it is not applied.
    assert any(app == "display-only" for _, app, _ in got), (why, got)


def test_where_indices_need_the_mask_shape_proved():
    proved = fixes("idx = torch.where(x > 0)\nreturn x[idx].sum()")
    assert any(app == "safe" and WHERE in d for _, app, d in proved), proved
    # `helper` could be a longer tensor: indices fit it, the mask would not.
    unproved = fixes("idx = torch.where(m)\nreturn helper[idx].sum()")
    assert not any(WHERE in d for _, _, d in unproved), unproved
