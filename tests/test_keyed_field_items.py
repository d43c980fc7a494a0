"""A string key picks the mapping of a declared union (`annotations.keyed_item_kind`): a field
`data: Optional[Union[Dict[str, Tensor], List[Item]]]` of a NamedTuple in another file, read
through a parameter declared that class (`data = param.data`), has tensor items under str keys,
so a row of one written into a list makes `torch.Size(...)` of it read tensor data (DYN206), in
a helper no code of its file calls (neutral) that a module of a third file reaches. The
cross-file step carries the field's item kind (`Class.field[str]`), as it does a TypedDict's
items. Twins: a field whose dict maps to ints, and a union with a member a key may index
(`Any`), make no claim. Through the real CLI; the helper's file checked alone gets the same."""
from __future__ import annotations

from _tree import findings, write_tree


def _files(field: str) -> dict:
    return {
        "pyproject.toml": "[project]\nname = 'pkg'\n",
        "pkg/__init__.py": "",
        "pkg/params.py": f"""\
            from typing import Any, Dict, List, NamedTuple, Optional, Union

            import torch


            class Item(NamedTuple):
                name: str
                data: {field}
            """,
        "pkg/shapes.py": """\
            import torch

            from pkg.params import Item


            def new_shape(param: Item, shape: torch.Size) -> torch.Size:
                data = param.data
                if data is None or isinstance(data, list):
                    return shape
                out = list(shape)
                out[-data["size"].shape[-1]:] = data["size"][0]
                return torch.Size(out)
            """,
        "pkg/model.py": """\
            from torch import nn

            from pkg.shapes import new_shape


            class Net(nn.Module):
                def forward(self, x, param):
                    return x.view(new_shape(param, x.shape))
            """,
    }


UNION = 'Optional[Union[Dict[str, torch.Tensor], List["Item"]]]'


def test_str_keyed_items_of_a_union_field_of_another_file_are_tensors(dynlint, tmp_path):
    write_tree(tmp_path, _files(UNION))
    assert ("shapes.py", 12, "DYN206") in findings(dynlint, tmp_path, ".", "--no-cache")
    assert ("shapes.py", 12, "DYN206") in findings(dynlint, tmp_path, "pkg/shapes.py", "--no-cache")


def test_a_dict_of_ints_makes_no_claim(dynlint, tmp_path):
    write_tree(tmp_path, _files('Optional[Union[Dict[str, int], List["Item"]]]'))
    assert ("shapes.py", 12, "DYN206") not in findings(dynlint, tmp_path, ".", "--no-cache")


def test_a_member_a_key_may_index_makes_no_claim(dynlint, tmp_path):
    write_tree(tmp_path, _files("Union[Dict[str, torch.Tensor], Any]"))
    assert ("shapes.py", 12, "DYN206") not in findings(dynlint, tmp_path, ".", "--no-cache")
