"""`dynlint check --explain FILE:LINE` through the real CLI: on the bundled examples and on a
project whose helpers are reached from model code in other files."""
from __future__ import annotations

import shutil
import textwrap

from conftest import ROOT


def _blocks(stdout: str) -> dict:
    """target -> (verdict, the indented lines under it)."""
    out, current = {}, None
    for line in stdout.splitlines():
        if line.startswith("  "):
            out[current][1].append(line.strip())
        else:
            target, verdict = line.split(": ", 1)
            current = target
            out[target] = (verdict, [])
    return out


def test_explain_the_examples(dynlint, tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    r = dynlint("check", "--explain", "examples/confirm/graph_pool.py:30",
                "examples/training_loop.py:17", "examples/detection_head.py:27",
                "examples/detection_head.py:10", cwd=tmp_path)
    assert r.returncode == 1, r.stderr          # some of these lines have findings
    got = _blocks(r.stdout)
    verdict, steps = got["examples/confirm/graph_pool.py:30"]
    # A helper of the same file, reached from `Readout.forward`.
    assert verdict == "model code"
    assert steps[:3] == ["entry point: `Readout.forward` (examples/confirm/graph_pool.py:46)",
                         "-> `global_add_pool` (examples/confirm/graph_pool.py:29)",
                         "-> line 30"]
    assert any("DYN203" in s for s in steps)
    verdict, steps = got["examples/training_loop.py:17"]
    # It runs the backward pass itself: the step, whatever its name; the read every
    # `log_every` steps is logging, with no finding.
    assert verdict == "model code" and "`train`" in steps[0] and "runs a training step" in steps[0]
    assert steps[-1] == "no findings on this line"
    verdict, steps = got["examples/detection_head.py:27"]
    assert verdict == "neutral" and "`count_positives`" in steps[0]
    assert any("DYN102" in s for s in steps)        # a rule that applies everywhere
    verdict, steps = got["examples/detection_head.py:10"]
    assert verdict == "cold" and "`DetectionHead.__init__`" in steps[0]
    # The same verdicts as the findings: what the explanation calls cold has none.
    plain = dynlint("check", "examples/training_loop.py", "-q", cwd=tmp_path)
    assert plain.stdout == ""


def _project(tmp_path):
    files = {
        "pyproject.toml": "",
        "pkg/__init__.py": "",
        "pkg/utils.py": """\
            import torch

            def helper(t: torch.Tensor):
                return deeper(t)

            def deeper(t: torch.Tensor):
                return t.max().tolist()

            def unused(t: torch.Tensor):
                return t.max().tolist()         # a host copy: model code only
            """,
        "pkg/masks.py": """\
            import torch

            def sdpa_mask(mask: torch.Tensor):
                if mask.all():
                    return None
                return mask

            MASKS = {"sdpa": sdpa_mask}

            def make_mask(kind, mask):
                return MASKS[kind](mask)
            """,
        "pkg/model.py": """\
            import torch
            from .utils import helper
            from pkg.masks import make_mask


            class Net(torch.nn.Module):
                def forward(self, x, mask):
                    return self.inner(x, mask)

                def inner(self, x, mask):
                    return helper(x), make_mask("sdpa", mask)
            """,
    }
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text), encoding="utf-8")


def test_explain_across_files(dynlint, tmp_path):
    _project(tmp_path)
    # The file is checked alone: its callers come from the rest of the project.
    r = dynlint("check", "--explain", "pkg/utils.py:7", "pkg/masks.py:4", "pkg/utils.py:10",
                cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    got = _blocks(r.stdout)
    verdict, steps = got["pkg/utils.py:7"]
    assert verdict == "model code (reached from another file)"
    assert steps[:5] == ["entry point: `Net.forward` (pkg/model.py:7)",
                         "-> `Net.inner` (pkg/model.py:10)",
                         "-> `helper` (pkg/utils.py:3)",
                         "-> `deeper` (pkg/utils.py:6)",
                         "-> line 7"]
    assert steps[5:] == ["findings on this line:",
                         "pkg/utils.py:7:12: DYN202 `t.max().tolist()` copies tensor data to "
                         "the host inside model code"]
    verdict, steps = got["pkg/masks.py:4"]
    assert verdict == "model code (reached from another file)"
    # Through the module-level table that names `sdpa_mask`.
    assert steps[2:5] == ["-> `make_mask` (pkg/masks.py:10)",
                          "-> the module-level code of `pkg.masks` (a table naming it)",
                          "-> `sdpa_mask` (pkg/masks.py:3)"]
    assert "DYN204" in steps[-1]
    verdict, steps = got["pkg/utils.py:10"]
    assert verdict == "neutral" and steps[-1] == "no findings on this line"
    # Judged alone, the helper is reached by nothing, and has no finding.
    r = dynlint("check", "--explain", "pkg/utils.py:7", "--no-cross-file", cwd=tmp_path)
    assert r.returncode == 0
    verdict, steps = _blocks(r.stdout)["pkg/utils.py:7"]
    assert verdict == "neutral" and "(--no-cross-file)" in steps[0]


def test_explain_bad_targets(dynlint, tmp_path):
    _project(tmp_path)
    for target in ("pkg/utils.py", "pkg/utils.py:x", "nope.py:3", "pkg/utils.py:0"):
        r = dynlint("check", "--explain", target, cwd=tmp_path)
        assert r.returncode == 2 and "--explain" in r.stderr and "Traceback" not in r.stderr


def test_explain_a_file_that_does_not_parse(dynlint, tmp_path):
    (tmp_path / "bad.py").write_text("def f(:\n")
    r = dynlint("check", "--explain", "bad.py:1", cwd=tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    verdict, steps = _blocks(r.stdout)["bad.py:1"]
    assert verdict == "not analysed" and any("DYN901" in s for s in steps)


_STEP = """\
    import torch


    class PPO:
        def train(self):
            for batch in self.buffer.get():
                loss = (self.policy(batch.obs) - batch.returns).pow(2).mean()
                self.losses.append(loss.item())
                loss.backward()
            return loss.item()
"""


def test_explain_a_training_step(dynlint, tmp_path):
    """A method that runs the backward pass of a loss it computes is the step, whatever its
    name: its minibatch loop is model code, what runs once per call is not; the same file in
    an example package stays cold (example scripts count only when model code reaches them)."""
    for name in ("algo/ppo.py", "examples/ppo.py"):
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(_STEP), encoding="utf-8")
        (p.parent / "__init__.py").write_text("", encoding="utf-8")
    r = dynlint("check", "--explain", "algo/ppo.py:8", "algo/ppo.py:10", "examples/ppo.py:8",
                cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    got = _blocks(r.stdout)
    verdict, steps = got["algo/ppo.py:8"]
    assert verdict == "model code" and "runs a training step" in steps[0]
    assert "DYN201 `loss.item()`" in steps[-1]
    verdict, steps = got["algo/ppo.py:10"]
    assert verdict == "cold" and "outside the step's loop" in steps[0]
    assert got["examples/ppo.py:8"][0] == "cold"
