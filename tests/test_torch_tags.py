"""Every op the installed torch tags as data-dependent has a default rule that flags each of
its Python spellings (`torch.X`, `Tensor.X`, `F.X`). The list comes from torch itself, so a
new tagged op in a future torch fails this test until a rule covers it."""
import textwrap

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

from dynlint.engine.match import Engine  # noqa: E402
from dynlint.engine.rules import load_rules  # noqa: E402

TAGS = (torch.Tag.dynamic_output_shape, torch.Tag.data_dependent_output)
# Arguments that make each call data-dependent: (function-call args, method-call args).
ARGS = {
    "repeat_interleave": ("x, r", "r"),
    "masked_select": ("x, x > 0", "x > 0"),
}
# How ops without a Python name of their own are reached from Python code.
SPELLED_AS = {
    "index": ["x[x > 0]"],                          # boolean-mask indexing
    "_local_scalar_dense": ["x.item()"],            # .item(), int(t), bool(t), ...
    "unique_dim": ["torch.unique(x, dim=0)"],
    "unique_dim_consecutive": ["torch.unique_consecutive(x, dim=0)"],
    "_ctc_loss": ["F.ctc_loss(x, r, r, r)", "torch.ctc_loss(x, r, r, r)"],
    "linalg_lstsq": ["torch.linalg.lstsq(x, r)"],
}


def tagged_ops():
    # `dir(torch.ops.aten)` only lists ops already loaded; the dispatcher knows them all.
    ops = set()
    for full in torch._C._dispatch_get_all_op_names():
        namespace, _, rest = full.partition("::")
        if namespace != "aten":
            continue
        name, _, overload = rest.partition(".")
        op = getattr(getattr(torch.ops.aten, name, None), overload or "default", None)
        if op is not None and any(t in op.tags for t in TAGS):
            ops.add(name)
    return sorted(ops)


def spellings(op):
    if op in SPELLED_AS:
        return SPELLED_AS[op]
    func_args, method_args = ARGS.get(op, ("x", ""))
    out = []
    if hasattr(torch, op):
        out.append(f"torch.{op}({func_args})")
    if hasattr(torch.Tensor, op) and not op.startswith("_"):
        out.append(f"x.{op}({method_args})")
    if hasattr(F, op):
        out.append(f"F.{op}({func_args})")
    return out


OPS = tagged_ops()
RULES = [r for r in load_rules() if r.default]


def test_torch_still_tags_the_ops_we_know():
    assert {"nonzero", "masked_select", "item", "_ctc_loss"} <= set(OPS)


@pytest.mark.parametrize("op", OPS)
def test_tagged_op_has_a_default_rule(op):
    owners = [r for r in RULES if op in r.aten]
    assert owners, f"aten.{op} is tagged data-dependent but no default rule lists it under `aten:`"
    forms = spellings(op)
    assert forms, f"aten.{op}: no Python spelling found; add it to SPELLED_AS"
    engine = Engine(RULES)
    for form in forms:
        src = textwrap.dedent(f"""\
            import torch
            import torch.nn.functional as F

            class M(torch.nn.Module):
                def forward(self, x: torch.Tensor, r: torch.Tensor):
                    return {form}
            """)
        got = {f.code for f in engine.check(src, "m.py")}
        assert got & {r.code for r in owners}, f"`{form}` (aten.{op}) is not flagged: {got}"
