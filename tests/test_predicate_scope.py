"""Predicates told from what a function returns (hand readings b, c and e,
bench/results/handread_causes.md, session 28): a function whose every `return` is a Python bool
(`torch.unique(...).size(0) < n`, `return False`/`return True` after a read) and that stores
nothing into an object answers a question about its arguments: soft cold, like a function
returning Python floats. Model code reaching a predicate keeps it in scope, and so does a
`__call__` (a generation loop's stopping criterion); twins returning tensors stay flagged, and
so does a setter that returns `True`. A function named through its package and module
(`pkg.backend.f(...)`) is reached. Through the real CLI; the snippets are excerpts of
torch_geometric 2.8.1 (MIT), asteroid 0.7.0 (MIT) and transformers (Apache 2.0).
"""
from __future__ import annotations

from _tree import findings, write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/hypergraph.py": """\
        import torch


        class HyperGraphData:
            def __init__(self, edge_index, num_nodes):
                self.edge_index = edge_index
                self.num_nodes = num_nodes

            def has_isolated_nodes(self) -> bool:
                return torch.unique(self.edge_index[0]).size(0) < self.num_nodes

            def connected_nodes(self):
                return torch.unique(self.edge_index[0])
        """,
    "pkg/torch_utils.py": """\
        import torch


        def are_models_equal(model1, model2):
            for p1, p2 in zip(model1.parameters(), model2.parameters()):
                if p1.data.ne(p2.data).sum() > 0:
                    return False
            return True


        def first_difference(model1, model2):
            for p1, p2 in zip(model1.parameters(), model2.parameters()):
                if p1.data.ne(p2.data).sum() > 0:
                    return p1
            return None


        def has_nan(x):
            return bool(torch.isnan(x).any())


        class Net(torch.nn.Module):
            def forward(self, x):
                if has_nan(x):
                    x = torch.nan_to_num(x)
                return x
        """,
    # transformers `generation/stopping_criteria.py`, excerpted: a generation loop calls the
    # criterion on every new token; its `__call__` answers with a bool, but is no query.
    "pkg/criteria.py": """\
        import torch


        class ConfidenceCriteria:
            def __init__(self, assistant_confidence_threshold):
                self.assistant_confidence_threshold = assistant_confidence_threshold

            def __call__(self, input_ids: torch.Tensor, scores: tuple[torch.Tensor], **kwargs):
                if scores is None:
                    return False
                probs = scores[-1].softmax(-1)
                p = probs[0, input_ids[0, -1]].item()
                if p < self.assistant_confidence_threshold:
                    return True
                return False
        """,
}


def test_predicates_are_soft_cold(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    found = findings(dynlint, tmp_path, ".", "--no-cache")
    lines = {(p, line) for p, line, _ in found}
    assert ("hypergraph.py", 10) not in lines, found     # has_isolated_nodes: a bool
    assert ("hypergraph.py", 13) in lines, found         # its twin returns the nodes
    assert ("torch_utils.py", 6) not in lines, found     # are_models_equal
    assert ("torch_utils.py", 13) in lines, found        # first_difference returns a tensor
    assert ("torch_utils.py", 19) in lines, found        # has_nan: forward calls it
    assert ("criteria.py", 12) in lines, found            # a stopping criterion's __call__
    r = dynlint("check", "--explain", "pkg/hypergraph.py:10", cwd=tmp_path)
    assert "a predicate" in r.stdout, r.stdout


def test_a_predicate_model_code_of_another_file_calls_stays_in_scope(dynlint, tmp_path):
    files = dict(FILES)
    files["pkg/model.py"] = """\
        import torch
        from pkg.torch_utils import are_models_equal


        class Ensemble(torch.nn.Module):
            def __init__(self, a, b):
                super().__init__()
                self.a, self.b = a, b

            def forward(self, x):
                if are_models_equal(self.a, self.b):
                    return self.a(x)
                return self.a(x) + self.b(x)
        """
    write_tree(tmp_path, files)
    found = findings(dynlint, tmp_path, ".", "--no-cache")
    assert ("torch_utils.py", 6) in {(p, line) for p, line, _ in found}, found


def test_a_setter_returning_true_is_no_predicate(dynlint, tmp_path):
    files = dict(FILES)
    files["pkg/store.py"] = """\
        from torch import Tensor


        class FeatureStore:
            def __init__(self):
                self._global_id = {}
                self._index = {}

            def put_global_id(self, global_id: Tensor, group_name: str):
                self._global_id[group_name] = global_id
                self._index[group_name] = global_id.new_full((int(global_id.max()) + 1,), -1)
                return True
        """
    write_tree(tmp_path, files)
    found = findings(dynlint, tmp_path, ".", "--no-cache")
    assert ("store.py", 11) in {(p, line) for p, line, _ in found}, found


# torch_geometric 2.8.1 `backend.py` and `nn/conv/rgcn_conv.py`, excerpted: the module's
# forward names the heuristic through its package and module; the predicate is model code.
DOTTED = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/backend.py": """\
        import torch


        def use_segment_matmul_heuristic(num_segments: int, max_segment_size: int) -> bool:
            x = torch.tensor([num_segments, max_segment_size])
            weight = torch.tensor([2.4, 1.6])
            return bool(x @ weight >= 1.2)
        """,
    "pkg/conv.py": """\
        import torch

        import pkg


        class RGCNConv(torch.nn.Module):
            def forward(self, x, edge_type):
                if pkg.backend.use_segment_matmul_heuristic(x.size(0), x.size(1)):
                    return x * 2
                return x
        """,
}


def test_a_function_named_through_its_package_and_module_is_reached(dynlint, tmp_path):
    write_tree(tmp_path, DOTTED)
    found = findings(dynlint, tmp_path, ".", "--no-cache")
    assert ("backend.py", 7) in {(p, line) for p, line, _ in found}, found
    r = dynlint("check", "--explain", "pkg/backend.py:7", cwd=tmp_path)
    assert "RGCNConv.forward" in r.stdout, r.stdout
