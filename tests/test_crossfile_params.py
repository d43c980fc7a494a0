"""What each parameter receives from all its callers, across files (crossfile.settle, the
project index's call sites), through the real CLI on a small package: a helper of another file
annotated `Tensor` that every caller passes a bool mask for, a loss module held by a model
(`self.box_loss(...)` runs its `forward`), and a helper one caller passes an index tensor for
(no claim). A file checked alone gets exactly the findings it gets with its whole project."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

from _tree import write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/losses.py": """\
        import torch


        def masked_mean(values: torch.Tensor, sel: torch.Tensor):
            return values[sel].mean()


        def weighted(values: torch.Tensor, index: torch.Tensor):
            return values[index].sum()


        class BoxLoss(torch.nn.Module):
            def forward(self, pred: torch.Tensor, target: torch.Tensor, fg: torch.Tensor):
                return (pred[fg] - target[fg]).abs().mean()
        """,
    "pkg/model.py": """\
        import torch
        from pkg.losses import BoxLoss, masked_mean, weighted


        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.box_loss = BoxLoss().to("cpu")

            def forward(self, x: torch.Tensor, y: torch.Tensor, order: torch.Tensor):
                valid = y > 0
                loss = masked_mean(x, valid) + weighted(x, valid)
                return loss + self.box_loss(x, y, x.abs() > 1)
        """,
    # Passes an index tensor (argsort) to `weighted`: its parameter is no bool mask.
    "pkg/rank.py": """\
        import torch
        from pkg import losses


        def score(x: torch.Tensor):
            return losses.weighted(x, x.argsort())
        """,
}
# losses.py's findings (line, code); `weighted` (line 9) gets none: one caller disagrees.
EXPECTED = [(5, "DYN101"), (14, "DYN101"), (14, "DYN101")]


def _write(root: Path, files=FILES) -> None:
    write_tree(root, files)


def _findings(dynlint, root, *args):
    out = dynlint("check", *args, "--output-format", "json", cwd=root)
    return [(f["path"], f["line"], f["column"], f["code"], f["confidence"])
            for f in json.loads(out.stdout)]


def test_parameters_learn_from_callers_in_other_files(dynlint, tmp_path):
    _write(tmp_path)
    whole = _findings(dynlint, tmp_path, ".", "--no-cache")
    assert [(line, code) for path, line, _, code, _ in whole
            if path.endswith("losses.py")] == EXPECTED, whole
    assert all(conf == "certain" for *_, conf in whole), whole
    for cache in (["--no-cache"], [], []):          # alone: cold, then cache cold and warm
        alone = _findings(dynlint, tmp_path, "pkg/losses.py", *cache)
        assert alone == [f for f in whole if f[0].endswith("losses.py")], (alone, whole)
    # Judged alone (what flake8 sees), nothing tells the parameters are masks.
    assert _findings(dynlint, tmp_path, "pkg/losses.py", "--no-cross-file", "--no-cache") == []
    why = dynlint("check", "--no-cache", "--explain", "pkg/losses.py:5", "pkg/losses.py:14",
                  cwd=tmp_path).stdout
    assert "Net.forward" in why and "BoxLoss.forward" in why and why.count("DYN101") == 3, why


def test_a_caller_in_a_file_not_named_can_withdraw_the_claim(dynlint, tmp_path):
    """A caller passing something else, in a file not checked, counts as much as one in a
    file checked: `masked_mean` loses its claim, alone as with the whole project."""
    _write(tmp_path)
    _write(tmp_path, {"pkg/use.py": """\
        import torch
        from pkg.losses import masked_mean


        def first(x: torch.Tensor):
            return masked_mean(x, torch.tensor([0]))
        """})
    for target in ("pkg/losses.py", "."):
        found = _findings(dynlint, tmp_path, target, "--no-cache")
        assert [(line, code) for path, line, _, code, _ in found
                if path.endswith("losses.py")] == EXPECTED[1:], (target, found)


def test_unannotated_parameters_learn_across_files_as_in_their_file(dynlint, tmp_path):
    """`def pick(x, m): return x[m]` with no annotation, every caller passing a tensor and a
    bool mask: flagged when the caller sits in the same file, and equally when it sits in
    another file (the parameter is "open" to other files' call sites whatever its
    annotation says); a file checked alone agrees, and one caller passing an index tensor
    withdraws the claim."""
    helper = """\
        def pick(x, m):
            return x[m]
        """
    caller = """\
        import torch
        from pkg.helpers import pick


        class Net(torch.nn.Module):
            def forward(self, x: torch.Tensor):
                return pick(x, x > 0)
        """
    root = tmp_path / "across"
    _write(root, {"pyproject.toml": "[project]\nname = 'pkg'\n", "pkg/__init__.py": "",
                  "pkg/helpers.py": helper, "pkg/model.py": caller})
    same = tmp_path / "same"
    _write(same, {"pyproject.toml": "[project]\nname = 'pkg'\n", "pkg/__init__.py": "",
                  "pkg/model.py": textwrap.dedent(caller).replace(
                      "from pkg.helpers import pick\n", textwrap.dedent(helper))})
    in_file = _findings(dynlint, same, ".", "--no-cache")
    assert [(line, code) for _, line, _, code, _ in in_file] == [(3, "DYN101")], in_file
    across = _findings(dynlint, root, ".", "--no-cache")
    assert [(p.rsplit("/", 1)[-1], line, code) for p, line, _, code, _ in across] == \
        [("helpers.py", 2, "DYN101")], across
    assert _findings(dynlint, root, "pkg/helpers.py", "--no-cache") == across
    _write(root, {"pkg/rank.py": """\
        import torch
        from pkg.helpers import pick


        def top(x: torch.Tensor):
            return pick(x, x.argsort())
        """})
    assert _findings(dynlint, root, "pkg/helpers.py", "--no-cache") == []
