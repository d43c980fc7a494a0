"""A false-alarm cause of hand-read set g (escnn 1.0.11, bench/results/handread_causes.md, "Set g
first look"), decided by facts of the code, through the real CLI, with twins that stay flagged:

a memoized function runs once per distinct arguments, and so does what only it calls. escnn
places the sample points of its group grids with a numerical optimiser
(`thomson_sphere(N: int) -> np.ndarray`, memoized on disk by `@cache.cache`, `cache =
joblib.Memory(path)`); the optimiser loop `_thomson_sphere` runs `U.backward(); optim.step()`,
which made it a training step of its own (25 findings). Now: `@name.cache` of a module-level
`joblib.Memory` instance memoizes like `functools.lru_cache`, and a function that only memoized
functions call is no training step. The same loop also called by a plain function, and a
decorator of another module-level instance (`@registry.register`), stay.
"""

from _tree import findings, line_of, write_tree

# escnn 1.0.11 (BSD-3), `group/groups/_numerical_thomson.py`, excerpted.
THOMSON = '''\
import numpy as np
import torch
from joblib import Memory
from torch.optim import Adam

cache = Memory("/tmp/_thomson_cache", verbose=0)


def _potential(X):
    dist = torch.cdist(X, X)
    mask = torch.triu(torch.ones(X.shape[0], X.shape[0], dtype=torch.bool, device=X.device), diagonal=1)
    return (1. / dist[mask]).sum()


def _thomson(N: int, lr: float = 1e-1, rng=None, device="cuda"):
    X = torch.tensor(rng.randn(N, 3).astype(np.float32), requires_grad=True, device=device)
    optim = Adam(params=(X,), lr=lr)
    best_U, best_X = None, None
    for i in range(5000):
        optim.zero_grad()
        U = _potential(X)
        if best_U is None or U < best_U:
            best_U, best_X = U.detach(), X.detach().cpu()
        U.backward()
        optim.step()
    return best_X


@cache.cache
def thomson_sphere(N: int) -> np.ndarray:
    rng = np.random.RandomState(42)
    best_U, best_X = N ** 2, None
    for i in range(20):
        X = _thomson(N, rng=rng)
        U = _potential(X).item()
        if U < best_U:
            best_U, best_X = U, X
    return best_X.numpy()
'''


def test_a_numerical_optimiser_only_a_memoized_function_calls(dynlint, tmp_path):
    registry = THOMSON.replace('cache = Memory("/tmp/_thomson_cache", verbose=0)', "cache = Registry()") \
        .replace("from joblib import Memory", "from .registry import Registry")
    plain = THOMSON + '''

def fit_points(N: int):
    return _thomson(N, rng=np.random)
'''
    write_tree(tmp_path, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/registry.py": "class Registry: ...\n",
                          "pkg/memoized.py": THOMSON, "pkg/registered.py": registry, "pkg/plain.py": plain})
    found = findings(dynlint, tmp_path, ".", "--no-cache", "--exit-zero")
    assert [f for f in found if f[0] == "memoized.py"] == [], found
    # not memoized (another instance's decorator), or a plain caller too: the loop is a step
    for name in ("registered.py", "plain.py"):
        assert (name, line_of(THOMSON, "if best_U is None or U < best_U:"), "DYN204") in found, found
        assert (name, line_of(THOMSON, "best_U, best_X = U.detach(), X.detach().cpu()"), "DYN214") in found, found
