"""The analyzer's tables about torch stay true to the installed torch."""
import pytest

from dynlint.analysis import kinds
from dynlint.analysis.tensor_api import TENSOR_NAMES

torch = pytest.importorskip("torch")


def test_tensor_api_table_matches_installed_torch():
    installed = {n for n in dir(torch.Tensor) if not n.startswith("_")}
    missing = installed - TENSOR_NAMES
    stale = TENSOR_NAMES - installed
    # Small drift between torch releases is fine; a table from another era is not.
    assert len(missing) <= 0.05 * len(installed), f"regenerate dynlint/tensor_api.py: {sorted(missing)[:20]}"
    assert len(stale) <= 0.05 * len(TENSOR_NAMES), sorted(stale)[:20]


@pytest.mark.parametrize("table", ["NOT_TENSOR_METHODS", "HOST_METHODS", "DTYPE_PRESERVING", "SHAPE_PRESERVING"])
def test_method_tables_name_real_tensor_methods(table):
    names = getattr(kinds, table)
    unknown = [n for n in names if not hasattr(torch.Tensor, n) and not hasattr(torch, n)]
    assert not unknown, f"{table} lists names torch does not have: {unknown}"


def test_bool_funcs_exist_and_return_bool():
    x = torch.tensor([0.0, 1.0, float("nan")])
    for name in sorted(kinds.BOOL_FUNCS):
        fn = getattr(torch, name, None)
        assert fn is not None, name
        if name in ("isin",):
            out = fn(x, x)
        elif name.startswith("logical_") and name != "logical_not" or name in (
                "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less",
                "less_equal", "not_equal", "isclose"):
            out = fn(x, x)
        else:
            out = fn(x)
        assert out.dtype == torch.bool, name


def test_validated_distributions_table_matches_installed_torch():
    """DYN215's table: the torch.distributions classes whose constructor checks arguments."""
    import inspect

    import torch.distributions as D

    from dynlint.analysis.tensor_api import HOST_FACTORIES, VALIDATED_DISTRIBUTIONS
    checked = set()
    for name in dir(D):
        c = getattr(D, name)
        if inspect.isclass(c) and issubclass(c, D.Distribution) and not inspect.isabstract(c) \
                and c is not D.Distribution and c is not D.ExponentialFamily:
            constraints = c.arg_constraints     # a property (Uniform, Wishart) is never empty
            if not isinstance(constraints, dict) or constraints:
                checked.add(name)
    assert checked == set(VALIDATED_DISTRIBUTIONS)
    assert all(callable(getattr(torch, n)) for n in HOST_FACTORIES)


def test_sequence_types_are_real_containers():
    import importlib

    from dynlint.analysis.tensor_api import SEQUENCE_TYPES
    for q in SEQUENCE_TYPES - {"list", "tuple"}:
        mod, _, name = q.rpartition(".")
        assert hasattr(importlib.import_module(mod), name), q


def test_host_factories_build_in_host_memory_and_like_factories_follow_their_input():
    """`hostmem`'s premise, checked against torch: every factory of HOST_FACTORIES called
    without `device=` builds a CPU tensor, and a `*_like` factory builds on its input's device
    (the `meta` device stands in for an accelerator)."""
    from dynlint.analysis import hostmem
    from dynlint.analysis.tensor_api import HOST_FACTORIES
    calls = {"tensor": ([1, 2],), "as_tensor": ([1, 2],), "from_numpy": (__import__("numpy").zeros(2),),
             "full": ((2,), 3), "arange": (4,), "linspace": (0, 1, 3), "logspace": (0, 1, 3),
             "eye": (2,), "randint": (5, (2,)), "randperm": (3,)}
    for name in sorted(HOST_FACTORIES):
        out = getattr(torch, name)(*calls.get(name, ((2, 3),)))
        assert out.device.type == "cpu", name
    on_device = torch.zeros(2, 3, device="meta")
    for name in sorted(hostmem._LIKE):
        args = (on_device, 1) if name == "full_like" else (on_device, 5) if name == "randint_like" else (on_device,)
        assert getattr(torch, name)(*args).device.type == "meta", name
