"""Small models of our own, one per problem `dynlint confirm` must get right (no tests here)."""
from __future__ import annotations

import collections
import dataclasses

import torch


class GraphBatch:
    """A PyG-like batch: tensors as attributes, passed as model(data)."""

    def __init__(self, x, batch):
        self.x, self.batch = x, batch


@dataclasses.dataclass(frozen=True)
class FrozenBatch:
    x: torch.Tensor
    batch: torch.Tensor


SlotsBatch = collections.namedtuple("SlotsBatch", "x batch")


class Filter(torch.nn.Module):
    """Truly dynamic: keeps the nodes whose score is positive."""

    def __init__(self):
        super().__init__()
        self.score = torch.nn.Linear(4, 1)

    def forward(self, x):
        return x[self.score(x).squeeze(-1) > 0]


class ConstantReadParent(torch.nn.Module):
    """Reads the number of graphs from the data (a host read), which is the same every step."""

    def __init__(self):
        super().__init__()
        self.filter = Filter()

    def forward(self, data):
        if not isinstance(data, (GraphBatch, FrozenBatch, SlotsBatch)):
            raise TypeError(f"expected a batch object, got {type(data).__name__}")
        graphs = int(data.batch.max()) + 1
        kept = self.filter(data.x)
        return kept.sum(0, keepdim=True).expand(graphs, -1)


def graph_batches(kind=GraphBatch, steps: int = 4, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    batch = torch.tensor([0] * 5 + [1] * 4 + [2] * 3 + [3] * 4)  # 4 graphs every step
    return [kind(torch.randn(16, 4, generator=gen), batch.clone()) for _ in range(steps)]


class AnchorHead(torch.nn.Module):
    """Caches its anchors on its first call, rebuilds them when the feature map size changes."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 2, 3, padding=1)
        self._anchors = None
        self._size = None

    def forward(self, feats):
        if self._anchors is None or self._size != feats.shape[-2:]:
            h, w = feats.shape[-2:]
            ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
            self._anchors = torch.stack([xs, ys], -1).float().reshape(-1, 2) * 8 + 4
            self._size = feats.shape[-2:]
        deltas = self.conv(feats).flatten(2).transpose(1, 2)
        return deltas + self._anchors


class AnchorDetector(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.head = AnchorHead()

    def forward(self, images):
        return self.head(torch.relu(self.backbone(images)))


class EdgeScorer(torch.nn.Module):
    """Gathers along a (2, E) edge index (an out-of-range index raises) and scores the nodes
    that receive an edge, `unique(dst)`, whose count depends on the data."""

    def forward(self, x, edge_index, node_graph):
        src, dst = edge_index
        messages = torch.zeros_like(x).index_add_(0, dst, x[src])
        receivers = torch.unique(dst)
        graphs = torch.zeros(4, x.shape[1]).index_add_(0, node_graph.long(), x)  # float batch vector
        return messages[receivers].sum(-1), graphs


def edge_batches(steps: int = 1, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    node_graph = torch.tensor([0.0] * 4 + [1.0] * 4 + [2.0] * 4 + [3.0] * 4)  # indices stored as float
    out = []
    for _ in range(steps):
        edges = torch.stack([torch.randint(16, (40,), generator=gen), torch.randint(10, (40,), generator=gen)])
        out.append((torch.randn(16, 3, generator=gen), edges, node_graph))
    return out


def select_active(x, threshold):
    """A free function: the module that calls it owns its data-dependent op."""
    return x[x.sum(-1) > threshold]


class ActiveHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(6, 6)

    def forward(self, x):
        h = self.lin(x)
        return select_active(h, h.sum(-1).mean()).sum(0)  # the rows above the batch's mean


class FreeFunctionNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Linear(6, 6)
        self.act = torch.nn.ReLU()  # one instance shared by two owners
        self.block = torch.nn.Sequential(torch.nn.Linear(6, 6), self.act)
        self.head = ActiveHead()

    def forward(self, x):
        return self.head(self.block(self.act(self.stem(x))))


def free_batches(steps: int = 4, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(12, 6, generator=gen) for _ in range(steps)]


def free_factory():
    torch.manual_seed(0)
    return FreeFunctionNet().eval(), free_batches()


def anchor_factory():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    return AnchorDetector().eval(), [torch.rand(2, 3, 32, 32, generator=gen) for _ in range(3)]
