"""Robustness: every bad input gives a clear message, a defined exit code, and no hang."""
from __future__ import annotations

import itertools
import os
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_confirm_support import EXAMPLES, run_cli

from dynlint.confirm.findings import ConfirmError
from dynlint.confirm.record import ModelError
from dynlint.confirm.run import run_confirm

HERE = os.path.abspath(__file__)


def finding_at(line: int, scope: str, path: str = HERE) -> dict:
    return {"path": path, "line": line, "column": 1, "code": "DYN101", "name": "t", "message": "t",
            "severity": "error", "scope": scope}


class Exploding(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.nn.Sequential(torch.nn.Linear(4, 4), Boom())

    def forward(self, x):
        return self.inner(x)


class Boom(torch.nn.Module):
    def forward(self, x):
        raise ValueError("boom from the user's forward")


def test_model_that_raises_names_the_module_and_the_error():
    with pytest.raises(ModelError) as info:
        run_confirm(Exploding(), [torch.rand(2, 4)], findings=[])
    text = str(info.value)
    assert "step 0" in text and "'inner.1'" in text and "ValueError: boom" in text
    assert f"test_confirm_robust.py:{Boom.forward.__code__.co_firstlineno + 1} in forward" in text


@pytest.mark.parametrize("batches, expected", [
    ([1, 2, 3], "batch 0 holds no tensor (got int"),
    ([("a", "b")], "batch 0 holds no tensor (got tuple"),
    (torch.rand(3, 4), "single Tensor"),
    (42, "batches must be iterable"),
    ([], "batches is empty"),
    ([{1: torch.rand(2, 4)}], "non-string keys"),
])
def test_bad_batches_are_refused_with_a_clear_message(batches, expected):
    with pytest.raises(ConfirmError, match=None) as info:
        run_confirm(torch.nn.Linear(4, 4), batches, findings=[])
    assert expected in str(info.value)


def test_a_generator_that_fails_is_reported():
    def batches():
        yield torch.rand(2, 4)
        raise OSError("disk gone")

    with pytest.raises(ConfirmError, match="producing batch 1 raised OSError: disk gone"):
        run_confirm(torch.nn.Linear(4, 4), batches(), findings=[], steps=3)


def test_steps_bound_an_endless_iterator():
    result = run_confirm(torch.nn.Linear(4, 4), itertools.repeat(torch.rand(2, 4)), findings=[], steps=3)
    assert result.steps == 3
    assert result.stats[""].calls == 3


def test_no_findings_still_runs_and_lists_the_ops_as_misses():
    class Masked(torch.nn.Module):
        def forward(self, x):
            return x[x > 0.5].sum()

    batches = [torch.linspace(0, 1, 64).reshape(8, 8), torch.linspace(0, 1, 64).reshape(8, 8) ** 2]
    result = run_confirm(Masked(), batches, findings=[])  # 32, then 19 values above 0.5
    assert result.verdicts == [] and result.exit_code == 0
    assert any("no static findings" in n for n in result.notes)
    (miss,) = result.misses
    assert miss["location"].endswith(f"{os.path.basename(HERE)}:{Masked.forward.__code__.co_firstlineno + 1}")
    assert miss["op"] == "index" and miss["varied"] and not miss["in_scanned_paths"]


class Nest(torch.nn.Module):
    def __init__(self, depth: int):
        super().__init__()
        self.inner = Nest(depth - 1) if depth > 1 else None
        self.depth = depth

    def forward(self, x):
        if self.inner is not None:
            x = self.inner(x)
        return x * 2 if self.depth > 1 else x[x > 0.5]  # the innermost one is data-dependent


def _nest(depth: int):
    # Built without recursion: nn.Module construction recurses like the forward does.
    mod = Nest(1)
    for d in range(2, depth + 1):
        outer = Nest.__new__(Nest)
        torch.nn.Module.__init__(outer)
        outer.inner, outer.depth = mod, d
        mod = outer
    return mod


def test_very_deep_model_runs_without_recursion_errors():
    depth = 500
    model = _nest(depth)
    mask_line = Nest.forward.__code__.co_firstlineno + 3
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 12 * depth))  # the model's own forward needs it, eager or not
    try:
        batches = [torch.linspace(0, 1, 64), torch.linspace(0, 1, 64) ** 2]  # different counts above 0.5
        result = run_confirm(model, batches, findings=[finding_at(mask_line, "Nest.forward")], max_replays=4)
    finally:
        sys.setrecursionlimit(old)
    assert result.verdicts[0].verdict == "confirmed"
    deepest = ".".join(["inner"] * (depth - 1))
    assert deepest in result.dynamic_modules()
    assert len(result.replays) == 4 and result.replays[0].name == deepest
    assert any("not replayed" in n for n in result.notes)


def test_deep_model_over_the_recursion_limit_is_a_clear_model_error():
    model = _nest(2000)
    with pytest.raises(ModelError, match="RecursionError"):
        run_confirm(model, [torch.rand(8)], findings=[])


def test_wide_model_with_a_thousand_layers():
    model = torch.nn.Sequential(*[torch.nn.Linear(8, 8) for _ in range(1000)])
    result = run_confirm(model, [torch.rand(2, 8)] * 2, findings=[])
    assert len(result.stats) == 1001 and all(s.recompiles == 1 for s in result.stats.values())


class DistinctOnly(torch.nn.Module):
    def forward(self, idx):
        if torch.unique(idx).numel() != idx.numel():
            raise ValueError("indices must be distinct")
        return idx * 2


def test_a_replay_that_raises_is_an_error_and_no_verdict_rests_on_it():
    line = DistinctOnly.forward.__code__.co_firstlineno + 1
    result = run_confirm(DistinctOnly(), [torch.randperm(10)], findings=[finding_at(line, "DistinctOnly.forward")])
    (replay,) = result.replays
    assert any("perturbed replay of step 0 raised ValueError: indices must be distinct" in e
               and f"test_confirm_robust.py:{line + 1}" in e for e in replay.errors), replay.errors
    (verdict,) = result.verdicts
    assert verdict.verdict == "inconclusive" and "indices must be distinct" in verdict.evidence
    assert result.dynamic_modules() == [] and result.inconclusive_modules() == [""]
    assert not any(site.varied for site in result.sites.values())  # the broken replay's ops were discarded


def _write_factory(tmp_path, body: str) -> str:
    path = tmp_path / "factory_mod.py"
    path.write_text(textwrap.dedent(body))
    return str(path)


def test_cli_factory_that_cannot_be_imported_exits_2(tmp_path):
    proc = run_cli([EXAMPLES, "--entry", "no_such_package.models:factory", "--findings", _empty(tmp_path)])
    assert proc.returncode == 2
    assert "cannot import 'no_such_package.models'" in proc.stderr and "ModuleNotFoundError" in proc.stderr


def test_cli_factory_file_with_a_syntax_error_exits_2(tmp_path):
    path = _write_factory(tmp_path, "def factory(:\n")
    proc = run_cli([EXAMPLES, "--entry", f"{path}:factory", "--findings", _empty(tmp_path)])
    assert proc.returncode == 2 and "SyntaxError" in proc.stderr


def test_cli_model_that_raises_exits_2(tmp_path):
    path = _write_factory(tmp_path, """
        import torch
        class Bad(torch.nn.Module):
            def forward(self, x):
                raise RuntimeError("shape mismatch in user code")
        def factory():
            return Bad(), [torch.rand(2)]
    """)
    proc = run_cli([str(tmp_path), "--entry", f"{path}:factory", "--findings", _empty(tmp_path)])
    assert proc.returncode == 2
    assert "the model raised at step 0" in proc.stderr and "shape mismatch in user code" in proc.stderr


def test_cli_factory_returning_the_wrong_thing_exits_2(tmp_path):
    path = _write_factory(tmp_path, "def factory():\n    return 'model'\n")
    proc = run_cli([str(tmp_path), "--entry", f"{path}:factory", "--findings", _empty(tmp_path)])
    assert proc.returncode == 2 and "must return (model, batches)" in proc.stderr


def test_cli_usage_errors_exit_2(tmp_path):
    assert run_cli([EXAMPLES]).returncode == 2  # --entry missing
    proc = run_cli([EXAMPLES, "--entry", "no-colon", "--findings", _empty(tmp_path)])
    assert proc.returncode == 2 and "--entry must look like" in proc.stderr
    proc = run_cli([EXAMPLES, "--entry", "examples.confirm.toy_static:factory", "--steps", "0"])
    assert proc.returncode == 2 and "--steps" in proc.stderr


def test_cli_hpu_backend_without_gaudi_exits_2(tmp_path):
    proc = run_cli([EXAMPLES, "--entry", "examples.confirm.toy_static:factory", "--backend", "hpu",
                    "--findings", _empty(tmp_path)])
    assert proc.returncode == 2 and "the hpu backend needs habana_frameworks" in proc.stderr


def _empty(tmp_path) -> str:
    path = tmp_path / "none.json"
    path.write_text("[]")
    return str(path)


def test_no_hooks_are_left_behind_after_success_or_failure():
    model = Exploding()
    with pytest.raises(ModelError):
        run_confirm(model, [torch.rand(2, 4)], findings=[])
    ok = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    run_confirm(ok, [torch.rand(2, 4)], findings=[])
    for root in (model, ok):
        for mod in root.modules():
            assert not mod._forward_hooks and not mod._forward_pre_hooks
    assert torch.nn.Linear(4, 4)(torch.rand(1, 4)).shape == (1, 4)  # and no dispatch mode is left active
    from torch.utils._python_dispatch import _get_current_dispatch_mode

    assert _get_current_dispatch_mode() is None
