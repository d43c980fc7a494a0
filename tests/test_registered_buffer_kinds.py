"""A registered buffer is a tensor: `self.register_buffer("name", value)` raises unless the value
is a tensor or None, so `self.name` holds a tensor whatever the inferred kind of `value` (a
constructor parameter, unknown); a bool one only when every assignment is a bool tensor; a
literal None says nothing. Through the real CLI. Modelled on pykeen 1.11.1 (MIT)
`nn/message_passing.py` (R-GCN's edge types, registered from a constructor argument).
"""
from _tree import findings

GRAPH = '''\
import torch
from torch import nn


class BasesDecomposition(nn.Module):
    def __init__(self, edge_types, num_relations: int):
        super().__init__()
        self.num_relations = num_relations
        self.register_buffer("edge_types", edge_types)
        self.register_buffer("cache", None)
        self.plain = edge_types

    def forward(self, x):
        edge_types = self.edge_types
        for r in range(self.num_relations):
            mask = edge_types == r
            if not mask.any():
                continue
            x = x + x[mask].sum()
        if (self.plain == 0).any():
            x = x * 2
        if self.cache:
            x = x + 1
        return x
'''



def test_buffer_registered_from_a_parameter_is_a_tensor(dynlint, write, tmp_path):
    write("message_passing.py", GRAPH)
    found = findings(dynlint, tmp_path, "message_passing.py", "--no-cache", "--isolated",
                     "--exit-zero")
    # `mask.any()` of the buffer's comparison, and its mask index; a plain attribute set from
    # the same parameter stays unknown, and a buffer registered as None says nothing.
    assert found == [("message_passing.py", 17, "DYN204"), ("message_passing.py", 19, "DYN101")]
