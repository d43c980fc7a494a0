"""A fact from another file can take a finding back, not only add one (crossfile.settle,
runner._settle): the first walk of a file knows nothing of other files, so `helper(x).item()`
with `helper` imported reads a possible tensor; when the project's `helper` is declared
`-> np.ndarray`, the walk again of the calling function (with the whole file, so that it
knows all the first walk knew) does not find it, and the first walk's finding is withdrawn.
What that function finds otherwise stays; a function of the file reading what such a
function returns (`_geometric(r).item()`) is walked again the same way. Through the real CLI on a small package; a file
checked alone gets exactly the findings it gets with its whole project, cache cold and warm;
judged alone (`--no-cross-file`, as flake8 sees it) the finding stays."""
from __future__ import annotations

from _tree import findings, write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/utils.py": """\
        import numpy as np


        def stable_product(a: np.ndarray) -> np.ndarray:
            return np.exp(np.log(a).sum())


        def pair(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return np.median(a), np.mean(a)
        """,
    "pkg/metric.py": """\
        import torch
        from pkg.utils import pair, stable_product


        def _ranks(x):
            return torch.argsort(x, dim=-1).float()


        class GeometricMeanRank(torch.nn.Module):
            def forward(self, x: torch.Tensor, ranks):
                value = stable_product(ranks).item()
                if (_ranks(x) > 3).any():
                    return x.sum()
                return value


        class MedianRank(torch.nn.Module):
            def forward(self, x: torch.Tensor, ranks):
                median, mean = pair(ranks)
                return median.item() + mean.item() + x.max().item()


        def _geometric(ranks):
            return stable_product(ranks)


        class ViaHelper(torch.nn.Module):
            def forward(self, x: torch.Tensor, ranks):
                return _geometric(ranks).item()
        """,
    # A neutral helper that model code of another file reaches: its findings are reported
    # through the reach (`conditional`), and withdrawn the same way.
    "pkg/stats.py": """\
        from pkg.utils import stable_product


        def geometric(ranks):
            return stable_product(ranks).item()
        """,
    "pkg/model.py": """\
        import torch
        from pkg.stats import geometric


        class Net(torch.nn.Module):
            def forward(self, x: torch.Tensor, ranks):
                return x * geometric(ranks)
        """,
}
KEPT = [("metric.py", 12, "DYN204"), ("metric.py", 20, "DYN201")]
ALONE = [("metric.py", 11, "DYN201"), ("metric.py", 12, "DYN204"), ("metric.py", 20, "DYN201"),
         ("metric.py", 20, "DYN201"), ("metric.py", 20, "DYN201"), ("metric.py", 29, "DYN201")]


def test_numpy_returned_from_another_file_withdraws_the_finding(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    whole = findings(dynlint, tmp_path, ".", "--no-cache")
    assert whole == KEPT, whole
    for cache in (["--no-cache"], [], []):          # alone: cold, then cache cold and warm
        assert findings(dynlint, tmp_path, "pkg/metric.py", *cache) == KEPT
        assert findings(dynlint, tmp_path, "pkg/stats.py", *cache) == []
    assert findings(dynlint, tmp_path, ".") == KEPT     # the step's record, warm
    assert findings(dynlint, tmp_path, "pkg/metric.py", "--no-cross-file", "--no-cache") == ALONE


def test_the_same_helper_without_the_annotation_keeps_the_finding(dynlint, tmp_path):
    """No answer from the other file (the helper returns what it is given): nothing is
    withdrawn, the first walk's findings stand."""
    files = dict(FILES)
    files["pkg/utils.py"] = """\
        def stable_product(a):
            return a


        def pair(a):
            return a, a
        """
    write_tree(tmp_path, files)
    whole = findings(dynlint, tmp_path, ".", "--no-cache")
    assert ("metric.py", 11, "DYN201") in whole and ("stats.py", 5, "DYN201") in whole and \
        ("metric.py", 29, "DYN201") in whole, whole
    assert findings(dynlint, tmp_path, "pkg/metric.py", "--no-cache") == \
        [f for f in whole if f[0] == "metric.py"]
