"""Kinds that reach a file from another file of its project, three ways (suite g's misses):

* a module's attribute set by a base of another file and called (`mat = self.distance(emb,
  ref)` in pytorch-metric-learning's miners, `self.distance` stored by a base's `__init__` from
  a constructor argument or a default): no class along the bases defines a method of that name
  and one is an `nn.Module`, so it is a submodule or a tensor function: probably a tensor;
* a helper of another file handing back its argument (`labels = to_device(labels, device=d)`,
  rebound from itself by `x.to(d)`, `to_dtype(x, ...)`): the caller's value keeps its kind;
* a static method of a class of an imported module (`settings.nan_policy._get_observed(t)`,
  gpytorch's NaN masks): its summary, as a function's.

Each file checked alone gets what it gets with its project. Through the real CLI."""
from __future__ import annotations


from _tree import write_tree, findings

BASE = """\
    import torch


    class Dist(torch.nn.Module):
        def forward(self, x, y):
            return x @ y.t()


    class WithDistance(torch.nn.Module):
        def __init__(self, distance=None):
            super().__init__()
            self.distance = self.default_distance() if distance is None else distance

        def default_distance(self):
            return Dist()

        def forward(self, emb, labels):
            return self.mine(emb, labels)

        def mine(self, emb, labels):
            raise NotImplementedError
    """

MINER = """\
    from pkg.base import WithDistance


    class Miner(WithDistance):
        def mine(self, emb, labels):
            pairs = labels
            mat = self.distance(emb, emb)
            cond = mat[pairs, pairs] <= 0.2
            return pairs[cond]
    """

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/base.py": BASE,
    "pkg/miner.py": MINER,
}


def _findings(dynlint, root, *args):
    return findings(dynlint, root, *args, "--no-cache")


def test_a_module_attribute_stored_by_a_base_of_another_file(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    for target in (".", "pkg/miner.py"):
        assert ("miner.py", 9, "DYN101") in _findings(dynlint, tmp_path, target), target


def test_a_method_of_the_bases_is_no_attribute(dynlint, tmp_path):
    # `self.distance` is a method of the base here: what it returns is its own summary (a
    # plain number), not a submodule's output
    files = dict(FILES)
    files["pkg/base.py"] = BASE.replace(
        "def default_distance(self):\n            return Dist()",
        "def distance(self, x, y):\n            return 0.5")
    write_tree(tmp_path, files)
    assert ("miner.py", 9, "DYN101") not in _findings(dynlint, tmp_path, ".")


def test_a_plain_class_attribute_is_not_a_submodule(dynlint, tmp_path):
    files = dict(FILES)
    files["pkg/base.py"] = BASE.replace("class WithDistance(torch.nn.Module)",
                                        "class WithDistance")
    write_tree(tmp_path, files)
    assert ("miner.py", 9, "DYN101") not in _findings(dynlint, tmp_path, ".")


UTIL = """\
    import torch


    def to_dtype(x, dtype=None):
        if not torch.is_autocast_enabled():
            if x.dtype != dtype:
                x = x.type(dtype)
        return x


    def to_device(x, tensor=None, device=None, dtype=None):
        dv = device if device is not None else tensor.device
        if x.device != dv:
            x = x.to(dv)
        if dtype is not None:
            x = to_dtype(x, dtype=dtype)
        return x


    def fresh(x, device=None):
        x = torch.zeros(3)
        return x
    """

MEMORY = """\
    import torch
    from pkg import util


    class Memory(torch.nn.Module):
        def forward(self, embeddings, labels, enqueue_mask=None):
            labels = util.to_device(labels, device=embeddings.device)
            if enqueue_mask is not None:
                return labels[enqueue_mask]
            return labels
    """


def test_a_helper_of_another_file_hands_back_its_argument(dynlint, tmp_path):
    write_tree(tmp_path, {"pyproject.toml": "[project]\nname = 'pkg'\n", "pkg/__init__.py": "",
                          "pkg/util.py": UTIL, "pkg/memory.py": MEMORY})
    for target in (".", "pkg/memory.py"):
        assert ("memory.py", 9, "DYN101") in _findings(dynlint, tmp_path, target), target


def test_a_helper_returning_a_new_value_is_no_pass_through(dynlint, tmp_path):
    write_tree(tmp_path, {"pyproject.toml": "[project]\nname = 'pkg'\n", "pkg/__init__.py": "",
                          "pkg/util.py": UTIL,
                          "pkg/memory.py": MEMORY.replace("util.to_device(", "util.fresh(")})
    assert ("memory.py", 9, "DYN101") not in _findings(dynlint, tmp_path, ".")


SETTINGS = """\
    import torch
    from torch import Tensor


    class nan_policy:
        @staticmethod
        def _get_observed(observations) -> Tensor:
            return ~torch.any(torch.isnan(observations), dim=0)
    """

MLL = """\
    import torch
    from pkg import settings


    class MLL(torch.nn.Module):
        def forward(self, output, target):
            observed = settings.nan_policy._get_observed(target)
            target = target[..., observed]
            return output.sum() - target.sum()
    """


def test_a_static_method_of_a_class_of_an_imported_module(dynlint, tmp_path):
    write_tree(tmp_path, {"pyproject.toml": "[project]\nname = 'pkg'\n", "pkg/__init__.py": "",
                          "pkg/settings.py": SETTINGS, "pkg/mll.py": MLL})
    for target in (".", "pkg/mll.py"):
        assert ("mll.py", 8, "DYN101") in _findings(dynlint, tmp_path, target), target
