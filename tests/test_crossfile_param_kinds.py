"""Parameters learn that they are tensors from callers in other files, not only that they are
bool masks (crossfile.settle; summaries.upgrade is the one rule for callers in the function's
file and in others): an unannotated helper that reads `int(labels.max())` or tests
`if (scores > floor).any():` is flagged when every caller, in another file, passes a tensor;
one caller passing a plain list withdraws the claim. Through the real CLI on a small package;
a file checked alone gets the findings it gets with its whole project."""
from __future__ import annotations

import json

from _tree import write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/helpers.py": """\
        def num_classes(labels):
            return int(labels.max()) + 1


        def any_valid(scores, floor):
            if (scores > floor).any():
                return scores.sum()
            return scores.new_zeros(())
        """,
    "pkg/model.py": """\
        import torch
        from pkg.helpers import any_valid, num_classes


        class Net(torch.nn.Module):
            def forward(self, x: torch.Tensor):
                n = num_classes(x.argmax(-1))
                return any_valid(x.softmax(-1), 0.5) * n
        """,
}
# A caller in a third file passing a Python list: `num_classes`' parameter is no tensor there.
LIST_CALLER = {"pkg/rank.py": """\
    from pkg.helpers import num_classes


    def classes_of(labels: list):
        return num_classes(labels)
    """}


def _findings(dynlint, root, *args):
    out = dynlint("check", *args, "--output-format", "json", cwd=root)
    return [(f["path"].replace("\\", "/").rsplit("/", 1)[-1], f["line"], f["code"])
            for f in json.loads(out.stdout)]


def test_tensor_arguments_reach_parameters_in_other_files(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    whole = _findings(dynlint, tmp_path, ".", "--no-cache")
    assert whole == [("helpers.py", 2, "DYN203"), ("helpers.py", 6, "DYN204")], whole
    for cache in (["--no-cache"], [], []):          # alone: cold, then cache cold and warm
        assert _findings(dynlint, tmp_path, "pkg/helpers.py", *cache) == whole
    # Judged alone (what flake8 sees), nothing tells the parameters are tensors.
    assert _findings(dynlint, tmp_path, "pkg/helpers.py", "--no-cross-file", "--no-cache") == []


def test_a_caller_passing_no_tensor_withdraws_the_claim(dynlint, tmp_path):
    write_tree(tmp_path, {**FILES, **LIST_CALLER})
    for target in ("pkg/helpers.py", "."):
        found = _findings(dynlint, tmp_path, target, "--no-cache")
        assert found == [("helpers.py", 6, "DYN204")], (target, found)


def test_a_parameter_annotated_a_dict_stays_one(dynlint, tmp_path):
    """`stats: Dict[str, Tensor]` receiving `x["stats"]` from a `Dict[str, Tensor]` (an item
    the kinds take for a tensor) stays a dict: `"scale" in stats` reads no tensor data; its
    unannotated neighbour `y` does learn that it is a tensor."""
    write_tree(tmp_path, {
        "pyproject.toml": "[project]\nname = 'pkg'\n",
        "pkg/__init__.py": "",
        "pkg/scaling.py": """\
            from typing import Dict

            import torch


            def rescale(y, stats: Dict[str, torch.Tensor]):
                if "scale" in stats:
                    return y * stats["scale"] + int(y.max())
                return y
            """,
        "pkg/model.py": """\
            from typing import Dict

            import torch
            from pkg.scaling import rescale


            class Net(torch.nn.Module):
                def forward(self, x: Dict[str, torch.Tensor]):
                    return rescale(x["y"], x["stats"])
            """,
    })
    for target in (".", "pkg/scaling.py"):
        found = _findings(dynlint, tmp_path, target, "--no-cache")
        assert found == [("scaling.py", 8, "DYN203")], (target, found)
