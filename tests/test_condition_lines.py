"""A condition spread over lines is reported on the line Python runs its host read on (the
`if`/`while`/`assert` line for a call operand, a comparison's own line), so that
`dynlint confirm`'s runtime sites land on the static findings. Checked against the real
runtime: `run_confirm` (emulate backend) records the lines where `.any()`/comparisons of
tensors synchronised, and every one of them must fall on a finding."""
from __future__ import annotations

import importlib.util
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

from dynlint.confirm.run import run_confirm  # noqa: E402

MODEL = textwrap.dedent("""\
    import torch


    class Gate(torch.nn.Module):
        def forward(self, x):
            if (
                (x < -10).any()
                or (x > 10).any()
            ):
                x = x.clamp(-10, 10)
            n = 0
            while (
                (x > 0).sum() > n
            ) and n < 2:
                n += 1
            ok = [i for i in range(2)
                  if (
                      x[i].any()
                  )]
            assert (
                torch.isfinite(x).all()
            ), "non-finite"
            return x * len(ok) + n
    """)


@pytest.mark.skipif(sys.version_info[:2] != (3, 11),
                    reason="the line table rules modelled are CPython 3.11's")
def test_every_runtime_site_of_a_multiline_condition_falls_on_a_finding(tmp_path):
    path = tmp_path / "gate.py"
    path.write_text(MODEL, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("gate_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    batches = [torch.randn(4, 3) * s for s in (1.0, 20.0, 3.0)]
    result = run_confirm(module.Gate(), batches, [str(path)], backend="emulate")
    lines = {f.line for f in result.findings if f.code == "DYN204"}
    # `if (` (6), `(x > 0).sum() > n` (13), the comprehension's start (16), `assert (` (20).
    assert {6, 13, 16, 20} <= lines, sorted(lines)
    ran = {s.line for s in result.sites.values() if s.path.endswith("gate.py")}
    assert ran and ran <= lines, (sorted(ran), sorted(lines))
    assert result.misses == [], result.misses     # no runtime site outside a finding


EXPLICIT = textwrap.dedent("""\
    import torch


    class Check(torch.nn.Module):
        def forward(self, x, ref, k: int):
            if k > 0 and not (
                torch.allclose(x, ref)
                and torch.equal(x, ref)
            ):
                x = x + 1
            if (k >= 1 and
                    bool(x.mean() < 100.0)):
                x = x * 2
            return x
    """)


@pytest.mark.skipif(sys.version_info[:2] != (3, 11),
                    reason="the line table rules modelled are CPython 3.11's")
def test_an_explicit_read_inside_a_multiline_condition_is_reported_on_its_own_line(tmp_path):
    """`bool(t)`, `torch.allclose(...)` read inside their own call, so the finding is on the
    call's line, not moved to the `if` as a truth-tested operand is."""
    path = tmp_path / "check.py"
    path.write_text(EXPLICIT, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("check_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = torch.ones(3)
    result = run_confirm(module.Check(), [(x, x.clone(), 2)], [str(path)], backend="emulate")
    found = {(f.code, f.line) for f in result.findings}
    assert {("DYN208", 7), ("DYN208", 8), ("DYN203", 12)} <= found, sorted(found)
    assert not {line for code, line in found if line in (6, 11)}, sorted(found)
    ran = {s.line for s in result.sites.values() if s.path.endswith("check.py")}
    assert {7, 8, 12} <= ran, sorted(ran)
    assert result.misses == [], result.misses
