"""The Gaudi engineers' rewrites as fix templates, through the real CLI: masked writes
(DYN112, on for `target = "hpu"`), arange from a tensor start, CPU fallbacks, and the
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
    assert "DYN112" not in plain.stdout
    write("pyproject.toml", '[tool.dynlint]\ntarget = "hpu"\n')
    on = dynlint("check", "--no-cache", "m.py", cwd=tmp_path)
    assert on.stdout.count("DYN112") == 2, on.stdout
    # --config KEY=VALUE reaches the same setting; --ignore still wins.
    (tmp_path / "pyproject.toml").unlink()
    inline = dynlint("check", "--no-cache", "--config", 'target = ["HPU"]', "m.py", cwd=tmp_path)
    assert inline.stdout.count("DYN112") == 2, inline.stdout + inline.stderr
    off = dynlint("check", "--no-cache", "--config", 'target = "hpu"', "--ignore", "DYN112",
                  "m.py", cwd=tmp_path)
    assert "DYN112" not in off.stdout


def test_mask_write_fix_runs_and_keeps_values(dynlint, write, tmp_path):
    import torch
    path = write("m.py", MASK_WRITE)
    r = dynlint("check", "--fix", "--no-cache", "--extend-select", "DYN112", "m.py", cwd=tmp_path)
    fixed = path.read_text()
    assert "scores.masked_fill_(scores.isnan(), 0.0)" in fixed, fixed
    assert "masked_fill_(" in fixed.split("isnan(), 0.0)")[1], fixed
    assert "DYN112" not in r.stdout, r.stdout
    again = dynlint("check", "--fix", "--no-cache", "--extend-select", "DYN112", "m.py",
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


LOOPS = textwrap.dedent("""\
    import torch


    class Decoder(torch.nn.Module):
        def forward(self, tokens, unfinished, mask):
            if torch.all(mask == 1):
                mask = None
            while unfinished.max() > 0:
                # one token per step; finished rows only pad
                tokens = tokens + unfinished
                unfinished = (unfinished - 1).clamp(min=0)
            return tokens, mask


    def generate(step_fn, tokens, n):
        for _ in range(n):
            nxt = step_fn(tokens)
            tokens = torch.cat([tokens, nxt], dim=-1)
        return tokens
    """)


def test_display_only_rewrites_are_shown_and_apply_cleanly(dynlint, write, tmp_path):
    import torch
    path = write("m.py", LOOPS)
    shown = dynlint("check", "--no-cache", "--show-fix-suggestions", "m.py", cwd=tmp_path)
    assert path.read_text() == LOOPS
    # The rewritten code is shown under each finding, with the reason it is display-only.
    # `step` appears in a comment, so the counter takes a name the file does not use.
    assert "(step2 := step2 + 1) % 8 != 1 or unfinished.max() > 0" in shown.stdout, shown.stdout
    assert "tokens.index_copy_(-1, tokens_pos, nxt)" in shown.stdout, shown.stdout
    assert "always keep the full mask" in shown.stdout
    dynlint("check", "--fix", "--unsafe-fixes", "--no-cache", "m.py", cwd=tmp_path)
    assert path.read_text() == LOOPS, "display-only suggestions applied without being asked"
    diff = dynlint("check", "--diff", "--apply-display-only", "--no-cache", "m.py", cwd=tmp_path)
    assert diff.returncode == 1 and "+        tokens_pos += 1" in diff.stdout, diff.stdout
    assert path.read_text() == LOOPS
    dynlint("check", "--fix", "--apply-display-only", "--no-cache", "m.py", cwd=tmp_path)
    fixed = path.read_text()
    ast.parse(fixed)
    assert "# one token per step; finished rows only pad" in fixed     # the body is kept
    assert "mask = None" not in fixed
    again = dynlint("check", "--fix", "--apply-display-only", "--no-cache", "m.py", cwd=tmp_path)
    assert path.read_text() == fixed and "fixed" not in again.stdout, again.stdout
    ns_before, ns_after = {}, {}
    exec(LOOPS, ns_before)
    exec(fixed, ns_after)
    # The while loop: extra steps after the condition turns false change nothing here.
    tokens, unfinished = torch.zeros(3), torch.tensor([0.0, 3.0, 11.0])
    mask = torch.ones(2, 2)
    b_tokens, b_mask = ns_before["Decoder"]()(tokens, unfinished, mask)
    a_tokens, a_mask = ns_after["Decoder"]()(tokens, unfinished, mask)
    assert torch.equal(a_tokens, b_tokens) and b_mask is None and torch.equal(a_mask, mask)
    # The grown tensor: same shape at the end; the step function now sees the full buffer.
    out = ns_after["generate"](lambda t: t[..., -1:] + 1, torch.zeros(2, 3), 4)
    assert out.shape == ns_before["generate"](lambda t: t[..., -1:] + 1, torch.zeros(2, 3), 4).shape


def test_every_builder_named_by_a_rule_exists():
    from dynlint.engine.rules import load_rules
    from dynlint.fix.builders import BUILDERS
    named = {f.build for r in load_rules() for f in r.fixes if f.build}
    assert named and named <= set(BUILDERS), named - set(BUILDERS)


STRETCH = textwrap.dedent("""\
    import torch


    class Loss(torch.nn.Module):
        def forward(self, lprobs, target):
            nll = -lprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
            picked = nll[target.ne(0)]
            total = picked.sum()
            mean = picked.mean()       # the padded positions must not count
            pos = torch.where(nll > 1.0)
            return total, mean, nll[pos].sum()


    class Kept(torch.nn.Module):
        def forward(self, x):
            y = x[x > 0]
            s = y.mean()
            return s, y                # y is read after the stretch: left alone
    """)


def test_stretch_fixes_follow_every_use(dynlint, write, tmp_path):
    import torch
    path = write("m.py", STRETCH)
    r = dynlint("check", "--fix", "--no-cache", "m.py", cwd=tmp_path)
    fixed = path.read_text()
    ast.parse(fixed)
    loss = fixed.split("class Kept")[0]
    assert "picked" not in loss and "torch.where(nll > 1.0)" not in loss, loss
    assert not [line for line in r.stdout.splitlines() if line.startswith("m.py:") and
                int(line.split(":")[1]) < 14], r.stdout     # nothing left in Loss
    assert "y = x[x > 0]" in fixed                   # not every use accounted for
    again = dynlint("check", "--fix", "--no-cache", "m.py", cwd=tmp_path)
    assert path.read_text() == fixed and "fixed" not in again.stdout
    ns_before, ns_after = {}, {}
    exec(STRETCH, ns_before)
    exec(fixed, ns_after)
    g = torch.Generator().manual_seed(1)
    lprobs = torch.randn(4, 6, 5, generator=g).log_softmax(-1)
    target = torch.randint(0, 5, (4, 6), generator=g)
    target[0] = 0                                    # a row of padding
    for a, b in zip(ns_before["Loss"]()(lprobs, target), ns_after["Loss"]()(lprobs, target)):
        torch.testing.assert_close(b, a)
