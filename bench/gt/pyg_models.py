"""PyTorch Geometric: GNN models and layers built in code (random weights, random graphs of a few
dozen nodes, no dataset). Node classification with the basic models (GCN, GAT, GraphSAGE, GIN,
with jumping knowledge) and edge dropout in the training step; graph classification over a
mini-batch of graphs with TopKPooling / SAGPooling / ASAPooling / EdgePooling and global pooling;
dense pooling (`to_dense_batch`, `to_dense_adj`, DiffPool, DMoN, MemPooling); a graph transformer
(GPSConv, TransformerConv, SetTransformer/Sort aggregations); link prediction with a graph
auto-encoder (negative sampling, `subgraph`, `k_hop_subgraph`, `dropout_node`); GraphUNet and
AttentiveFP; RGCN, PNA, DeepGCN/GENConv, `to_hetero` GraphSAGE and HGT. Not covered: layers that
need the compiled pyg-lib/torch-cluster (knn/radius graphs: SchNet, DimeNet, EdgeConv's knn). Graphs and mini-batches (`Batch.from_data_list`) are made in the builder: the data
pipeline is outside the step, as a loader would run it."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from . import gen, step

N_FEAT, N_CLS = 8, 3


def _graph(n=40, e=160, seed=81, edge_dim=None):
    from torch_geometric.data import Data
    from torch_geometric.utils import coalesce, remove_self_loops, to_undirected
    g = gen(seed)
    ei = torch.randint(0, n, (2, e), generator=g)
    ei, _ = remove_self_loops(ei)
    ei = coalesce(to_undirected(ei), num_nodes=n)
    d = Data(x=torch.randn(n, N_FEAT, generator=g), edge_index=ei, y=torch.randint(0, N_CLS, (n,), generator=g))
    d.train_mask = torch.rand(n, generator=g) < 0.6
    if edge_dim:
        d.edge_attr = torch.randn(ei.size(1), edge_dim, generator=g)
    return d


def _graph_batch(k=4, seed=82, edge_dim=None):
    from torch_geometric.data import Batch
    graphs = []
    for i in range(k):
        d = _graph(n=10 + 3 * i, e=30 + 8 * i, seed=seed + i, edge_dim=edge_dim)
        d.y = torch.tensor([i % N_CLS])
        graphs.append(d)
    return Batch.from_data_list(graphs)


def node_classification():
    """GCN, GAT, GraphSAGE and GIN (torch_geometric.nn.models) on one graph; the training step drops
    edges (`dropout_edge`) and computes a masked cross-entropy."""
    def build():
        from torch_geometric.nn.models import GAT, GCN, GIN, GraphSAGE
        from torch_geometric.utils import dropout_edge
        nets = torch.nn.ModuleList([
            GCN(N_FEAT, 16, 2, N_CLS),
            GAT(N_FEAT, 16, 2, N_CLS, heads=2, v2=True),
            GraphSAGE(N_FEAT, 16, 2, N_CLS, jk="cat"),
            GIN(N_FEAT, 16, 2, N_CLS, jk="max"),
        ])
        data = _graph()

        def run(data):
            ei = data.edge_index
            if nets.training:
                ei, _ = dropout_edge(ei, p=0.2, training=True)
            outs = [net(data.x, ei) for net in nets]
            m = data.train_mask
            return sum(F.cross_entropy(o[m], data.y[m]) for o in outs)
        return step(run, eval_runs=((data,), {}), train_runs=((data,), {}), nets=nets)
    return build


class _PoolNet(torch.nn.Module):
    """A graph classifier: GIN/GraphConv layers, one pooling layer, global mean+max readout."""

    def __init__(self, pool):
        super().__init__()
        from torch_geometric.nn import GINConv, GraphConv
        self.conv1 = GINConv(torch.nn.Sequential(torch.nn.Linear(N_FEAT, 16), torch.nn.ReLU(),
                                                 torch.nn.Linear(16, 16)))
        self.pool = pool
        self.conv2 = GraphConv(16, 16)
        self.lin = torch.nn.Linear(32, N_CLS)

    def forward(self, x, edge_index, batch):
        from torch_geometric.nn import global_max_pool, global_mean_pool
        x = self.conv1(x, edge_index).relu()
        out = self.pool(x, edge_index, batch=batch)
        if type(self.pool).__name__ == "EdgePooling":
            x, edge_index, batch, _ = out
        else:
            x, edge_index, _, batch = out[:4]
        x = self.conv2(x, edge_index).relu()
        x = torch.cat([global_mean_pool(x, batch), global_max_pool(x, batch)], 1)
        return self.lin(x)


def graph_classification():
    def build():
        from torch_geometric.nn import ASAPooling, EdgePooling, SAGPooling, TopKPooling
        nets = torch.nn.ModuleList([_PoolNet(TopKPooling(16, ratio=0.5)), _PoolNet(SAGPooling(16, ratio=0.5)),
                                    _PoolNet(ASAPooling(16, ratio=0.5)), _PoolNet(EdgePooling(16))])
        b = _graph_batch()

        def run(b):
            return sum(F.cross_entropy(net(b.x, b.edge_index, b.batch), b.y) for net in nets)
        return step(run, eval_runs=((b,), {}), train_runs=((b,), {}), nets=nets)
    return build


class _DensePool(torch.nn.Module):
    """Sparse GCN, then to dense (`to_dense_batch`, `to_dense_adj`), DiffPool and DMoN pooling,
    MemPooling on the sparse node set."""

    def __init__(self):
        super().__init__()
        from torch_geometric.nn import DenseGCNConv, DMoNPooling, GCNConv, MemPooling
        self.conv = GCNConv(N_FEAT, 16)
        self.assign = DenseGCNConv(16, 4)
        self.dmon = DMoNPooling([16, 16], 3)
        self.mem = MemPooling(16, 16, heads=2, num_clusters=2)
        self.lin = torch.nn.Linear(16 * 3, N_CLS)

    def forward(self, x, edge_index, batch):
        from torch_geometric.nn import dense_diff_pool
        from torch_geometric.utils import to_dense_adj, to_dense_batch
        x = self.conv(x, edge_index).relu()
        xd, mask = to_dense_batch(x, batch)
        adj = to_dense_adj(edge_index, batch)
        s = self.assign(xd, adj, mask)
        x1, _, link_loss, ent_loss = dense_diff_pool(xd, adj, s, mask)
        _, x2, _, sp, o, c = self.dmon(xd, adj, mask)
        x3, s3 = self.mem(x, batch)
        h = torch.cat([x1.mean(1), x2.mean(1), x3.mean(1)], 1)
        return self.lin(h), link_loss + ent_loss + sp + o + c + type(self.mem).kl_loss(s3)


def dense_pooling():
    def build():
        net = _DensePool()
        b = _graph_batch(seed=90)

        def run(b):
            out, aux = net(b.x, b.edge_index, b.batch)
            return F.cross_entropy(out, b.y) + aux
        return step(run, eval_runs=((b,), {}), train_runs=((b,), {}), net=net)
    return build


class _GraphTransformer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        from torch_geometric.nn import GINEConv, GPSConv, TransformerConv
        from torch_geometric.nn.aggr import SetTransformerAggregation, SortAggregation
        self.inp = torch.nn.Linear(N_FEAT, 16)
        self.gps = GPSConv(16, GINEConv(torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU()), edge_dim=4),
                           heads=2, attn_type="multihead")
        self.tconv = TransformerConv(16, 8, heads=2, edge_dim=4)
        self.set_aggr = SetTransformerAggregation(16, num_seed_points=2, heads=2)
        self.sort_aggr = SortAggregation(k=5)
        self.lin = torch.nn.Linear(16 * 2 + 16 * 5, N_CLS)

    def forward(self, x, edge_index, edge_attr, batch):
        h = self.inp(x)
        h = self.gps(h, edge_index, batch, edge_attr=edge_attr)
        h = self.tconv(h, edge_index, edge_attr)
        a = self.set_aggr(h, batch)
        s = self.sort_aggr(h, batch)
        return self.lin(torch.cat([a, s], 1))


def graph_transformer():
    def build():
        net = _GraphTransformer()
        b = _graph_batch(seed=95, edge_dim=4)

        def run(b):
            return F.cross_entropy(net(b.x, b.edge_index, b.edge_attr, b.batch), b.y)
        return step(run, eval_runs=((b,), {}), train_runs=((b,), {}), net=net)
    return build


def link_prediction():
    """A variational graph auto-encoder trained on a sampled subgraph: `k_hop_subgraph` around seed
    nodes, `subgraph`, `dropout_node`, `negative_sampling` inside `recon_loss`, the KL term; eval
    scores held-out edges against batched negative samples."""
    def build():
        from torch_geometric.nn import VGAE, GCNConv

        class Encoder(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = GCNConv(N_FEAT, 16)
                self.mu = GCNConv(16, 8)
                self.logstd = GCNConv(16, 8)

            def forward(self, x, edge_index):
                h = self.conv(x, edge_index).relu()
                return self.mu(h, edge_index), self.logstd(h, edge_index)

        model = VGAE(Encoder())
        data = _graph(n=50, e=200, seed=97)

        def run(data):
            from torch_geometric.utils import (
                batched_negative_sampling,
                dropout_node,
                k_hop_subgraph,
                subgraph,
            )
            seeds = torch.arange(0, 10)
            subset, ei, _, _ = k_hop_subgraph(seeds, 2, data.edge_index, relabel_nodes=False,
                                              num_nodes=data.num_nodes)
            ei, _ = subgraph(subset, data.edge_index, relabel_nodes=True, num_nodes=data.num_nodes)
            x = data.x[subset]
            if model.training:
                ei, _, _ = dropout_node(ei, p=0.1, num_nodes=x.size(0))
            z = model.encode(x, ei)
            loss = model.recon_loss(z, ei) + model.kl_loss() / x.size(0)
            if not model.training:
                batch = torch.zeros(x.size(0), dtype=torch.long)
                neg = batched_negative_sampling(ei, batch)
                loss = loss + model.decoder(z, neg, sigmoid=True).mean()
            return loss
        return step(run, eval_runs=((data,), {}), train_runs=((data,), {}), model=model)
    return build


def unet_attentivefp():
    """GraphUNet (TopK pooling with adjacency augmentation) on one graph and AttentiveFP (GATE
    convolutions, attention readout) on a molecule-like mini-batch with edge features."""
    def build():
        from torch_geometric.nn.models import AttentiveFP, GraphUNet
        unet = GraphUNet(N_FEAT, 16, N_CLS, depth=2, pool_ratios=0.5)
        afp = AttentiveFP(N_FEAT, 16, N_CLS, edge_dim=4, num_layers=2, num_timesteps=2)
        data = _graph(seed=99)
        b = _graph_batch(seed=100, edge_dim=4)

        def run(data, b):
            out = unet(data.x, data.edge_index)
            m = data.train_mask
            return (F.cross_entropy(out[m], data.y[m])
                    + F.cross_entropy(afp(b.x, b.edge_index, b.edge_attr, b.batch), b.y))
        return step(run, eval_runs=((data, b), {}), train_runs=((data, b), {}), unet=unet, afp=afp)
    return build


def relational_hetero():
    """Relational and heterogeneous layers: RGCNConv and PNAConv (degree histogram computed in the
    builder, as a dataset pass does), a DeepGCN block with GENConv, and a heterogeneous GraphSAGE
    made with `to_hetero` plus an HGTConv on a two-type graph."""
    def build():
        from torch_geometric.data import HeteroData
        from torch_geometric.nn import (
            DeepGCNLayer,
            GENConv,
            HGTConv,
            PNAConv,
            RGCNConv,
            SAGEConv,
            to_hetero,
        )
        from torch_geometric.utils import degree
        data = _graph(seed=101, edge_dim=4)
        edge_type = torch.randint(0, 3, (data.edge_index.size(1),), generator=gen(102))
        deg = torch.bincount(degree(data.edge_index[1], data.num_nodes, dtype=torch.long))
        rgcn = RGCNConv(N_FEAT, 16, num_relations=3, num_bases=2)
        pna = PNAConv(N_FEAT, 16, aggregators=["mean", "min", "max", "std"],
                      scalers=["identity", "amplification", "attenuation"], deg=deg, edge_dim=4)
        deep = DeepGCNLayer(GENConv(16, 16, aggr="softmax", t=1.0, learn_t=True, num_layers=2,
                                    norm="layer", edge_dim=4),
                            torch.nn.LayerNorm(16), torch.nn.ReLU(), block="res+", dropout=0.1)

        class Sage(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.c1 = SAGEConv((-1, -1), 16)
                self.c2 = SAGEConv((-1, -1), N_CLS)

            def forward(self, x, edge_index):
                return self.c2(self.c1(x, edge_index).relu(), edge_index)

        g = gen(103)
        het = HeteroData()
        het["paper"].x = torch.randn(20, N_FEAT, generator=g)
        het["author"].x = torch.randn(12, N_FEAT, generator=g)
        het["paper"].y = torch.randint(0, N_CLS, (20,), generator=g)
        het["author", "writes", "paper"].edge_index = torch.stack(
            [torch.randint(0, 12, (40,), generator=g), torch.randint(0, 20, (40,), generator=g)])
        het["paper", "rev_writes", "author"].edge_index = het["author", "writes", "paper"].edge_index.flip(0)
        sage = to_hetero(Sage(), het.metadata(), aggr="sum")
        hgt = HGTConv(N_FEAT, 16, het.metadata(), heads=2)
        sage(het.x_dict, het.edge_index_dict)          # lazy (-1) sizes are set on a first call
        nets = torch.nn.ModuleList([rgcn, pna, deep, sage, hgt])

        def run(data, edge_type, het):
            h = rgcn(data.x, data.edge_index, edge_type).relu() + pna(data.x, data.edge_index, data.edge_attr)
            h = deep(h, data.edge_index, data.edge_attr)
            out = sage(het.x_dict, het.edge_index_dict)["paper"]
            z = hgt(het.x_dict, het.edge_index_dict)["paper"]
            return h.pow(2).mean() + F.cross_entropy(out, het["paper"].y) + z.mean()
        return step(run, eval_runs=((data, edge_type, het), {}), train_runs=((data, edge_type, het), {}),
                    nets=nets)
    return build


MODELS = {
    "pyg_node_classification": node_classification(),
    "pyg_graph_classification_pool": graph_classification(),
    "pyg_dense_pooling": dense_pooling(),
    "pyg_graph_transformer": graph_transformer(),
    "pyg_link_prediction_vgae": link_prediction(),
    "pyg_graph_unet_attentivefp": unet_attentivefp(),
    "pyg_relational_hetero": relational_hetero(),
}
