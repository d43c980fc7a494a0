"""`dynlint compiles`: real TORCH_TRACE logs made here with torch.compile on CPU, Gaudi metric
files written in the documented PT_HPU_METRICS_FILE format (format fixtures: never produced on
Gaudi hardware here), torch_xla report text, and the distributed stall simulation."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dynlint.shapes import simulate_ranks, worst_case_stalls

TRAIN = textwrap.dedent("""
    import json, sys, torch, torch._dynamo
    import dynlint.compiles
    torch._dynamo.config.recompile_limit = 64
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(50, 8), torch.nn.Linear(8, 2))
    step_fn = torch.compile(model, backend="eager", dynamic=False)
    mode = sys.argv[1]
    raw = [int(n) for n in torch.randint(3, 30, (14,))]
    lengths = [5 + i for i in range(10)] if mode == "varying" else [16 if n <= 16 else 32 for n in raw]
    with dynlint.compiles.watch() as w:
        for step, length in enumerate(lengths):
            step_fn(torch.randint(0, 50, (2, length))).sum()
            w.step()
            print(f"train step {step}", file=sys.stderr)
    print(json.dumps({"lengths": lengths, "watch": w.report().to_dict()}))
""")


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """Two real runs in parallel: input length new every step, and padded to 2 buckets."""
    pytest.importorskip("torch")
    root = tmp_path_factory.mktemp("traces")
    script = root / "train.py"
    script.write_text(TRAIN)
    procs = {}
    for mode in ("varying", "buckets"):
        env = {**__import__("os").environ, "TORCH_TRACE": str(root / mode), "TORCH_LOGS": "recompiles"}
        procs[mode] = subprocess.Popen([sys.executable, str(script), mode], env=env, text=True,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = {}
    for mode, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, stderr
        (root / f"{mode}.log").write_text(stderr)
        out[mode] = {"dir": root / mode, "logs": root / f"{mode}.log", **json.loads(stdout.splitlines()[-1])}
    return out


def test_trace_length_changes_every_step_is_not_settled(dynlint, traces):
    run = traces["varying"]
    r = dynlint("compiles", run["dir"], "--format", "json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["settled"] is False and d["verdict"] == "not settled"
    assert d["compiles"] == len(set(run["lengths"])) == 10
    assert [s["compiles"] for s in d["steps"]] == [1] * 10
    assert any("size mismatch at index 1" in x["reason"] for x in d["reasons"])
    # the in-process watch() saw the same thing
    assert run["watch"]["compiles"] == d["compiles"] and run["watch"]["steps"] == d["steps"]
    text = dynlint("compiles", run["dir"]).stdout
    assert "not settled" in text and "size mismatch" in text
    assert dynlint("compiles", run["dir"], "--fail-if-not-settled").returncode == 1


def test_trace_bucketed_input_settles_after_warm_up(dynlint, traces):
    run = traces["buckets"]
    d = json.loads(dynlint("compiles", run["dir"], "--format", "json").stdout)
    first_32 = run["lengths"].index(32)
    assert d["compiles"] == 2 and d["verdict"] == "settled after warm-up" and d["settled"] is True
    assert [s["step"] for s in d["steps"] if s["compiles"]] == [0, first_32]
    assert run["watch"]["verdict"] == "settled after warm-up"


def test_torch_logs_recompiles_with_step_regex(dynlint, traces):
    run = traces["varying"]
    d = json.loads(dynlint("compiles", run["logs"], "--step-regex", r"^train step \d+",
                           "--format", "json").stdout)
    assert d["compiles"] == 10 and d["settled"] is False
    assert d["reasons"][0]["count"] == 9  # the first compile has no reason
    d = json.loads(dynlint("compiles", run["logs"], "--format", "json").stdout)
    assert d["settled"] is None and "mark_step" in d["why"]  # no steps: says how to get them


def test_join_with_shapes_points_at_dynamic_ops(dynlint, traces, tmp_path):
    run = traces["buckets"]
    # shapes as `dynlint shapes` would report them for this loader: both bucket shapes at step 0 and
    # first_32, except we claim the 32 shape was first seen at step 0: the compile then is unexplained
    shapes = {"shapes": [{"signature": "a", "count": 1, "first_step": 0}], "saturation": {"step_all": 0}}
    path = tmp_path / "shapes.json"
    path.write_text(json.dumps(shapes))
    d = json.loads(dynlint("compiles", run["dir"], "--shapes", path, "--format", "json").stdout)
    first_32 = run["lengths"].index(32)
    assert d["compiles_without_new_input_shape"] == [first_32]
    assert d["warmup"] == 1 and d["settled"] is False
    assert any("dynlint confirm" in n for n in d["notes"])


# ---- Gaudi PT_HPU_METRICS_FILE format fixtures --------------------------------------------------

def _gc(n, t, trigger, when):
    return {"metric_name": "graph_compilation", "triggered_by": trigger, "generated_on": when,
            "statistics": {"TotalNumber": n, "TotalTime": t, "AvgTime": t / n if n else 0}}


def _hpu_run(totals, trigger="mark_step"):
    """Records as the JSON writer emits them: one mark_step dump per step, then process_exit."""
    records = []
    for i, n in enumerate(totals):
        records.append(_gc(n, n * 400_000, trigger, f"2024-05-02T10:00:{i:02d}.000000"))
    records.append(_gc(totals[-1], totals[-1] * 400_000, "process_exit", "2024-05-02T10:01:00.000000"))
    records.append({"metric_name": "cpu_fallback", "triggered_by": "process_exit",
                    "generated_on": "2024-05-02T10:01:00.000000", "statistics": {"TotalNumber": 0, "FallbackOps": {}}})
    return "[" + ",\n".join(json.dumps(r) for r in records) + "]\n"


def test_hpu_json_ranks_settle_after_warm_up(dynlint, tmp_path):
    (tmp_path / "metrics-rank0.json").write_text(_hpu_run([3, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5]))
    (tmp_path / "metrics-rank1.json.1").write_text(_hpu_run([3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]))
    r = dynlint("compiles", tmp_path / "metrics-rank0.json", tmp_path / "metrics-rank1.json.1", "--format", "json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["compiles"] == 9 and d["verdict"] == "settled after warm-up"
    assert [s["compiles"] for s in d["steps"][:4]] == [6, 1, 1, 1]
    assert [f["rank"] for f in d["files"]] == [0, 1]
    assert d["compile_seconds"] == pytest.approx(9 * 0.4)


def test_hpu_json_truncated_by_a_crash_and_not_settled(dynlint, tmp_path):
    text = _hpu_run(list(range(1, 13)))
    cut = text[: text.rindex('{"metric_name": "graph_compilation", "triggered_by": "process_exit"') + 40]
    (tmp_path / "crash.json").write_text(cut)
    d = json.loads(dynlint("compiles", tmp_path / "crash.json", "--format", "json").stdout)
    assert d["compiles"] == 12 and d["settled"] is False
    assert any("truncated" in n for n in d["notes"])


def test_hpu_text_format(dynlint, tmp_path):
    blocks = []
    for i, n in enumerate([2, 2, 2, 2, 2]):
        blocks.append(f"Metric name: graph_compilation\nTriggered by: mark_step\n"
                      f"Generated on: 2024-05-02 10:00:0{i}.000000\nStatistics:\n"
                      f"\tTotalNumber: {n}\n\tTotalTime: {n * 1000}\n\tAvgTime: 1000.0\n\n")
    blocks.append("Metric name: cpu_fallback\nTriggered by: process_exit\nGenerated on: 2024-05-02 10:00:09\n"
                  "Statistics:\n\tTotalNumber: 0\n\tFallbackOps: {}\n\n")
    (tmp_path / "m.txt").write_text("".join(blocks))
    d = json.loads(dynlint("compiles", tmp_path / "m.txt", "--format", "json").stdout)
    assert d["compiles"] == 2 and d["verdict"] == "settled" and len(d["steps"]) == 5


def test_xla_reports_one_per_step(dynlint, tmp_path):
    def report(n, steps):
        return (f"Metric: CompileTime\n  TotalSamples: {n}\n  Accumulator: {n}s100ms\n"
                f"  Percentiles: 1%=001ms32.778us; 99%=01s\nCounter: UncachedCompile\n  Value: {n}\n"
                f"Counter: MarkStep\n  Value: {steps}\n")
    (tmp_path / "xla.txt").write_text("".join(report(n, i + 1) for i, n in enumerate(range(1, 9))))
    d = json.loads(dynlint("compiles", tmp_path / "xla.txt", "--format", "json").stdout)
    assert d["compiles"] == 8 and d["settled"] is False and len(d["steps"]) == 8
    (tmp_path / "one.txt").write_text(report(40, 42))
    d = json.loads(dynlint("compiles", tmp_path / "one.txt", "--format", "json").stdout)
    assert d["compiles"] == 40 and d["settled"] is False  # a compile for nearly every step


@pytest.mark.parametrize("name, content, message", [
    ("bad.json", '[{"metric_name": "graph_compilation", "statistics": {}},\n{oops}\n,{"a": 1}]\n', "bad.json:2:"),
    ("text.txt", "Metric name: graph_compilation\nsomething else\n", "text.txt:2:"),
    ("empty.json", "", "empty file"),
    ("binary.log", b"\x00\xff\xfe garbage", "not a text file"),
    ("what.txt", "hello world\n", "cannot tell the format"),
    ("trace.log", ('V1123 14:34:08.691000 1 a.py:1] {"compilation_metrics": {"compile_id": "0/0"}}\n'
                   'V1123 14:34:08.691000 1 a.py:1] {broken\nV1123 14:34:09.0 1 a.py:1] {}\n'), "trace.log:2:"),
])
def test_malformed_records_exit_2_naming_file_and_line(dynlint, tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    r = dynlint("compiles", path)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr
    assert dynlint("compiles", tmp_path / "missing.json").returncode == 2


def test_compiles_help_explains(dynlint):
    out = dynlint("compiles", "--help").stdout
    for words in ("settled after warm-up", "PT_HPU_METRICS_FILE", "TORCH_TRACE", "--shapes", "dynlint confirm"):
        assert words in out


# ---- distributed stalls ---------------------------------------------------------------------------

def test_adversarial_sequence_meets_the_bound():
    n, shapes = 3, ["A", "B", "C"]
    seqs = [["A"] for _ in range(n)]
    for s in shapes[1:]:  # each rank meets each new shape alone, on its own step
        for r in range(n):
            for q in range(n):
                seqs[q].append(s if q == r else seqs[q][-1] if seqs[q][-1] != "A" or q > r else "A")
    w = simulate_ranks(seqs)
    assert w["unique_shapes"] == 3 and w["bound"] == worst_case_stalls(3, 3) == 7
    assert w["stall_steps_per_rank_cache"] == 7 and w["stall_steps_shared_cache"] == 3


@given(st.integers(1, 5).flatmap(lambda n: st.lists(st.lists(st.integers(0, 6), min_size=1, max_size=12),
                                                    min_size=n, max_size=n)))
def test_stalls_never_exceed_the_bound(seqs):
    w = simulate_ranks(seqs)
    assert w["stall_steps_shared_cache"] <= min(w["unique_shapes"], w["stall_steps_per_rank_cache"])
    assert w["stall_steps_per_rank_cache"] <= w["bound"]
    assert sum(w["compiles_per_rank"]) == sum(len(set(s)) for s in seqs)


def test_public_modules_do_not_import_torch():
    code = ("import sys, dynlint.shapes, dynlint.compiles, dynlint.inputs.cli as c, dynlint.integrations.cli;"
            "c.shapes_parser(); c.compiles_parser(); assert 'torch' not in sys.modules, 'torch imported'")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
