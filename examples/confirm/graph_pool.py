"""A small graph network fed a PyG-like batch object, for `dynlint confirm`.

The batch holds its tensors as attributes (node features `x`, a (2, E) int64
`edge_index`, a sorted `batch` vector naming each node's graph) and is passed
as `model(data)`.  The readout pools node features per graph through a free
function whose output has one row per graph, `int(batch.max()) + 1`: every step
has the same number of nodes and edges (same input shapes) but not the same
number of graphs, so the readout's graph changes with the data.

    dynlint confirm examples/confirm/graph_pool.py --entry examples.confirm.graph_pool:factory
"""
import torch

NODES, EDGES, FEATURES = 24, 48, 8
GRAPHS_PER_STEP = (3, 4, 3, 5, 4)


class GraphBatch:
    """Tensors as attributes, like torch_geometric's Batch."""

    def __init__(self, x, edge_index, batch):
        self.x, self.edge_index, self.batch = x, edge_index, batch

    @property
    def num_nodes(self) -> int:
        return self.x.shape[0]


def global_add_pool(x, batch):
    size = int(batch.max()) + 1  # one row per graph: the count comes from the data
    return torch.zeros(size, x.shape[1], dtype=x.dtype).index_add_(0, batch, x)


class GraphConv(torch.nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.lin = torch.nn.Linear(features, features)

    def forward(self, x, edge_index):
        src, dst = edge_index
        messages = torch.zeros_like(x).index_add_(0, dst, x[src])
        return torch.relu(self.lin(x + messages))


class Readout(torch.nn.Module):
    def forward(self, x, batch):
        return global_add_pool(x, batch)


class GraphNet(torch.nn.Module):
    def __init__(self, features: int = FEATURES, classes: int = 3):
        super().__init__()
        self.conv1 = GraphConv(features)
        self.conv2 = GraphConv(features)
        self.readout = Readout()
        self.head = torch.nn.Linear(features, classes)

    def forward(self, data):
        x = self.conv1(data.x, data.edge_index)
        x = self.conv2(x, data.edge_index)
        return self.head(self.readout(x, data.batch))


def make_graph_batch(graphs: int, gen: torch.Generator) -> GraphBatch:
    """`graphs` graphs sharing NODES nodes and EDGES edges; edges stay inside their graph."""
    cuts = torch.sort(torch.randperm(NODES - 1, generator=gen)[: graphs - 1] + 1).values
    sizes = torch.diff(torch.cat([torch.tensor([0]), cuts, torch.tensor([NODES])]))
    batch = torch.repeat_interleave(torch.arange(graphs), sizes)
    start = torch.cat([torch.tensor([0]), torch.cumsum(sizes, 0)[:-1]])
    owner = torch.randint(graphs, (EDGES,), generator=gen)
    src = start[owner] + (torch.rand(EDGES, generator=gen) * sizes[owner]).long()
    dst = start[owner] + (torch.rand(EDGES, generator=gen) * sizes[owner]).long()
    return GraphBatch(torch.rand(NODES, FEATURES, generator=gen), torch.stack([src, dst]), batch)


def make_batches(graphs=GRAPHS_PER_STEP, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    return [make_graph_batch(g, gen) for g in graphs]


def factory():
    torch.manual_seed(0)
    return GraphNet().eval(), make_batches()
