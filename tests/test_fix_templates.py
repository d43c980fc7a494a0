"""The Gaudi engineers' rewrites as fix templates, through the real CLI: masked writes
(DYN213, on for `target = "hpu"`), arange from a tensor start, CPU fallbacks, and the
display-only loop and mask rewrites, each shown with its rewritten code."""
import ast
import textwrap

MASK_WRITE = textwrap.dedent("""\
    import torch


    class Head(torch.nn.Module):
        def forward(self, scores, valid):
            valid = valid.bool()
            scores[scores.isnan()] = 0.0
            scores[~valid] = float("-inf")
            return scores.softmax(-1)
    """)


def test_mask_write_rule_is_on_for_the_hpu_target_only(dynlint, write, tmp_path):
    write("m.py", MASK_WRITE)
    plain = dynlint("check", "--no-cache", "m.py", cwd=tmp_path)
    assert "DYN213" not in plain.stdout
    write("pyproject.toml", '[tool.dynlint]\ntarget = "hpu"\n')
    on = dynlint("check", "--no-cache", "m.py", cwd=tmp_path)
    assert on.stdout.count("DYN213") == 2, on.stdout
    # --config KEY=VALUE reaches the same setting; --ignore still wins.
    (tmp_path / "pyproject.toml").unlink()
    inline = dynlint("check", "--no-cache", "--config", 'target = ["HPU"]', "m.py", cwd=tmp_path)
    assert inline.stdout.count("DYN213") == 2, inline.stdout + inline.stderr
    off = dynlint("check", "--no-cache", "--config", 'target = "hpu"', "--ignore", "DYN213",
                  "m.py", cwd=tmp_path)
    assert "DYN213" not in off.stdout


def test_mask_write_fix_runs_and_keeps_values(dynlint, write, tmp_path):
    import torch
    path = write("m.py", MASK_WRITE)
    r = dynlint("check", "--fix", "--no-cache", "--extend-select", "DYN213", "m.py", cwd=tmp_path)
    fixed = path.read_text()
    assert "scores.masked_fill_(scores.isnan(), 0.0)" in fixed, fixed
    assert "masked_fill_(" in fixed.split("isnan(), 0.0)")[1], fixed
    assert "DYN213" not in r.stdout, r.stdout
    again = dynlint("check", "--fix", "--no-cache", "--extend-select", "DYN213", "m.py",
                    cwd=tmp_path)
    assert path.read_text() == fixed and "fixed" not in again.stdout
    ns_before, ns_after = {}, {}
    exec(MASK_WRITE, ns_before)
    exec(fixed, ns_after)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 5, generator=g)
    x[0, 1] = float("nan")
    valid = torch.rand(3, 5, generator=g) > 0.3
    valid[2] = False                                # a row with nothing valid: nan softmax
    for before_fn, after_fn in [(ns_before["Head"](), ns_after["Head"]())]:
        torch.testing.assert_close(after_fn(x.clone(), valid), before_fn(x.clone(), valid),
                                   equal_nan=True)


UNIQUE = textwrap.dedent("""\
    import torch


    class Pool(torch.nn.Module):
        def forward(self, labels, feats):
            classes, counts = torch.unique(labels, return_counts=True)
            runs = labels.unique_consecutive()
            inverse = torch.unique(labels, return_inverse=True)[1]
            return classes, counts, runs, inverse, feats.sum(0)
    """)


def test_cpu_fallback_is_unsafe_keeps_values_and_settles(dynlint, write, tmp_path):
    import torch
    path = write("m.py", UNIQUE)
    safe = dynlint("check", "--fix", "--no-cache", "m.py", cwd=tmp_path)
    assert path.read_text() == UNIQUE and safe.stdout.count("DYN103") == 3
    r = dynlint("check", "--fix", "--unsafe-fixes", "--no-cache", "m.py", cwd=tmp_path)
    fixed = path.read_text()
    assert "torch.unique(labels.cpu(), return_counts=True)" in fixed, fixed
    assert "labels.cpu().unique_consecutive().to(labels.device)" in fixed, fixed
    assert "DYN103" not in r.stdout, r.stdout            # host ops: outside the device graph
    again = dynlint("check", "--fix", "--unsafe-fixes", "--no-cache", "m.py", cwd=tmp_path)
    assert path.read_text() == fixed and "fixed" not in again.stdout
    ns_before, ns_after = {}, {}
    exec(UNIQUE, ns_before)
    exec(fixed, ns_after)
    labels = torch.tensor([3, 1, 1, 2, 3, 3, 0])
    feats = torch.randn(7, 2)
    for a, b in zip(ns_before["Pool"]()(labels, feats), ns_after["Pool"]()(labels, feats)):
        assert torch.equal(a, b) and a.dtype == b.dtype and a.device == b.device
