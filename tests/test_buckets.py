"""dynlint.buckets: exactness against brute force, the guides' percentile method, padding
order between methods, and the CLI through a subprocess."""
import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dynlint.buckets as bk
from dynlint.inputs.histogram import Histogram


def brute_force(hist, k, cost="linear", candidates=None):
    """Every boundary set of size <= k drawn from the candidates (default: observed lengths)
    that holds the longest item: the minimum padding cost."""
    cands = sorted(set(candidates or hist.values))
    top = next(c for c in cands if c >= hist.longest)
    rest = [c for c in cands if c < top]
    best = None
    for r in range(min(k - 1, len(rest)) + 1):
        for combo in itertools.combinations(rest, r):
            b = bk.evaluate(hist, [*combo, top], cost=cost)
            best = b.objective if best is None else min(best, b.objective)
    return best


histograms = st.lists(st.tuples(st.integers(1, 60), st.integers(1, 6)), min_size=1, max_size=9)


@settings(max_examples=150, deadline=None)
@given(histograms, st.integers(1, 10), st.sampled_from(["linear", "quadratic"]))
def test_optimal_equals_brute_force(pairs, k, cost):
    hist = Histogram.from_pairs(pairs)
    got = bk.optimal(hist, k, cost=cost)
    assert got.objective == brute_force(hist, k, cost)
    assert got.boundaries == sorted(set(got.boundaries))
    assert got.boundaries[-1] == hist.longest
    assert set(got.boundaries) <= set(hist.values)          # observed lengths only
    assert len(got.boundaries) <= k


@settings(max_examples=100, deadline=None)
@given(histograms, st.integers(1, 6), st.integers(2, 16))
def test_optimal_multiple_of_is_exact_over_the_grid(pairs, k, m):
    hist = Histogram.from_pairs(pairs)
    got = bk.optimal(hist, k, multiple_of=m)
    assert all(b % m == 0 for b in got.boundaries)
    grid = range(m, -(-hist.longest // m) * m + 1, m)
    assert got.waste == brute_force(hist, k, candidates=list(grid))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 400), st.integers(1, 30)), min_size=1, max_size=60),
       st.integers(1, 40), st.sampled_from(["linear", "quadratic"]))
def test_divide_and_conquer_equals_the_quadratic_dp(pairs, k_max, cost):
    hist = Histogram.from_pairs(pairs)
    fast = bk.solve(hist.values, hist.counts, k_max, cost)
    for k in range(1, k_max + 1):
        objective, _ = bk.solve_reference(hist.values, hist.counts, k, cost)
        assert fast.objective[k - 1] == objective


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 300), min_size=1, max_size=200), st.integers(1, 16),
       st.sampled_from(["linear", "quadratic"]))
def test_optimal_never_pads_more_than_percentile(lengths, batch, cost):
    # every K, per sample and per batch (random batches padded to their longest item)
    for hist in (Histogram.from_lengths(lengths), bk.batch_maxima(lengths, batch, seed=batch)):
        curve = bk.optimal_all(hist, 40, cost=cost)
        worst = bk.pad_to_max(lengths, evaluate_on=hist, cost=cost)
        for k in range(1, 41):
            pct = bk.percentile(lengths, k, evaluate_on=hist, cost=cost)
            uni = bk.uniform(lengths, k, evaluate_on=hist, cost=cost)
            assert curve[k - 1].objective <= pct.objective <= worst.objective
            assert curve[k - 1].objective <= uni.objective
            if cost == "linear":
                assert curve[k - 1].waste <= pct.waste


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5000), min_size=1, max_size=300), st.integers(1, 64))
def test_percentile_reproduces_the_guides_numpy_recipe(lengths, k):
    # The guides' recipe: np.unique(np.percentile(sizes, np.linspace(0, 100, K + 1),
    # "lower")[1:]), here with numpy's current keyword for the same rule.
    expected = np.unique(np.percentile(lengths, np.linspace(0, 100, k + 1), method="lower")[1:])
    assert bk.percentile(lengths, k).boundaries == expected.tolist()


def test_worked_example_from_the_bucketing_study():
    lengths = [3, 3, 4, 5, 5, 5, 6, 7, 8, 8]
    assert bk.evaluate(Histogram.from_lengths(lengths), [5, 7, 8]).waste == 6
    assert bk.pad_to_max(lengths).waste == 26
    assert bk.percentile(lengths, 3).boundaries == [5, 6, 8]
    assert bk.percentile(lengths, 3).waste == 6          # 1+1+2 on {3,3,4} + 1 on 7 + 0
    best = bk.optimal(lengths, 3)
    assert (best.boundaries, best.waste) == ([3, 5, 8], 4)
    assert best.waste_fraction == pytest.approx(4 / 58)


def test_waste_falls_with_k_and_vanishes_at_u():
    rng = np.random.default_rng(3)
    lengths = rng.integers(1, 200, size=500).tolist()
    curve = bk.optimal_all(lengths, 40)
    wastes = [b.waste for b in curve]
    assert wastes == sorted(wastes, reverse=True) and wastes[0] > wastes[-1]
    u = len(set(lengths))
    assert bk.optimal(lengths, u).waste == 0
    assert bk.optimal(lengths, u + 5).boundaries == sorted(set(lengths))


def test_quadratic_cost_weights_long_padding_more():
    # Linear: padding 5 items 20 -> 100 (400) beats 50 items 10 -> 20 (500). Quadratic
    # (attention): 5 * (100^2 - 20^2) = 48,000 is far worse than 50 * (20^2 - 10^2) = 15,000.
    lengths = [10] * 50 + [20] * 5 + [90] * 3 + [100] * 2
    lin, quad = bk.optimal(lengths, 2), bk.optimal(lengths, 2, cost="quadratic")
    assert lin.boundaries == [10, 100] and lin.waste == 430
    assert quad.boundaries == [20, 100] and quad.objective == 20700
    assert quad.objective == brute_force(Histogram.from_lengths(lengths), 2, "quadratic")
    assert quad.objective < bk.evaluate(Histogram.from_lengths(lengths), lin.boundaries,
                                        cost="quadratic").objective


def test_grid_methods():
    lengths = [3, 5, 9, 17, 17, 33]
    assert bk.pow2(lengths).boundaries == [4, 8, 16, 32, 64]
    assert bk.pow2(lengths, 2).boundaries == [32, 64]
    assert bk.multiple(lengths, None, 8).boundaries == [8, 16, 24, 40]
    assert bk.uniform(lengths, 3).boundaries == [13, 23, 33]
    assert bk.pad_to_max(lengths).boundaries == [33]


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="K must be"):
        bk.optimal([1, 2], 0)
    with pytest.raises(ValueError, match="empty"):
        bk.optimal([], 2)
    with pytest.raises(ValueError, match="not a length"):
        bk.percentile([1, -3], 2)


def test_batch_maxima_weigh_each_batch_by_its_size():
    hist = bk.batch_maxima([1, 5, 2, 2, 9], 2, shuffle=False)
    assert (hist.values, hist.counts) == ((2, 5, 9), (2, 2, 1))


# -- CLI ---------------------------------------------------------------------------------

def test_cli_json(dynlint, tmp_path):
    f = tmp_path / "lengths.txt"
    f.write_text("# a comment\n3\n3\n4\n5\n5\n5\n6\n7\n8 2\n")
    r = dynlint("buckets", "--lengths", f, "-k", "3", "--format", "json", "--no-cache")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["boundaries"] == [3, 5, 8] and doc["waste"] == 4 and doc["method"] == "optimal"
    assert doc["input"]["items"] == 10
    rec = doc["recommendation"]
    assert set(rec["inputs"]) == {"compile_seconds", "token_seconds", "epochs", "world_size"}
    assert rec["k"] in range(1, 33)

    r = dynlint("buckets", "--lengths", f, "-k", "2,3", "--method", "percentile,optimal",
                "--format", "json", "--no-cache")
    rows = {(x["method"], x["k"]): x for x in json.loads(r.stdout)["results"]}
    assert rows[("percentile", 3)]["boundaries"] == [5, 6, 8]
    assert rows[("optimal", 2)]["waste"] <= rows[("percentile", 2)]["waste"]


def test_cli_cost_model_inputs_change_the_recommendation(dynlint, tmp_path):
    f = tmp_path / "l.json"
    f.write_text(json.dumps({"lengths": list(range(1, 300)) * 20}))
    cheap = dynlint("buckets", "--lengths", f, "--format", "json", "--no-cache",
                    "--compile-seconds", "0.001", "--epochs", "10")
    dear = dynlint("buckets", "--lengths", f, "--format", "json", "--no-cache",
                   "--compile-seconds", "600", "--world-size", "8")
    k_cheap = json.loads(cheap.stdout)["recommendation"]["k"]
    k_dear = json.loads(dear.stdout)["recommendation"]["k"]
    assert k_cheap > k_dear >= 1
    text = dynlint("buckets", "--lengths", f, "--no-cache", "--method", "all", "-k", "4")
    assert "recommended K" in text.stdout and "compile_seconds=20.0" in text.stdout
    for method in ("optimal", "percentile", "uniform", "pow2", "multiple:8", "max"):
        assert method in text.stdout


def test_cli_cache_is_json_in_the_user_cache_dir(dynlint, tmp_path):
    f = tmp_path / "l.txt"
    f.write_text("\n".join(map(str, range(1, 50))))
    cwd = tmp_path / "work"
    cwd.mkdir()
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "DYNLINT_CACHE_DIR": ""}
    first = json.loads(dynlint("buckets", "--lengths", f, "--format", "json", cwd=cwd, env=env).stdout)
    second = json.loads(dynlint("buckets", "--lengths", f, "--format", "json", cwd=cwd, env=env).stdout)
    assert (first["cache"]["hits"], second["cache"]["hits"]) == (0, 1)
    assert second["boundaries"] == first["boundaries"]
    files = list((tmp_path / "xdg" / "dynlint" / "buckets").glob("*.json"))
    assert len(files) == 1 and not list(cwd.iterdir())
    json.loads(files[0].read_text())                    # plain JSON, no pickle
    files[0].write_text("{not json")                    # a corrupt entry is re-solved
    third = dynlint("buckets", "--lengths", f, "--format", "json", cwd=cwd, env=env)
    assert third.returncode == 0 and json.loads(third.stdout)["boundaries"] == first["boundaries"]
    assert "ignoring" in third.stderr


@pytest.mark.parametrize("content, args, message", [
    ("3\n4\nfive\n", (), "lengths.txt:3: not an integer length: 'five'"),
    ("3\n-4\n", (), "lengths.txt:2: negative value"),
    ("", (), "no lengths"),
    ("3\n4\n", ("-k", "0"), "K must be >= 1"),
    ("3\n4\n", ("--method", "kmeans"), "unknown method"),
    ("3\n4\n", ("--per", "batch"), "--batch-size"),
])
def test_cli_errors_exit_2_without_traceback(dynlint, tmp_path, content, args, message):
    f = tmp_path / "lengths.txt"
    f.write_text(content)
    r = dynlint("buckets", "--lengths", f, "--no-cache", *args)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr


def test_cli_unreadable_and_malformed_json(dynlint, tmp_path):
    r = dynlint("buckets", "--lengths", tmp_path / "missing.txt")
    assert r.returncode == 2 and "missing.txt: cannot read lengths" in r.stderr
    bad = tmp_path / "l.json"
    bad.write_text('{"lengths": [1, 2,\n 3,, 4]}')
    r = dynlint("buckets", "--lengths", bad)
    assert r.returncode == 2 and "l.json:2: malformed JSON" in r.stderr and "Traceback" not in r.stderr


def test_cli_csv_and_npy(dynlint, tmp_path):
    f = tmp_path / "l.npy"
    np.save(f, np.array([3, 3, 4, 5, 5, 5, 6, 7, 8, 8], dtype=np.int32))
    r = dynlint("buckets", "--lengths", f, "-k", "3", "--format", "csv", "--no-cache",
                "--method", "optimal,percentile")
    lines = r.stdout.splitlines()
    assert lines[0].startswith("method,k,shapes,waste")
    assert lines[1].startswith("optimal,3,3,4,") and lines[1].endswith("3 5 8")
    assert lines[2].startswith("percentile,3,3,6,")


def test_cli_per_batch(dynlint, tmp_path):
    f = tmp_path / "l.txt"
    f.write_text("\n".join(str(1 + (i * 37) % 101) for i in range(700)))
    r = dynlint("buckets", "--lengths", f, "--per", "batch", "--batch-size", "7", "-k", "4",
                "--method", "optimal,percentile", "--format", "json", "--no-cache")
    doc = json.loads(r.stdout)
    assert doc["input"]["items"] == 700 and doc["input"]["per"] == "batch"
    opt, pct = doc["results"]
    assert opt["waste"] <= pct["waste"]
    assert doc["input"]["min"] > 1          # the histogram is of batch maxima


def test_cli_entry_reads_a_loader_dimension(dynlint, tmp_path):
    (tmp_path / "myloader.py").write_text(
        "def make():\n"
        "    import torch\n"
        "    return [{'input_ids': torch.zeros(4, n), 'label': torch.zeros(4)} for n in (5, 9, 9, 30)]\n"
        "def broken():\n"
        "    raise RuntimeError('no data here')\n"
        "def empty():\n"
        "    return []\n")
    r = dynlint("buckets", "--entry", "myloader:make", "--dim", "input_ids:1", "-k", "2",
                "--format", "json", "--no-cache", cwd=tmp_path)
    doc = json.loads(r.stdout)
    assert doc["boundaries"] == [9, 30] and doc["input"]["items"] == 16
    for factory, message in (("broken", "RuntimeError: no data here"), ("empty", "no batches"),
                             ("nope", "cannot load")):
        r = dynlint("buckets", "--entry", f"myloader:{factory}", cwd=tmp_path)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_help_explains(dynlint):
    r = dynlint("buckets", "--help")
    assert r.returncode == 0 and "--method" in r.stdout and "lengths files" in r.stdout
    assert "buckets" in dynlint("--help").stdout


def test_real_data_digits_order_of_methods():
    # sklearn's bundled digits: the number of lit pixels per image as a "length".
    from sklearn.datasets import load_digits
    lengths = (load_digits().data > 0).sum(axis=1).tolist()
    worst = bk.pad_to_max(lengths).waste
    for k in range(1, 25):
        opt, pct = bk.optimal(lengths, k), bk.percentile(lengths, k)
        assert opt.waste <= pct.waste <= worst
        assert sum(opt.counts) == len(lengths)


def test_importing_buckets_does_not_import_torch():
    import subprocess
    import sys
    code = "import sys, dynlint.buckets; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
