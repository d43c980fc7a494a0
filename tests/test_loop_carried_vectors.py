"""An index set refined in a loop stays 1-d (`paths._carried_vectors`): a name that holds `None`
(declared `Optional[Tensor]` or not) or a 1-d tensor before the loop, and that the body rebinds
only to 1-d tensors when it is one at the loop's top (`idx = z if idx is None else idx[z]` with
`z` the positions of a one-argument `where`), is 1-d after the loop; so the helper returning it
returns a 1-d tensor and its item `[0]` indexing a tensor is read back to a Python int (DYN210),
as it is when the helper returns `where(c)[0]` directly. Twins: a name that holds a 2-d tensor
before the loop, or that the body rebinds to a stack (2-d), makes no claim. Through the real CLI."""
from __future__ import annotations

import textwrap

from _tree import findings, write_tree

HELPER = """\
    def lexargmax(x: Tensor) -> Tensor:
        {decl}
        for k in range(x.shape[1]):
            col: Tensor = x[idx, k] if idx is not None else x[:, k]
            z = torch.where(col == col.max())[0]
            idx = {refine}
            if len(idx) < 2:
                break
        if idx is None:
            raise ValueError("no index")
        return idx


    def best(rows: Tensor):
        i = lexargmax(rows)[0]
        a, b = rows[i]
        return a, b
    """
HEAD = """\
from typing import Optional

import torch
from torch import Tensor


"""


def _project(dynlint, tmp_path, decl: str, refine: str = "z if idx is None else idx[z]"):
    body = textwrap.dedent(HELPER).format(decl=decl, refine=refine)
    write_tree(tmp_path, {"pyproject.toml": "[project]\nname = 'pkg'\n", "pkg/__init__.py": "",
                          "pkg/lex.py": HEAD + body})
    return findings(dynlint, tmp_path, "pkg/lex.py", "--no-cache")


def test_refined_positions_declared_optional_stay_one_dimensional(dynlint, tmp_path):
    found = _project(dynlint, tmp_path, "idx: Optional[Tensor] = None")
    assert ("lex.py", 22, "DYN210") in found, found


def test_refined_positions_without_declaration_stay_one_dimensional(dynlint, tmp_path):
    found = _project(dynlint, tmp_path, "idx = None")
    assert ("lex.py", 22, "DYN210") in found, found


def test_a_two_dimensional_start_makes_no_claim(dynlint, tmp_path):
    found = _project(dynlint, tmp_path, "idx = x.argsort(dim=0)")
    assert ("lex.py", 22, "DYN210") not in found, found


def test_a_rebinding_to_a_stack_makes_no_claim(dynlint, tmp_path):
    found = _project(dynlint, tmp_path, "idx = None",
                     "z if idx is None else torch.stack([idx[:1], z[:1]])")
    assert ("lex.py", 22, "DYN210") not in found, found
