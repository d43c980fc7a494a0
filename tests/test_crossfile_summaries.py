"""Function summaries across files, to a fixed point (crossfile.settle, project/index.py),
through the real CLI on a small package: what a helper of another file returns (a tuple
holding a bool mask), a method inherited from a class of another file (through a package's
re-export), a call through an attribute holding an instance of one of several classes; and the
same findings for a file checked alone as with its whole project."""
from __future__ import annotations

import json
from pathlib import Path

from _tree import write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "from .base import Gated\n",
    "pkg/boxes.py": """\
        import torch

        def clip(boxes: torch.Tensor):
            keep = boxes[:, 2] > boxes[:, 0]
            return boxes.clamp(min=0), keep

        def scale(boxes: torch.Tensor):
            return boxes * 2, boxes.sum()

        def first(boxes):
            return clip(boxes)[1]
        """,
    "pkg/base.py": """\
        import torch

        class Gated(torch.nn.Module):
            def _gate(self, prob):
                return torch.atleast_1d(prob > 0.5)
        """,
    "pkg/mid.py": """\
        from pkg import Gated

        class Middle(Gated):
            pass
        """,
    "pkg/model.py": """\
        import torch
        from . import boxes as box_ops
        from .boxes import clip, scale
        from .mid import Middle


        class Greedy:
            def update(self, tokens):
                return tokens, (tokens[:, -1] == 0).all()


        class Beam:
            def update(self, tokens):
                return tokens, len(tokens) > 3


        class Plain:
            def update(self, tokens):
                return tokens, False


        class Net(Middle):
            def __init__(self, beam):
                super().__init__()
                self.decoder = Beam() if beam else Greedy()
                self.plain = Plain()

            def forward(self, x, scores, prob):
                boxes, keep = clip(x)
                out = scores[keep]
                big, total = scale(x)
                small = scores[total]
                to_apply = self._gate(prob)
                if to_apply.any():
                    out = scores[to_apply]
                tokens, done = self.decoder.update(x)
                if done:
                    return out
                tokens, finished = self.plain.update(x)
                if finished:
                    return small
                return out[box_ops.first(x)]
        """,
}
# What model.py gets from the other files' summaries (line: rule); the pass examples (a
# tensor that is no mask, a decoder that only returns Python bools) stay quiet.
EXPECTED = {"30": "DYN101", "34": "DYN204", "35": "DYN101", "37": "DYN204", "42": "DYN101"}


def _write(root: Path, files: dict = FILES) -> None:
    write_tree(root, files)


def _model_lines(stdout: str) -> dict:
    out = {}
    for line in stdout.splitlines():
        if line.count(":") < 3:
            continue                    # the summary line
        path, lineno, _, rest = line.split(":", 3)
        if path.endswith("model.py"):
            out[lineno] = rest.split()[0]
    return out


def test_summaries_cross_files_and_instances(dynlint, tmp_path):
    _write(tmp_path)
    whole = dynlint("check", ".", "--output-format", "concise", "--no-cache", cwd=tmp_path)
    assert _model_lines(whole.stdout) == EXPECTED, whole.stdout
    for cache in (["--no-cache"], [], []):          # alone: cold, then cache cold and warm
        alone = dynlint("check", "pkg/model.py", "--output-format", "concise", *cache,
                        cwd=tmp_path)
        assert _model_lines(alone.stdout) == EXPECTED, alone.stdout
        assert [l for l in alone.stdout.splitlines() if "model.py" in l] == \
            [l for l in whole.stdout.splitlines() if "model.py" in l]
    # Judged alone (what flake8 sees), the in-file fact remains (the held decoder), and a
    # method's result inside `forward` is probably a tensor, but not known to be a mask.
    one = dynlint("check", "pkg/model.py", "--output-format", "concise", "--no-cross-file",
                  "--no-cache", cwd=tmp_path)
    assert _model_lines(one.stdout) == {"34": "DYN204", "37": "DYN204"}, one.stdout


def test_an_edit_to_the_helper_is_seen(dynlint, tmp_path):
    _write(tmp_path)
    assert "30" in _model_lines(dynlint("check", "pkg/model.py", "--output-format", "concise",
                                        cwd=tmp_path).stdout)
    helper = tmp_path / "pkg/boxes.py"
    helper.write_text(helper.read_text().replace("boxes[:, 2] > boxes[:, 0]",
                                                 "boxes[:, 2] - boxes[:, 0]"))
    out = dynlint("check", "pkg/model.py", "--output-format", "concise", cwd=tmp_path).stdout
    assert "30" not in _model_lines(out) and "42" not in _model_lines(out), out


REEXPORT = {
    "pyproject.toml": "",
    "pkg/__init__.py": "",
    "pkg/utils/__init__.py": "from .helpers import f\n",
    "pkg/utils/helpers.py": """\
        import torch


        def f(x: torch.Tensor):
            if x.any():
                return x
            return -x
        """,
    "pkg/nn/__init__.py": "",
    "pkg/nn/conv.py": """\
        from torch import nn
        from pkg.utils import f


        class Conv(nn.Module):
            def forward(self, x):
                return f(x)
        """,
}


def test_a_helper_reached_through_a_package_reexport_is_model_code(dynlint, tmp_path):
    """`from pkg.utils import f` (re-exported by pkg/utils/__init__.py) reaches
    pkg/utils/helpers.py's `f` as `from pkg.utils.helpers import f` would: model code, so its
    host read is `certain`, checked alone or with its project, and --explain says why."""
    _write(tmp_path, REEXPORT)
    for target in ("pkg/utils/helpers.py", "."):
        out = dynlint("check", target, "--output-format", "json", "--no-cache", cwd=tmp_path)
        found = [(f["path"], f["line"], f["code"], f["confidence"]) for f in json.loads(out.stdout)]
        assert found == [("pkg/utils/helpers.py", 5, "DYN204", "certain")], found
    why = dynlint("check", "--no-cache", "--explain", "pkg/utils/helpers.py:5", cwd=tmp_path).stdout
    assert "model code" in why and "Conv.forward" in why, why


def test_walks_again_across_processes_give_the_same_findings(dynlint, tmp_path):
    """Each round of the fixed point walks again the files whose calls into other files now
    return something known; with enough of them (here 8 copies of model.py) the walks run
    across the worker processes (runner._settle's prefetch). Same findings as one process,
    cold and from the cache."""
    _write(tmp_path)
    model = (tmp_path / "pkg/model.py").read_text()
    for i in range(2, 9):
        (tmp_path / f"pkg/model{i}.py").write_text(model)
    runs = [dynlint("check", ".", "--output-format", "json", *args, cwd=tmp_path).stdout
            for args in (["--no-cache", "-j", "1"], ["--no-cache", "-j", "2"], ["-j", "2"],
                         ["-j", "2"])]
    assert all(r == runs[0] for r in runs[1:])
    found = json.loads(runs[0])
    for i in ("", *range(2, 9)):
        lines = {str(f["line"]): f["code"] for f in found if f["path"].endswith(f"model{i}.py")}
        assert lines == EXPECTED, (i, lines)


CHECKS = {
    "pyproject.toml": "",
    "pkg/__init__.py": "",
    "pkg/checks.py": """\
        import torch


        def _types(preds, target):
            return preds.float().flatten(), target.long().flatten()


        def check(preds, target):
            return _types(preds, target)


        def sizes(preds):
            return preds.shape[0], 3
        """,
    "pkg/metric.py": """\
        import torch
        from torch import Tensor
        from pkg.checks import check, sizes


        def precision(preds: Tensor, target: Tensor):
            preds, target = check(preds, target)
            if not target.sum():
                return preds
            n, k = sizes(preds)
            if n > k:
                return target
            return preds
        """,
}


def test_a_tuple_of_tensors_from_another_file_keeps_its_items_kinds(dynlint, tmp_path):
    """`preds, target = check(preds, target)` rebinds the parameters from another file's
    tuple of tensors: they stay tensors (the host read of `target.sum()` is reported), checked
    alone or with the project; a tuple of sizes (`n, k = sizes(...)`) stays plain numbers."""
    _write(tmp_path, CHECKS)
    for target in ("pkg/metric.py", "."):
        out = dynlint("check", target, "--output-format", "json", "--no-cache", cwd=tmp_path)
        found = [(f["path"], f["line"], f["code"]) for f in json.loads(out.stdout)]
        assert found == [("pkg/metric.py", 8, "DYN204")], found


# A loss whose assigner lives in another file (ultralytics' v8SegmentationLoss): the assigner
# returns a tuple holding the foreground mask; a method of the loss returns it inside a nested
# tuple (`return (fg_mask, idx), loss`); its caller, in the same file, unpacks the nested tuple
# and passes the mask to a helper whose loop unpacks zip items in a second step.
ASSIGNED = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/tal.py": """\
        import torch

        class Assigner(torch.nn.Module):
            def forward(self, scores):
                fg_mask = scores.amax(-1) > 0.5
                return scores.argmax(-1), fg_mask
        """,
    "pkg/loss.py": """\
        import torch
        from .tal import Assigner

        class DetLoss:
            def __init__(self):
                self.assigner = Assigner()

            def assigned(self, scores):
                idx, fg_mask = self.assigner(scores)
                return (fg_mask, idx), scores.sum()

        class SegLoss(DetLoss):
            def __call__(self, scores, masks):
                (fg_mask, idx), loss = self.assigned(scores)
                return loss + self.seg(fg_mask, idx, masks)

            def seg(self, fg_mask: torch.Tensor, idx: torch.Tensor, masks: torch.Tensor):
                total = 0
                for i, single in enumerate(zip(fg_mask, idx, masks)):
                    fg_i, idx_i, masks_i = single
                    total = total + masks_i[fg_i].sum() + idx_i[fg_i].sum()
                return total
        """,
}


def test_a_mask_inside_a_nested_tuple_reaches_the_callers_of_the_method(dynlint, tmp_path):
    """The mask the assigner (another file) returns reaches, through the nested tuple and
    the caller in the same file, the helper's loop: flagged, checked alone or whole."""
    _write(tmp_path, ASSIGNED)
    # Whole, then alone: without the cache, then with it cold and warm (the nested tuple
    # goes through the cache's JSON).
    for target, cache in ((".", "--no-cache"), ("pkg/loss.py", "--no-cache"),
                          ("pkg/loss.py", None), ("pkg/loss.py", None)):
        out = dynlint("check", target, "--output-format", "json", *([cache] if cache else []),
                      cwd=tmp_path)
        found = sorted({(f["path"], f["line"], f["code"]) for f in json.loads(out.stdout)})
        assert found == [("pkg/loss.py", 21, "DYN101")], found
    one = dynlint("check", "pkg/loss.py", "--output-format", "json", "--no-cross-file",
                  "--no-cache", cwd=tmp_path)
    assert not any(f["line"] == 21 for f in json.loads(one.stdout)), one.stdout


TENSOR_RETURN = {
    "pyproject.toml": "",
    "pkg/__init__.py": "",
    "pkg/utils/__init__.py": "from ._scatter import scatter\n",
    "pkg/utils/_scatter.py": """\
        import torch
        from torch import Tensor


        def scatter(src: Tensor, index: Tensor, dim_size=None) -> Tensor:
            if dim_size is None:
                dim_size = 8
            return _reduce(src, index, dim_size)


        def _reduce(src, index, size):
            return src.new_zeros(size).scatter_add_(0, index, src)
        """,
    "pkg/utils/dense.py": """\
        import torch
        from pkg.utils import scatter


        def to_dense(x, batch):
            num_nodes = scatter(torch.ones_like(batch), batch)
            return x.new_zeros(len(num_nodes), int(num_nodes.max()))


        def sizes(batch):
            counts = {}
            return int(len(counts))
        """,
}


def test_a_tensor_returned_by_a_helper_of_another_file_is_a_tensor(dynlint, tmp_path):
    """`scatter` is declared `-> Tensor` in another file and reached through a package
    re-export: its result is a tensor there as it would be in its own file, so
    `int(num_nodes.max())` is a host read, checked alone or with the project; `int(len(d))` of
    a dict stays quiet."""
    _write(tmp_path, TENSOR_RETURN)
    for target in ("pkg/utils/dense.py", "."):
        out = dynlint("check", target, "--output-format", "json", "--no-cache", cwd=tmp_path)
        found = [(f["path"], f["line"], f["code"]) for f in json.loads(out.stdout)]
        assert found == [("pkg/utils/dense.py", 7, "DYN203")], found
    one = dynlint("check", "pkg/utils/dense.py", "--output-format", "json", "--no-cache",
                  "--no-cross-file", cwd=tmp_path)
    assert json.loads(one.stdout) == [], one.stdout     # alone, the helper's kind is unknown
