"""A call into the checked project's own function is reported in the callee, where the op runs,
not again at each call site (`project_callee`): torchvision's detection heads call its
`box_ops.batched_nms`, whose body is checked with them. The same call from a user's project
(torchvision installed elsewhere) is the only place that project can see the op, so it stays.
Through the real CLI on two small packages."""
from __future__ import annotations

import json

from _tree import write_tree

BOXES = """\
    import torch


    def nms(boxes, scores, iou_threshold):
        return torch.ops.torchvision.nms(boxes, scores, iou_threshold)


    def remove_small_boxes(boxes, min_size):
        ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
        return torch.where((ws >= min_size) & (hs >= min_size))[0]
    """
HEAD = """\
    import torch
    from {ops} import boxes as box_ops


    class Head(torch.nn.Module):
        def forward(self, boxes, scores):
            keep = box_ops.remove_small_boxes(boxes, 1e-2)
            boxes, scores = boxes[keep], scores[keep]
            return box_ops.nms(boxes, scores, 0.5)
    """
LIBRARY = {
    "torchvision/__init__.py": "",
    "torchvision/ops/__init__.py": "",
    "torchvision/ops/boxes.py": BOXES,
    "torchvision/models/__init__.py": "",
    "torchvision/models/head.py": HEAD.format(ops="torchvision.ops"),
    "torchvision/models/head_relative.py": HEAD.format(ops="..ops"),
}


def _findings(dynlint, root, *args):
    out = dynlint("check", *args, "--output-format", "json", "--no-cache", cwd=root)
    return sorted((f["path"].replace("\\", "/"), f["line"], f["code"])
                  for f in json.loads(out.stdout))


def test_calls_into_the_projects_own_nms_are_reported_in_the_callee(dynlint, tmp_path):
    write_tree(tmp_path / "lib", {"pyproject.toml": "[project]\nname = 'tv'\n", **LIBRARY})
    found = _findings(dynlint, tmp_path / "lib", ".")
    # The ops run in boxes.py: reported there; the heads' calls (absolute or relative import)
    # are not reported again; their bool-mask-free indexing by `keep` is no finding either.
    assert found == [("torchvision/ops/boxes.py", 5, "DYN109"),
                     ("torchvision/ops/boxes.py", 10, "DYN104")], found


def test_a_user_project_calling_the_library_is_flagged_at_the_call(dynlint, tmp_path):
    write_tree(tmp_path / "user", {
        "pyproject.toml": "[project]\nname = 'det'\n",
        "det/__init__.py": "",
        "det/head.py": HEAD.format(ops="torchvision.ops"),
    })
    found = _findings(dynlint, tmp_path / "user", ".")
    assert found == [("det/head.py", 7, "DYN109"), ("det/head.py", 9, "DYN109")], found
