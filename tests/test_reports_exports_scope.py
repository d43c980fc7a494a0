"""Two more kinds of reporting code told from what a function does (`analysis/reporting.py`),
through the real CLI: a function that writes text to a file or stream and hands nothing back is
a report, cold whoever calls it; a function whose every return is an object of a host container
library (a scipy sparse matrix, a networkx/networkit graph) is an export, soft cold. Each false
alarm was read by hand (bench/results/handread_b.md, handread_causes.md, session 30); each has a
twin that stays flagged. The snippets are excerpts of real code.
"""
import json

from _tree import corpus_function

_CORPUS_TO_NETWORKIT = corpus_function("torch_geometric/utils/convert.py", "to_networkit")

# speechbrain 1.1.2 (Apache 2.0), `utils/metric_stats.py` `ClassificationStats._write_confusion`,
# and flair 0.15.1 (MIT), `training_utils.py` `WeightExtractor.extract_weights`, excerpted: the
# confusion matrix and watched weights go to a text stream. `_encode_decode` (speechbrain's
# `augment/codec.py`) writes the batch's data through soundfile inside an augmentation: a real
# copy in the step, still flagged; `decode` writes text too but hands its tokens back, and
# `check` warns on `sys.stderr`, a stream it neither is given nor opens.
REPORTS = '''\
import io
import sys

import soundfile as sf
import torch


class Stats:
    def write_stats(self, filestream):
        self._write_confusion(filestream)

    def _write_confusion(self, filestream):
        confusion_matrix = self.summary["confusion_matrix"].int()
        totals = confusion_matrix.sum(dim=-1)
        for key, key_predictions, total in zip(self._available_keys, confusion_matrix, totals):
            print(f"Target: {key}", file=filestream)
            (indexes,) = torch.where(key_predictions > 0)
            total = total.item()
            for index in indexes:
                count = key_predictions[index].item()
                print(f"  -> {index}: {count} / {total}", file=filestream)


class WeightExtractor:
    def extract_weights(self, state_dict: dict, iteration: int) -> None:
        for key in state_dict:
            vec = state_dict[key]
            for i in range(self.number_of_weights):
                value = vec[i].item()
                with open(self.weights_file, "a") as f:
                    f.write(f"{iteration}\\t{key}\\t{i}\\t{float(value)}\\n")


class Codec(torch.nn.Module):
    def forward(self, waveform):
        self.stats.write_stats(self.stream)
        self.extractor.extract_weights(self.state_dict(), 0)
        self.check(waveform)
        return self._encode_decode(waveform) + self.decode(waveform).sum()

    def _encode_decode(self, waveform):
        buffer = io.BytesIO()
        sf.write(buffer, waveform.numpy(), 16000, format="ogg")
        buffer.seek(0)
        return torch.from_numpy(sf.read(buffer)[0])

    def decode(self, x):
        tokens = x[x > 0]
        print(f"{tokens.shape}", file=self.stream)
        return tokens

    def check(self, x):
        if (x < 0).any():
            print(f"negative input: {x.min().item()}", file=sys.stderr)
'''

# torch_geometric 2.8.1 (MIT), `utils/convert.py` (`to_networkit` read from the corpus copy, the
# others excerpted): the graph exported to a networkit graph, a networkx graph and a scipy sparse
# matrix. A pooling `forward` of the same file that runs a scipy graph algorithm on the exported
# matrix (`ClusterPooling._merge_edges`) makes the export part of its step: reached from model
# code, it stays reported. A matcher handing back what a scipy solver returns (index arrays the
# step goes on with) is no export.
EXPORTS = '''\
import torch
from scipy.optimize import linear_sum_assignment


def to_scipy_sparse_matrix(edge_index, edge_attr=None, num_nodes=None):
    import scipy.sparse as sp

    row, col = edge_index.cpu()
    if edge_attr is None:
        edge_attr = torch.ones(row.size(0), device="cpu")
    N = num_nodes
    out = sp.coo_matrix((edge_attr.numpy(), (row.numpy(), col.numpy())), (N, N))
    return out


''' + _CORPUS_TO_NETWORKIT + '''

def to_networkx(edge_index, graph_attrs, to_undirected=False):
    import networkx as nx

    G = nx.Graph() if to_undirected else nx.DiGraph()
    for key, value in graph_attrs.items():
        G.graph[key] = value[value > 0].tolist()
    return G


def match(cost):
    return linear_sum_assignment(cost.detach().cpu())


class ClusterPooling(torch.nn.Module):
    def forward(self, x, edge_index, edge_score):
        from scipy.sparse.csgraph import connected_components

        edge_contract = edge_index[:, edge_score > self.threshold]
        adj = to_scipy_sparse_matrix(edge_contract, num_nodes=x.size(0))
        _, cluster = connected_components(adj, directed=True, connection="weak")
        return x, torch.tensor(cluster, device=x.device), match(edge_score[None])
'''


def _findings(dynlint, path, *extra):
    proc = dynlint("check", "--format", "json", "--no-cache", "--exit-zero", *extra, path)
    assert proc.returncode == 0, proc.stderr
    return {(f["line"], f["code"]) for f in json.loads(proc.stdout)}


def _line(text, needle):
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_text_reports_are_cold_whoever_calls_them(dynlint, write):
    path = write("stats.py", REPORTS)
    found = _findings(dynlint, path)
    lines = {line for line, _ in found}
    start, end = _line(REPORTS, "def _write_confusion"), _line(REPORTS, "class Codec")
    assert not [line for line in lines if start < line < end], found
    assert (_line(REPORTS, "sf.write(buffer, waveform.numpy()"), "DYN214") in found, found
    assert (_line(REPORTS, "tokens = x[x > 0]"), "DYN101") in found, found
    # a warning to stderr from a check the forward runs is no report: the check syncs every step
    assert (_line(REPORTS, "if (x < 0).any():"), "DYN204") in found, found
    proc = dynlint("check", "--explain", f"{path}:{_line(REPORTS, 'total = total.item()')}")
    assert proc.returncode == 0, proc.stderr
    assert "cold" in proc.stdout and "writes text" in proc.stdout, proc.stdout


def test_exports_to_host_libraries_are_soft_cold(dynlint, write):
    path = write("convert.py", EXPORTS)
    for extra in ((), ("--isolated",)):
        found = _findings(dynlint, path, *extra)
        assert (_line(EXPORTS, "edge_index = edge_index[:, mask]"), "DYN101") not in found, found
        assert (_line(EXPORTS, "edge_weight = edge_weight[mask]"), "DYN101") not in found, found
        # (storing into the graph, `G.graph[key] = ...`, binds no new `G`)
        assert (_line(EXPORTS, "G.graph[key] = value[value > 0]"), "DYN101") not in found, found
        # reached from the pooling forward: the export runs in its step
        assert (_line(EXPORTS, "row, col = edge_index.cpu()"), "DYN214") in found, found
        # a solver's result is no exported object
        assert (_line(EXPORTS, "return linear_sum_assignment("), "DYN214") in found, found
    proc = dynlint("check", "--explain", f"{path}:{_line(EXPORTS, 'edge_weight = edge_weight[mask]')}")
    assert proc.returncode == 0, proc.stderr
    assert "host container library" in proc.stdout, proc.stdout
