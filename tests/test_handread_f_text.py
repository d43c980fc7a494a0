"""Text output, found by the set-f hand reading (bench/results/handread_f.md), through the real
CLI: a function declared to return text (`-> str`, `-> list[str]`, `-> Tuple[str, ...]`) whose
every return is text it builds (`out: list[str]`, `str(...)`, a join, an f-string) turns what it
reads into words for a person or a file, and a module's `forward` so declared is no entry point. Each false alarm has a twin that stays flagged (the same code returning tensors, or
declared `Optional[str]`/`List[Union[str, Tensor]]`). The snippets are excerpts of torchani 2.9.0
(MIT).
"""
from test_handread_e_scope import _findings

# torchani `utils.py`, excerpted: a module converting atomic numbers to chemical symbols; the
# twin maps them to element indices (a tensor the model goes on with).
TEXT_MODULE = '''\
import typing as tp

import torch
from torch import Tensor


class NumbersToSymbols(torch.nn.Module):
    def __init__(self, symbol_dict: dict):
        super().__init__()
        self.symbol_dict = symbol_dict

    def forward(self, species: Tensor) -> list[str]:
        species = species[species != -1]
        out: list[str] = []
        for x in species:
            out.append(self.symbol_dict[x.item()])
        return out


class NumbersToIndices(torch.nn.Module):
    def __init__(self, table: Tensor):
        super().__init__()
        self.table = table

    def forward(self, species: Tensor) -> Tensor:
        species = species[species != -1]
        return self.table[species]
'''

# Public formatters nothing in the file calls (library code, where shape rules fire), one
# declared to return a tuple of strings; its twins may return something else (`Optional[str]`,
# a list of tensors or strings), and a decoding loop declared `-> str` hands back what a
# tokenizer makes of the ids it generated (a call: no text it built itself). As with `-> float`, model code of the same file calling such a
# function keeps it in scope (reachability wins).
TEXT_FUNCTIONS = '''\
from typing import List, Optional, Tuple, Union

from torch import Tensor


def describe(species: Tensor) -> Tuple[str, ...]:
    kept = species[species != -1]
    return tuple(str(int(x)) for x in kept)


def maybe_describe(species: Tensor) -> Optional[str]:
    kept = species[species != -1]
    return None if kept.numel() == 0 else str(kept)


def parts(species: Tensor) -> List[Union[str, Tensor]]:
    kept = species[species != -1]
    return [kept]


def generate(module, tokenizer, ids: Tensor, steps: int) -> str:
    for _ in range(steps):
        nxt = module(ids[:, -1:]).argmax(-1, keepdim=True)
        ids = ids[:, ids[0] != 0]
        if nxt.item() == tokenizer.eos_token_id:
            break
    return tokenizer.decode(ids[0])
'''


def test_forward_declared_to_return_text_is_no_entry_point(dynlint, write):
    found = _findings(dynlint, str(write("utils.py", TEXT_MODULE)))
    assert (13, "DYN101") not in found and (16, "DYN201") not in found    # symbols: text
    assert found == {(26, "DYN101")}                                       # indices: a step


def test_function_declared_to_return_text_is_cold(dynlint, write):
    found = _findings(dynlint, str(write("describe.py", TEXT_FUNCTIONS)))
    assert found == {(12, "DYN101"), (17, "DYN101"),      # not `-> Tuple[str, ...]` (line 7)
                     (24, "DYN101"), (25, "DYN201")}      # decodes what its loop produced
