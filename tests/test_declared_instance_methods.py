"""What a method of an object picked at run time returns: `mode = get_boxmode(name)`, a
function of the file declared `-> BoxMode`, holds an instance of `BoxMode` or of any of its
subclasses, so `mode.boxes_to_corners(b)` returns what one of their `boxes_to_corners`
returns (tensors: `b.split(...)` in one, a tuple of its pieces in another), and the
comparison of two corners read as a condition syncs. An object built by a constructor
(`CornerMode()`) runs exactly that class's method. Through the real CLI, the helper reached
from model code in another file; a file checked alone gets its project's findings."""
from __future__ import annotations

from _tree import findings, write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/boxes.py": """\
        import torch


        class BoxMode:
            def boxes_to_corners(self, boxes: torch.Tensor) -> tuple:
                raise NotImplementedError


        class CornerMode(BoxMode):
            def boxes_to_corners(self, boxes: torch.Tensor) -> tuple:
                corners = boxes.split(1, dim=-1)
                return corners


        class SizeMode(BoxMode):
            def boxes_to_corners(self, boxes: torch.Tensor) -> tuple:
                xmin, ymin, w, h = boxes.split(1, dim=-1)
                return xmin, ymin, xmin + w, ymin + h


        class NamedMode(BoxMode):
            def boxes_to_corners(self, boxes: torch.Tensor) -> tuple:
                return ("xmin", "ymin", "xmax", "ymax")


        MODES = {"xyxy": CornerMode, "xywh": SizeMode}


        def get_boxmode(mode: str) -> BoxMode:
            return MODES[mode]()


        def convert_box_mode(boxes: torch.Tensor, src_mode: str):
            src = get_boxmode(src_mode)
            corners = src.boxes_to_corners(boxes)
            for axis in range(2):
                if (corners[2 + axis] < corners[axis]).sum() > 0:
                    raise ValueError("invalid boxes")
            return corners


        def names(boxes: torch.Tensor):
            mode = NamedMode()
            corners = mode.boxes_to_corners(boxes)
            if corners[0] == corners[2]:
                return None
            return corners
        """,
    "pkg/model.py": """\
        import torch

        from pkg.boxes import convert_box_mode, names


        class Net(torch.nn.Module):
            def forward(self, boxes: torch.Tensor):
                names(boxes)
                return convert_box_mode(boxes, "xyxy")
        """,
}
EXPECTED = [("boxes.py", 37, "DYN204")]


def test_method_of_an_instance_picked_at_run_time(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    whole = findings(dynlint, tmp_path, ".", "--no-cache")
    assert whole == EXPECTED, whole
    assert findings(dynlint, tmp_path, "pkg/boxes.py", "--no-cache") == EXPECTED
