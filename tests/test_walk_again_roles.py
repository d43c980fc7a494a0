"""A walk again with other files' summaries (crossfile.settle) replays the roles the first walk
of the same text decided (scopes.reach.roles_record / apply_roles) instead of running the
pre-pass's reachability again: the record is positions in the definition order, so it gives
what `assign_roles` gives, and a record of another text is not used (the pre-pass decides
again). The record is not cached: a first walk read from the cache hands none on, and the walk
again decides the roles itself. Through the real CLI on a small package, and on one module."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap

from _tree import write_tree

from dynlint.analysis.scopes import index_module, reach
from dynlint.engine.match import split_lines

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/helpers.py": """\
        import torch


        def keep(x):
            return torch.as_tensor(x) > 0
        """,
    "pkg/model.py": """\
        from torch import nn
        from pkg.helpers import keep


        class Inner(nn.Module):
            def forward(self, x):
                return keep(x)


        class Outer(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Inner()

            def forward(self, x):
                m = self.inner(x)
                if m.any():
                    x = x + 1
                return x[m]


        def plot_mask(x):
            m = keep(x)
            if m.any():
                return x[m]
            return x
        """,
}
# Every role the pre-pass decides: model code, a training step, a driver, a memoized and a
# plotting function, an evaluation step and its loop, cold by name, an entry point left to
# the cross-file step (a base of another file), a nested function.
MODULE = """\
    import functools
    import torch
    from torch import nn
    from pkg.base import Base


    class Net(nn.Module):
        def forward(self, x):
            return helper(x)


    class Later(Base):
        def forward(self, x):
            return x[x > 0]


    def helper(x):
        def inner(y):
            return y.nonzero()
        return inner(x)


    @functools.lru_cache
    def table(n):
        return torch.arange(n)


    def train(model, loader, opt):
        for x, y in loader:
            loss = model(x).sum()
            loss.backward()
            opt.step()


    def generate(model, x):
        while x.shape[0] < 10:
            x = model(x)
        return x


    def predict_step(model, x):
        out = model(x)
        return out


    @torch.no_grad()
    def evaluate(model, loader):
        for x in loader:
            predict_step(model, x)


    def save_checkpoint(model):
        torch.save(model.state_dict(), "m.pt")


    def ratio(x) -> float:
        return float(x.mean())
    """


def _pre_pass(source, roles=None):
    tree, lines = ast.parse(source), split_lines(source)
    return index_module(tree, lines, module="pkg.model", defer=True, roles=roles, text=source)


def _decided(scopes) -> tuple:
    at = {id(f): i for i, f in enumerate(scopes.order)}
    return ([(f.qualname, f.role, f.modelish, f.steps, f.drives,
              dict(f.cls.deferred) if f.cls is not None else None) for f in scopes.order],
            {name: sorted(at[i] for i in getattr(scopes, name)) for name in reach._ROLE_SETS},
            [at[id(f)] for f in scopes.deferred])


def test_replayed_roles_are_the_decided_ones():
    source = textwrap.dedent(MODULE)
    first = _pre_pass(source)
    record = reach.roles_record(first, source)
    assert record is not None
    decided = _decided(first)
    # (the module exercises what the record carries)
    roles = {r for _, r, *_ in decided[0]}
    assert len(roles) >= 2 and any(d[3] for d in decided[0]) and any(d[4] for d in decided[0])
    assert decided[2] and decided[1]["memoized"] and decided[1]["soft_cold"] and \
        decided[1]["eval_steps"]
    assert _decided(_pre_pass(source, record)) == decided


def test_a_record_of_another_text_is_not_replayed():
    source = textwrap.dedent(MODULE)
    record = reach.roles_record(_pre_pass(source), source)
    # The same definitions, another text (a caller added): the pre-pass decides again.
    edited = source + "\n\ndef run(model, x):\n    return generate(model, x)\n"
    tree, lines = ast.parse(edited), split_lines(edited)
    scopes = index_module(tree, lines, module="pkg.model", defer=True)
    assert not reach.apply_roles(scopes, scopes.order, source, record)
    assert _decided(_pre_pass(edited, record)) == _decided(_pre_pass(edited))


def _run_patched(root, patch, *args):
    """The CLI in a subprocess with some of its internals replaced first."""
    script = "import sys\n" + textwrap.dedent(patch) + textwrap.dedent(f"""
        from dynlint.integrations.cli import main
        sys.exit(main({list(args)!r}))
        """)
    return subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True,
                          text=True, timeout=300)


_COUNT_REPLAYS = """
    from dynlint.analysis.scopes import reach
    _apply = reach.apply_roles
    def apply_roles(*args):
        done = _apply(*args)
        print("replayed" if done else "decided", file=sys.stderr)
        return done
    reach.apply_roles = apply_roles
    import dynlint.analysis.scopes as scopes
    scopes.apply_roles = apply_roles
    """
_NO_RECORD = """
    from dynlint.analysis.scopes import reach
    reach.roles_record = lambda scopes, text: None
    """


def _findings(stdout):
    return [(f["path"].replace("\\", "/").rsplit("/", 1)[-1], f["line"], f["code"])
            for f in json.loads(stdout)]


def test_a_walk_again_replays_the_roles_with_the_same_findings(tmp_path):
    write_tree(tmp_path, FILES)
    args = ("check", ".", "--no-cache", "--output-format", "json")
    replayed = _run_patched(tmp_path, _COUNT_REPLAYS, *args)
    assert "replayed" in replayed.stderr.split(), replayed.stderr
    decided = _run_patched(tmp_path, _NO_RECORD, *args)
    # (`x[m]` is found only by the walk again, told that `keep` returns a bool tensor)
    assert _findings(replayed.stdout) == _findings(decided.stdout) == \
        [("model.py", 17, "DYN204"), ("model.py", 19, "DYN101")], (replayed.stdout, decided.stdout)


def test_a_first_walk_from_the_cache_hands_no_record_on(dynlint, tmp_path):
    # The cache keeps no record: a file whose first walk is read from it while another file
    # changed is walked again with the roles decided anew, and finds what a cold run finds.
    write_tree(tmp_path, FILES)
    cold = dynlint("check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path)
    for _ in range(2):                      # cache cold, then warm
        run = dynlint("check", ".", "--output-format", "json", cwd=tmp_path)
        assert _findings(run.stdout) == _findings(cold.stdout), run.stderr
    helpers = tmp_path / "pkg" / "helpers.py"
    helpers.write_text(helpers.read_text() + "\n\ndef other(x):\n    return x\n")
    counted = _run_patched(tmp_path, _COUNT_REPLAYS, "check", ".", "--output-format", "json")
    assert "replayed" not in counted.stderr.split(), counted.stderr
    assert _findings(counted.stdout) == _findings(cold.stdout)
    # The model's text changed: a cold run's findings, from the cache as from scratch.
    model = tmp_path / "pkg" / "model.py"
    model.write_text(model.read_text().replace("        if m.any():\n            x = x + 1\n", ""))
    edited = dynlint("check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path)
    assert _findings(edited.stdout) == [("model.py", 17, "DYN101")], edited.stdout
    run = dynlint("check", ".", "--output-format", "json", cwd=tmp_path)
    assert _findings(run.stdout) == _findings(edited.stdout)
