"""DYN207 reports a slice by a host value only when nothing in its function reports the read
(`host_read_here`): after `n = t.item()`, `int(t.max())` or (in model code) `t.tolist()` in the same function
the read is the cause, reported there, and the slice its consequence; a bound that arrives as a
parameter the callers fill with read values, or from a helper (in another file too), is
reported at the slice, and a tensor bound always (it is read right there). Through the CLI."""
from __future__ import annotations


from _tree import write_tree, findings

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/lengths.py": """\
        def longest(lengths):
            return int(lengths.max())
        """,
    "pkg/library.py": """\
        import torch


        def head(x: torch.Tensor, lengths: torch.Tensor):
            n = lengths.tolist()[0]
            return x[:n]
        """,
    "pkg/model.py": """\
        import torch
        from pkg.lengths import longest


        def crop(x, n):
            return x[:, :n]


        class Net(torch.nn.Module):
            def forward(self, x: torch.Tensor, lengths: torch.Tensor, n=None):
                a = x[:, : lengths.max()]
                m = lengths.max().item()
                b = x[:, :m]
                if n is None:
                    n = int(lengths.min())
                c = x[:, :n]
                counts = lengths.tolist()
                d = [x[i, : counts[i]] for i in range(len(counts))]
                k = longest(lengths)
                e = x[:, :k]
                return a, b, c, d, e, crop(x, int(lengths.sum()))
        """,
}


def _findings(dynlint, root, *args):
    return findings(dynlint, root, *args, "--no-cache")


def test_a_slice_is_reported_only_where_its_read_is_not(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    found = _findings(dynlint, tmp_path, ".")
    assert found == [
        ("lengths.py", 2, "DYN203"),
        # library code (no model code reaches `head`): `.tolist()` there is no finding (mostly
        # a result for the user), so the slice is where the read shows
        ("library.py", 6, "DYN207"),
        ("model.py", 6, "DYN207"),      # `n` from callers that read it: shown at the slice
        ("model.py", 11, "DYN207"),     # a tensor bound, read right here
        ("model.py", 12, "DYN201"),     # the read ...
        ("model.py", 15, "DYN203"),     # ... its slices on 13 and 16 are not reported again
        ("model.py", 17, "DYN202"),
        ("model.py", 20, "DYN207"),     # read in the helper of another file
        ("model.py", 21, "DYN203"),
    ], found
