"""Unit tests of confirm's parts: values, capture, observer, detectors, hpu adapter, reports."""
from __future__ import annotations

import collections
import csv
import io
import os
import sys
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from dynlint.confirm import backends, report
from dynlint.confirm.findings import convert, link_modules
from dynlint.confirm.observe import OBSERVED, SHAPE, SYNC, Observer
from dynlint.confirm.record import Capturer
from dynlint.confirm.run import run_confirm
from dynlint.confirm.tracker import module_names
from dynlint.confirm.values import perturb, signature, snapshot

HERE = os.path.realpath(__file__)
Pair = collections.namedtuple("Pair", "a b")


def lineno_of(func, offset: int) -> int:
    return func.__code__.co_firstlineno + offset


# --- values -------------------------------------------------------------------------------

def test_perturb_keeps_structure_shapes_dtypes_and_index_ranges():
    gen = torch.Generator().manual_seed(0)
    idx = torch.arange(50).reshape(10, 5)
    mask = torch.rand(10, 5, generator=gen) > 0.5
    data = {"x": torch.rand(10, 5), "pair": Pair(idx, [mask, 3]), "one": torch.tensor([7])}
    out = perturb(data, gen)
    assert signature(out) == signature(data)
    assert isinstance(out["pair"], Pair) and out["pair"].b[1] == 3
    assert not torch.equal(out["x"], data["x"])
    moved = out["pair"].a
    assert not torch.equal(moved, idx)
    for col in range(5):  # resampled along the longest dimension, among the values seen there
        assert set(moved[:, col].tolist()) <= set(idx[:, col].tolist())
    assert out["pair"].b[0].dtype == torch.bool and out["pair"].b[0].sum() != mask.sum()  # flipped, new count
    assert torch.equal(out["one"], data["one"])
    xy = torch.rand(30, 2, generator=gen) * 100
    boxes = torch.cat([xy, xy + 1 + torch.rand(30, 2, generator=gen)], 1)
    moved = perturb(boxes, gen)
    assert not torch.equal(moved, boxes) and bool((moved[:, 2:] > moved[:, :2]).all())  # still valid boxes


def test_perturb_keeps_graph_indices_valid_and_changes_what_they_count():
    gen = torch.Generator().manual_seed(1)
    batch = torch.tensor([0] * 5 + [1] * 3 + [2] * 4 + [3] * 4)  # node -> graph, sorted
    edge_index = torch.stack([torch.randint(16, (40,), generator=gen), torch.randint(16, (40,), generator=gen)])
    ptr = torch.tensor([0, 5, 8, 12, 16])
    rois = torch.cat([torch.tensor([[0.0], [1.0], [1.0], [0.0]]), torch.rand(4, 4, generator=gen) * 9 + 1], 1)
    new_batch, new_edges, new_ptr, new_rois = perturb((batch, edge_index, ptr, rois), gen)
    assert bool((new_batch[1:] >= new_batch[:-1]).all()) and set(new_batch.tolist()) == {0, 1, 2, 3}
    assert not torch.equal(torch.bincount(new_batch), torch.bincount(batch))  # new graph sizes
    for row in range(2):  # along E, never swapping the two rows
        assert set(new_edges[row].tolist()) <= set(edge_index[row].tolist())
    degree = torch.bincount(edge_index[1], minlength=16)
    assert new_edges.shape == (2, 40) and not torch.equal(torch.bincount(new_edges[1], minlength=16), degree)
    assert torch.equal(new_ptr, ptr)  # offsets are structure, kept
    assert set(new_rois[:, 0].tolist()) <= {0.0, 1.0}  # the batch-index column keeps whole numbers
    assert not torch.equal(new_rois[:, 1:].sort(0).values, rois[:, 1:].sort(0).values)


def test_snapshot_is_detached_from_later_in_place_updates():
    x = torch.ones(3, requires_grad=True)
    snap = snapshot(([x],))
    with torch.no_grad():
        x.add_(1)
    assert torch.equal(snap[0][0], torch.ones(3)) and not snap[0][0].requires_grad


# --- capture --------------------------------------------------------------------------------

class _Tracker:
    step = 0


def test_capturer_bounds_count_prefers_new_shapes_and_caps_bytes():
    obs = Observer([])
    cap = Capturer({"m"}, per_module=2, max_bytes=10_000, observer=obs)
    for n in (4, 4, 4, 6):
        cap("m", None, (torch.zeros(n),), {}, _Tracker)
    cap("other", None, (torch.zeros(4),), {}, _Tracker)
    shapes = [c.args[0].shape[0] for c in cap.kept["m"]]
    assert shapes == [4, 6] and "other" not in cap.kept
    cap("m", None, (torch.zeros(8),), {}, _Tracker)  # no duplicate left to replace
    assert [c.args[0].shape[0] for c in cap.kept["m"]] == [4, 6]
    fair = Capturer({"a", "b"}, per_module=4, max_bytes=4 * 400, observer=obs)
    for n in range(4):
        fair("a", None, (torch.zeros(100 + n),), {}, _Tracker)  # 400+ bytes each: the cap is hit
    fair("b", None, (torch.zeros(100),), {}, _Tracker)
    assert len(fair.kept["b"]) == 1 and len(fair.kept["a"]) == 2  # "a" gave up its later snapshots
    assert fair.bytes <= 4 * 400 and fair.dropped_for_memory["a"] >= 1
    big = Capturer({"m"}, per_module=4, max_bytes=100, observer=obs)
    big("m", None, (torch.zeros(1000),), {}, _Tracker)
    assert big.kept["m"] == [] and big.dropped_for_memory == {"m": 1}


# --- observer -------------------------------------------------------------------------------

class _Frame:
    def __init__(self):
        self.name, self.tokens, self.sites = "f", [], []


def _observe(fn, *args, times=1):
    frame = _Frame()
    obs = Observer([frame], cover_paths={HERE})
    for _ in range(times):
        with obs:
            fn(*args)
    return obs


def masks(x):
    return x[x > 0.5], x[torch.tensor([0, 1])]


def test_observer_attributes_mask_indexing_to_the_user_line_and_ignores_integer_indexing():
    obs = _observe(masks, torch.rand(50))
    (site,) = obs.sites.values()
    assert (site.path, site.line, site.kind) == (HERE, lineno_of(masks, 1), SHAPE)
    assert site.op == "aten.index.Tensor"
    assert (HERE, lineno_of(masks, 1)) in obs.covered


def syncs(x):
    for c in (0.25, 0.5):
        float(torch.tensor(c).log2())  # constants: one value per loop turn, the same every call
    return float(x.sum())  # data: a new value every call


def test_host_syncs_vary_only_when_the_same_call_returns_something_else():
    frame = _Frame()
    obs = Observer([frame], cover_paths={HERE})
    for _ in range(3):
        frame.sites = []  # a new module call
        with obs:
            syncs(torch.rand(10))
    by_line = {s.line: s for s in obs.sites.values()}
    constant, data = by_line[lineno_of(syncs, 2)], by_line[lineno_of(syncs, 3)]
    assert constant.kind == data.kind == SYNC
    assert not constant.varied and constant.calls == 6
    assert data.varied


def nms_call(boxes, scores):
    import torchvision
    return torchvision.ops.nms(boxes, scores, 0.5)


def test_untagged_ops_are_caught_when_equal_inputs_give_unequal_shapes():
    pytest.importorskip("torchvision")
    gen = torch.Generator().manual_seed(0)

    def boxes():
        xy = torch.rand(40, 2, generator=gen) * 50
        return torch.cat([xy, xy + 10 + torch.rand(40, 2, generator=gen) * 20], 1)

    frame = _Frame()
    obs = Observer([frame], cover_paths={HERE})
    with obs:
        for _ in range(6):
            nms_call(boxes(), torch.rand(40, generator=gen))
    (site,) = [s for s in obs.sites.values() if "nms" in s.op]
    assert site.kind == OBSERVED and site.varied
    # torchvision is not torch: its own line is the innermost user frame
    assert site.path.endswith(os.path.join("torchvision", "ops", "boxes.py"))


def test_observer_pause_hides_our_own_ops():
    frame = _Frame()
    obs = Observer([frame])
    with obs:
        obs.paused += 1
        torch.rand(4).clone()
        obs.paused -= 1
        torch.rand(4).clone()
    assert len(frame.tokens) == 2  # rand + clone, once


# --- linking findings to modules ------------------------------------------------------------

class Base(torch.nn.Module):
    def forward(self, x):
        return x[x > 0]


class Derived(Base):
    pass


class Holder(torch.nn.Module):
    class Nested(torch.nn.Module):
        def forward(self, x):
            return x.nonzero()

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = Derived(), Holder.Nested(), torch.nn.ReLU()


def test_findings_link_to_subclasses_and_nested_classes():
    names = module_names(Holder())
    found = [convert({"path": HERE, "line": lineno_of(Base.forward, 1), "scope": "Base.forward"}),
             convert({"path": HERE, "line": lineno_of(Holder.Nested.forward, 1), "scope": "Holder.Nested.forward"}),
             convert({"path": HERE, "line": 1, "scope": "Basement.forward"})]
    linked = link_modules(names, found)
    assert set(linked) == {"a", "b", ""}  # the root Holder holds the Nested finding too
    assert linked["a"] == [found[0]] and linked["b"] == [found[1]]


def test_core_finding_objects_are_accepted():
    finding_mod = pytest.importorskip("dynlint.finding")
    f = finding_mod.Finding("x.py", 3, 5, 3, 9, "DYN101", "boolean-mask-index", "msg", scope="A.forward")
    sf = convert(f)
    assert (sf.line, sf.end_line, sf.column, sf.scope) == (3, 3, 5, "A.forward")
    assert sf.path == os.path.realpath("x.py")


# --- the emulated cache ---------------------------------------------------------------------

class Child(torch.nn.Module):
    def forward(self, x):
        return x[x > 0.5]


class Parent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.child = Child()

    def forward(self, x):
        return self.child(x).sum()


def test_parent_recompiles_through_its_child_and_is_not_called_dynamic():
    batches = [torch.linspace(0, 1, 64), torch.linspace(0, 1, 64) ** 2]  # 32, then 19 values above 0.5
    result = run_confirm(Parent(), batches, findings=[])
    rows = [(r[0], r[1], r[6]) for r in report.step_rows(result)]
    assert rows[2:] == [(1, "child", rows[2][2]), (1, "(root)", rows[3][2])]
    assert "own code" in rows[2][2] and "child" in rows[3][2]
    assert result.dynamic_modules() == ["child"]


# --- the hpu adapter, against a fake habana_frameworks -----------------------------------------

class FakeGaudi:
    """Compiles a 'graph' (the ops queued since the last mark_step) the first time it sees it."""

    def __init__(self, lazy=True):
        self.queued, self.cache, self.total, self.marks, self.lazy = [], set(), 0, 0, lazy

    def mark_step(self):
        self.marks += 1
        key = tuple(self.queued)
        if key and key not in self.cache:
            self.cache.add(key)
            self.total += 1
        self.queued = []

    def install(self, monkeypatch):
        def module(name, **attrs):
            mod = types.ModuleType(name)
            mod.__dict__.update(attrs)
            monkeypatch.setitem(sys.modules, name, mod)
            return mod

        metric = types.SimpleNamespace(stats=lambda: [["TotalNumber", self.total], ["TotalTime", 0]])
        core = module("habana_frameworks.torch.core", mark_step=self.mark_step)
        metrics = module("habana_frameworks.torch.hpu.metrics", metric_global=lambda name: metric)
        internal = module("habana_frameworks.torch.utils.internal", is_lazy=lambda: self.lazy)
        hpu = module("habana_frameworks.torch.hpu", metrics=metrics)
        utils = module("habana_frameworks.torch.utils", internal=internal)
        htorch = module("habana_frameworks.torch", core=core, hpu=hpu, utils=utils)
        module("habana_frameworks", torch=htorch)


GAUDI = FakeGaudi()


class StaticLeaf(torch.nn.Module):
    def forward(self, x):
        GAUDI.queued.append(("static", tuple(x.shape)))
        return x * 2


class DynamicLeaf(torch.nn.Module):
    def forward(self, x):
        GAUDI.queued.append(("dynamic", int((x > 0.5).sum())))
        return x + 1


def test_hpu_backend_counts_graph_compilations_per_module_call(monkeypatch):
    global GAUDI
    GAUDI = FakeGaudi()
    GAUDI.install(monkeypatch)
    assert backends.habana_available()
    backend = backends.get_backend("auto")
    assert backend.name == "hpu"
    backend.device = None  # there is no real hpu device to move tensors to
    model = torch.nn.Sequential(StaticLeaf(), DynamicLeaf())
    batches = [torch.cat([torch.ones(k), torch.zeros(32 - k)]) for k in (5, 9, 13)]  # same shape, new counts
    result = run_confirm(model, batches, findings=[], backend=backend)
    rows = [(r[0], r[1], r[2], r[6]) for r in report.step_rows(result)]
    # The warm-up run of batch 0 compiled every module; the device keeps those graphs, so step 0
    # compiles nothing.  A parent's count includes its children's compilations, as on the device.
    assert [(r.name, r.new_in) for r in result.warmup_rows] == [("0", True), ("1", True), ("", True)]
    assert [r[:3] for r in rows] == [(1, "1", False), (1, "(root)", False), (2, "1", False), (2, "(root)", False)]
    assert "child" in rows[1][3] and "child" not in rows[0][3]
    assert result.dynamic_modules() == ["1"]
    assert GAUDI.marks >= 2 * 3 * 4  # around each of 3 module calls, for the warm-up and 3 steps


def test_hpu_backend_refuses_to_run_outside_lazy_mode(monkeypatch):
    FakeGaudi(lazy=False).install(monkeypatch)
    from dynlint.confirm.hpu import HpuUnavailable

    with pytest.raises(HpuUnavailable, match="PT_HPU_LAZY_MODE=1"):
        backends.get_backend("hpu")


def test_auto_is_emulate_without_habana(monkeypatch):
    monkeypatch.setitem(sys.modules, "habana_frameworks", None)  # makes the import fail
    assert backends.get_backend("auto").name == "emulate"


# --- reports and the API surface ---------------------------------------------------------------

def test_csv_cells_with_commas_quotes_and_newlines_round_trip():
    rows = [[0, "a,b", 'say "hi"', "two\nlines", True]]
    text = report.to_csv(["n", "c", "q", "nl", "b"], rows)
    back = list(csv.reader(io.StringIO(text)))
    assert back == [["n", "c", "q", "nl", "b"], ["0", "a,b", 'say "hi"', "two\nlines", "True"]]


def test_dynlint_confirm_is_callable_as_a_module():
    import dynlint
    import dynlint.confirm

    result = dynlint.confirm(torch.nn.Linear(2, 2), [torch.rand(1, 2)], findings=[], steps=1)
    assert result.steps == 1 and result.exit_code == 0
    assert dynlint.confirm.run_confirm is not None and dynlint.confirm.ConfirmResult is type(result)


def test_the_callers_random_state_survives_a_run():
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    run_confirm(Parent(), [torch.linspace(0, 1, 64)], findings=[{"path": HERE, "line": lineno_of(Child.forward, 1),
                                                                 "scope": "Child.forward"}])
    assert torch.equal(torch.rand(3), expected)


# --- perturbation properties ------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 6), min_size=1, max_size=8), rows=st.integers(1, 3),
       cols=st.integers(1, 30), seed=st.integers(0, 2**16))
def test_perturbed_indices_stay_valid_for_what_they_index(sizes, rows, cols, seed):
    gen = torch.Generator().manual_seed(seed)
    batch = torch.repeat_interleave(torch.arange(len(sizes)), torch.tensor(sizes))
    index = torch.randint(int(batch.numel()), (rows, cols), generator=gen)
    mask = torch.rand(rows, cols, generator=gen) > 0.5
    new_batch, new_index, new_mask = perturb((batch, index, mask), gen)
    assert signature((new_batch, new_index, new_mask)) == signature((batch, index, mask))
    # a batch vector stays sorted and names the same graphs, each still non-empty
    assert bool((new_batch[1:] >= new_batch[:-1]).all())
    assert torch.equal(torch.unique(new_batch), torch.unique(batch))
    # an index stays within what it indexes, and along its longest dimension keeps its slice's values
    assert int(new_index.min()) >= 0 and int(new_index.max()) < batch.numel()
    dim = max(range(2), key=lambda d: index.shape[d])
    for i in range(index.shape[1 - dim]):
        old = index.select(1 - dim, i)
        assert set(new_index.select(1 - dim, i).tolist()) <= set(old.tolist())
