"""DYN215 also flags each scoring call of a validating distribution: `log_prob` and `cdf`
check their value against the support (`_validate_sample`) and read the answer on the
host on every call, also when the distribution was built once in `__init__` (cold) or from
Python numbers (whose own check reads nothing from the device). A distribution built with
`validate_args=False`, or held from a parameter (its class unknown), is not flagged, nor is
`icdf` (which validates nothing). Through the real CLI on a small package."""
from __future__ import annotations

import json

from _tree import write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/acq.py": """\
        import torch
        from torch.distributions import Normal


        class Utility(torch.nn.Module):
            def __init__(self, device, dist):
                super().__init__()
                std_norm = Normal(torch.zeros(1, device=device), torch.ones(1, device=device))
                self.std_norm = std_norm
                self.quiet = Normal(0.0, 1.0, validate_args=False)
                self.dist = dist

            def forward(self, mu, sigma):
                u = mu / sigma
                a = self.std_norm.cdf(u)
                b = self.quiet.cdf(u)
                c = self.dist.log_prob(u)
                normal = Normal(0.0, 1.0)
                d = normal.log_prob(u).exp()
                e = Normal(0.0, 1.0).cdf(u)
                f = Normal(0.0, 1.0).icdf(u.sigmoid())
                return a + b + c + d + e + f
        """,
}


def test_scoring_calls_of_validating_distributions(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    out = dynlint("check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path)
    found = sorted((f["line"], f["code"]) for f in json.loads(out.stdout))
    # 15: `self.std_norm` (stored from a local built in `__init__`); 19: a local built from
    # Python numbers (its construction, on line 18, reads nothing from the device); 20: one
    # built and used in the same expression; 21, its `icdf`, is quiet.
    assert found == [(15, "DYN215"), (19, "DYN215"), (20, "DYN215")], found
