"""One small model of our own per problem of issue 13, each run with the emulate and compile backends."""
from __future__ import annotations

import collections
import json
import os
import sys

import pytest

torch = pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import confirm_models as cm  # noqa: E402
from test_confirm_support import ROOT, run_cli  # noqa: E402

from dynlint.confirm.report import render_text, step_rows, to_dict
from dynlint.confirm.run import run_confirm

sys.path.insert(0, ROOT)
from examples.confirm import graph_pool  # noqa: E402

MODELS = os.path.join(HERE, "confirm_models.py")
GRAPH = os.path.join(ROOT, "examples", "confirm", "graph_pool.py")
BACKENDS = ("emulate", "compile")


def line_of(path: str, text: str) -> int:
    with open(path, encoding="utf-8") as fh:
        return next(i for i, line in enumerate(fh, 1) if text in line)


# --- 1. batches that are objects --------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_graph_batch_object_is_passed_as_is_and_the_pooling_module_is_dynamic(backend):
    model, batches = graph_pool.factory()
    result = run_confirm(model, batches, [GRAPH], backend=backend)
    assert result.dynamic_modules() == ["readout"]  # reached through the free function global_add_pool
    assert result.inconclusive_modules() == []
    (replay,) = result.replays
    assert replay.name == "readout" and not replay.errors
    verdict = result.verdict_for(GRAPH, line_of(GRAPH, "size = int(batch.max()) + 1"))
    assert verdict.verdict == "confirmed" and verdict.modules == ["readout"]


class UserBatch(collections.UserDict):
    """A Mapping that is not a dict (as transformers' BatchEncoding): keyword arguments."""


@pytest.mark.parametrize("kind", [cm.GraphBatch, cm.FrozenBatch, cm.SlotsBatch, "mapping"])
def test_any_batch_container_is_recorded_and_replayed_with_its_own_type(kind):
    batches = cm.graph_batches(cm.GraphBatch if kind == "mapping" else kind)
    if kind == "mapping":
        batches = [UserBatch(data=b) for b in batches]  # model(**batch) -> forward(data=...)
    result = run_confirm(cm.ConstantReadParent(), batches, findings=[], backend="emulate")
    # The root is replayed (its own code reads a value from the data): forward raises TypeError
    # unless the replay rebuilt the batch object with its own type.
    replays = {r.name: r for r in result.replays}
    assert set(replays) == {"", "filter"}
    assert all(not r.errors for r in replays.values()), [r.errors for r in replays.values()]
    assert result.dynamic_modules() == ["filter"]


# --- 2. a first-call cache, and a constant host read in a parent --------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_first_call_anchor_cache_is_warm_up_not_data_dependence(backend):
    model, batches = cm.anchor_factory()
    result = run_confirm(model, batches, findings=[], backend=backend)
    assert result.dynamic_modules() == [] and result.inconclusive_modules() == []
    assert result.warmup == 1
    text = render_text(result)
    assert "after 1 warm-up run(s) of batch 0" in text
    if backend == "emulate":
        assert len(result.warmup_rows) == 4 and all(r.new_in for r in result.rows)
    else:  # nothing compiled: the report says so and why
        assert "nothing was compiled" in text and "none was replayed" in text
        assert to_dict(result)["nothing_compiled"].startswith("nothing was compiled")


def test_without_warm_up_the_cache_recompile_is_inconclusive_never_dynamic():
    model, batches = cm.anchor_factory()
    result = run_confirm(model, batches, findings=[], backend="emulate", warmup=0)
    assert result.dynamic_modules() == []
    (verdict,) = result.module_verdicts
    assert verdict.name == "head" and verdict.verdict == "inconclusive"
    assert "no op of its own code changed" in verdict.reasons[0] and "--warmup" in verdict.reasons[0]
    (row,) = [r for r in result.rows if not r.new_in and r.name == "head"]
    assert row.step == 1 and not row.child_recompiled


@pytest.mark.parametrize("backend", BACKENDS)
def test_constant_host_read_in_a_parent_does_not_make_it_dynamic(backend):
    result = run_confirm(cm.ConstantReadParent(), cm.graph_batches(), findings=[], backend=backend)
    assert result.dynamic_modules() == ["filter"]
    assert result.inconclusive_modules() == []
    read = [s for s in result.sites.values() if s.line == line_of(MODELS, "graphs = int(data.batch.max()) + 1")]
    assert read and not read[0].varied  # the read ran, and gave 4 every time
    if backend == "emulate":
        root_rows = [r for r in step_rows(result) if r[1] == "(root)" and r[2] is False]
        assert root_rows and all("because a child module recompiled" in r[6] for r in root_rows)
        assert all("own code" not in r[6] for r in root_rows)
    else:  # the compiled root recompiles through its child; the report says so
        assert any("(root)" in c and "child module(s) filter" in c for c in result.cleared), result.cleared


# --- 3. perturbations that stay valid and change something ---------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_index_tensors_stay_valid_under_perturbation_and_a_single_batch_is_confirmed(backend):
    line = line_of(MODELS, "receivers = torch.unique(dst)")
    finding = {"path": MODELS, "line": line, "code": "DYN104", "scope": "EdgeScorer.forward"}
    result = run_confirm(cm.EdgeScorer(), cm.edge_batches(1), findings=[finding], backend=backend)
    (replay,) = result.replays
    assert replay.errors == []  # x[src] and index_add_ with the float batch vector never went out of range
    assert replay.seen_shape_compiles.get("perturbed", 0) > 0  # unique(dst) changed size: along E, not rows
    assert result.verdicts[0].verdict == "confirmed"
    assert result.dynamic_modules() == [""]


# --- 4. a dynamic module reached through a free function, captured from step 0 --------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_free_function_module_is_captured_from_step_0_and_both_backends_name_it(backend):
    model, batches = cm.free_factory()
    line = line_of(MODELS, "return x[x.sum(-1) > threshold]")
    finding = {"path": MODELS, "line": line, "code": "DYN101", "scope": "select_active"}
    result = run_confirm(model, batches, findings=[finding], backend=backend)
    assert result.dynamic_modules() == ["head"]
    (replay,) = result.replays
    assert replay.name == "head" and replay.captures == 4
    rows = [(r.step, r.new_in) for r in result.rows if r.name == "head"]
    assert rows[0] == (0, True) and all(not new for step, new in rows[1:])  # step 0's shape is not new later
    assert result.verdicts[0].verdict == "confirmed"


# --- 5. readability ---------------------------------------------------------------------------------

def test_shared_module_lists_every_owner_path_and_json_names_the_root_as_the_tables_do():
    model, batches = cm.free_factory()
    result = run_confirm(model, batches, findings=[], backend="emulate")
    assert result.stats["act"].paths == {"act": 4, "block.1": 4}
    text = render_text(result)
    assert "act x4, block.1 x4" in text
    data = to_dict(result)
    assert data["dynamic_modules"] == ["head"]
    summary = {row["Module"]: row for row in data["summary"]}
    assert "(root)" in summary and "" not in summary
    assert summary["act"]["Paths"] == "act x4, block.1 x4"


def test_per_module_table_puts_seen_shape_recompiles_first_and_collapses_the_rest():
    model, batches = graph_pool.factory()
    text = render_text(run_confirm(model, batches, [GRAPH], backend="emulate"))
    table = text.split("Recompilations per module\n", 1)[1]
    lines = table.splitlines()
    assert lines[2].startswith("(root)") and lines[3].startswith("readout")
    assert "5 other module(s) recompiled only for new input shapes" in lines[4]


def test_cli_graph_batch_compile_backend_keeps_compiler_noise_off_stderr(tmp_path):
    proc = run_cli([GRAPH, "--entry", "examples.confirm.graph_pool:factory", "--backend", "compile",
                    "--steps", "3", "--format", "json"])
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert data["dynamic_modules"] == ["readout"] and data["warmup_steps"] == 1
    assert "Graph break" not in proc.stderr and "torch._dynamo" not in proc.stderr
    reasons = data["replays"][0]["reasons"]
    assert any(len(r) > 120 for r in reasons)  # not cut at ~90 characters


def test_cli_model_error_names_module_and_file_line(tmp_path):
    path = tmp_path / "bad_model.py"
    path.write_text("import torch\n\n\nclass Inner(torch.nn.Module):\n    def forward(self, x):\n"
                    "        return x.view(3, -1, 7)\n\n\ndef factory():\n"
                    "    return torch.nn.Sequential(torch.nn.Linear(4, 4), Inner()), [torch.rand(2, 4)]\n")
    proc = run_cli([str(tmp_path), "--entry", f"{path}:factory", "--findings", _empty(tmp_path)])
    assert proc.returncode == 2
    assert "inside module '1'" in proc.stderr and "bad_model.py:6 in forward" in proc.stderr


def _empty(tmp_path) -> str:
    path = tmp_path / "none.json"
    path.write_text("[]")
    return str(path)
