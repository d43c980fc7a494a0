"""Every *safe* fix template computes what the code it replaces computes.

Each case below is a small function using a data-dependent op. It is rewritten by the real
fixer (safe fixes only), and both versions run on the same inputs: float, integer and bool
tensors, empty ones, all-false, all-true and random masks, masks over the leading dimensions
only and masks that broadcast. Results must have the same type, dtype, shape and values
(floats up to summation-order rounding). The only failure of the original tolerated is one
that happens for every input of a dtype, a type error rather than a behaviour: `mean` of an
integer or bool tensor raises (so does `a[m] = b[m]` when a and b differ in dtype, which the
cases below therefore keep equal).

`test_every_safe_template_is_covered` fails when a rule gains a safe fix without a case here:
a template that is not shown equivalent must not ship as safe.
"""
import functools
import itertools
import math
import os
import re

import pytest

os.environ.setdefault("DYNLINT_DEBUG_FIXES", "1")     # fixer bugs raise instead of hiding
torch = pytest.importorskip("torch")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dynlint.engine.match import Engine  # noqa: E402
from dynlint.fix.apply import fix_source  # noqa: E402
from dynlint.engine.rules import load_rules  # noqa: E402

RULES = load_rules()
ENGINE = Engine(RULES)
HEAD = "import torch\n\n\ndef f(x: torch.Tensor, m: torch.BoolTensor, t: float):\n"

# name -> (body of f, how the mask `m` relates to `x`)
#   none: m unused; leading: m.shape == x.shape[:k]; broadcast: m broadcasts with x; free: any
CASES = {
    "sum-self-mask": ("return x[x > t].sum()", "none"),
    "torch.sum-mask": ("return torch.sum(x[m])", "leading"),
    "mean-self-mask": ("return x[~torch.isnan(x)].mean()", "none"),
    "mean-mask": ("return x[m].mean()", "leading"),
    "any-self-mask": ("return x[x != t].any()", "none"),
    "any-mask": ("return x[m].any()", "leading"),
    "all-self-mask": ("return x[x > t].all()", "none"),
    "all-mask": ("return torch.all(x[m])", "leading"),
    "assign-then-sum-self-mask": ("y = x[x > t]\n    s = y.sum()\n    return s, y.count_nonzero()",
                                  "none"),
    "assign-then-sum-mask": ("y = x[m]\n    return torch.sum(y), y.any()", "leading"),
    # Same dtypes: with different ones `a[m] = b[m]` raises for every input (index_put).
    "masked-copy-self-mask": ("x = x.clone()\n    y = (x * 3).to(x.dtype)\n"
                              "    x[x > t] = y[x > t]\n    return x", "none"),
    "masked-copy-mask": ("x = x.clone()\n    y = (x * 3).flip(0).to(x.dtype)\n    x[m] = y[m]\n"
                         "    return x", "leading"),
    "masked_select-sum": ("return torch.masked_select(x, m).sum()", "broadcast"),
    "masked_select-mean": ("return x.masked_select(m).mean()", "broadcast"),
    "masked_select-any": ("return torch.masked_select(x, m).any()", "broadcast"),
    "masked_select-all": ("return torch.all(x.masked_select(m))", "broadcast"),
    # Shorter forms proved from the code (dynlint/fix/align.py): one missing dimension
    # (`k.unsqueeze(-1)`), equal ranks (the plain mask), a mask grown from the tensor's shape.
    "sum-unsqueeze": ("y = x.reshape(x.shape[0], -1)\n    k = (y > t).any(-1)\n"
                      "    return y[k].sum()", "none"),
    "mean-equal-rank": ("k = m.view(-1)\n    y = x.flatten()[:k.shape[0]]\n    return y[k].mean()",
                        "leading"),
    "any-grown-mask": ("y = x.clone()\n    k = (x > t) | (x < -t)\n    return y[k].any()", "none"),
    # Computed once (`side_effect_free`, not `pure`): evaluated once, after the mask.
    "masked_select-sum-computed": ("return x.mul(2).masked_select(m).sum()", "broadcast"),
    "sum-computed-mask": ("return x.mul(x)[m].sum()", "leading"),
    # Unannotated: the code proves the operands are tensors (`.bool()`, a torch function).
    "plain-sum": ("return x[m.bool()].sum()", "leading", "plain"),
    "plain-masked_select-mean": ("return torch.masked_select(x, m).mean()", "broadcast", "plain"),
    # DYN112 (masked writes): a number, or a 0-d tensor computed before the write.
    "mask-write-number-self-mask": ("x = x.clone()\n    x[x > t] = -1\n    return x", "none"),
    "mask-write-number-mask": ("x = x.clone()\n    x[m] = float('-inf')\n    return x", "leading"),
    "mask-write-0d-self-mask": ("x = x.clone()\n    x[x.isnan()] = x.sum()\n    return x", "none"),
    "mask-write-0d-mask": ("x = x.clone()\n    x[m] = x.amax()\n    return x", "leading"),
    # Across statements (fix/stretch.py): every read of the selection / the indices is
    # accounted for, then DYN101's templates finish the job.
    "stretch-mixed-reductions": ("y = x[m]\n    s = y.sum()\n    return s, y.mean(), torch.any(y), "
                                 "y.all()", "leading"),
    "stretch-self-mask-dies": ("y = x[x > t]\n    a = y.any()\n    y = y.mean()\n    return a, y",
                               "none"),
    "stretch-where-index": ("idx = torch.where(x > t)\n    return x[idx].sum(), x[idx].all()", "none"),
    # DYN206: a range started at an integer tensor, shifted on the device instead.
    "arange-from-count": ("s = m.sum()\n    return (torch.arange(s, s + 3, device=x.device), "
                          "torch.arange(s, x.dim() + s, device=x.device, dtype=torch.long))",
                          "free"),
    "arange-from-argmax": ("s = x.argmax()\n    return torch.arange(s, s + 2, device=x.device)",
                           "none"),
}
MEAN = {"mean-self-mask", "mean-mask", "masked_select-mean", "mean-equal-rank",
        "plain-masked_select-mean", "stretch-mixed-reductions", "stretch-self-mask-dies"}
# Cases whose own code needs x to have dimensions (`x.shape[0]`): both versions raise on 0-d x.
# (`x[torch.where(x > t)]` raises for every 0-d x: where's index tuple of a 0-d tensor is empty
# of dimensions to index; its masked form has none to lose.)
NEEDS_DIMS = {"sum-unsqueeze", "mean-equal-rank", "stretch-where-index"}
PLAIN_HEAD = "import torch\n\n\ndef f(x, m, t):\n"
# `x[m] = v` with a 0-d tensor of another dtype raises for every input (index_put wants one
# dtype); the fix writes the value cast to x's dtype, as `x[m] = v.item()` would.
DTYPE_ERRORS = {"mask-write-0d-self-mask", "mask-write-0d-mask"}

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16,
          torch.int64, torch.int32, torch.uint8, torch.bool]
# Exactly representable values (so any summation order gives the same sum) and the specials.
FLOATS = [-3.0, -1.5, -0.0, 0.0, 0.5, 1.0, 2.0, 7.25, math.inf, -math.inf, math.nan]
THRESHOLDS = [-1.0, 0.0, 0.5, 2.0]


# DYN206 reports only in model code: a function named as a loss is model code.
MODEL_CODE = {"arange-from-count", "arange-from-argmax"}


def source(name):
    if name in MODEL_CODE:
        return HEAD.replace("def f(", "def f_loss(") + "    " + CASES[name][0] + "\n\n\nf = f_loss\n"
    head = PLAIN_HEAD if CASES[name][2:] == ("plain",) else HEAD
    return head + "    " + CASES[name][0] + "\n"


@functools.lru_cache(maxsize=None)
def functions(name):
    before = source(name)
    after = fix_source(before, "case.py", ENGINE)
    out = []
    for code in (before, after):
        ns: dict = {}
        exec(compile(code, "case.py", "exec"), ns)
        out.append(ns["f"])
    return before, after, out[0], out[1]


def make_tensor(values, shape, dtype):
    t = torch.tensor(values, dtype=torch.float64).reshape(shape)
    if dtype == torch.bool:
        return t != 0
    if not dtype.is_floating_point:
        t = torch.nan_to_num(t, nan=0.0, posinf=5.0, neginf=-5.0).round()
        t = t.clamp(min=0) if dtype == torch.uint8 else t
    return t.to(dtype)


def mask_shape(kind, shape, k, extra):
    if kind == "leading":
        return shape[:k]
    if kind == "broadcast":        # a suffix of x's shape with some sizes 1, maybe more dims
        tail = [1 if (i + extra) % 2 else d for i, d in enumerate(shape[len(shape) - k:])]
        lead = 2 if k == len(shape) else 1          # a new leading dim makes m the bigger one
        return tuple([lead] * (extra % 2) + tail)
    if kind == "free":
        return tuple(shape[:k]) + (3,) * (extra % 2)
    return shape


def make_mask(shape, mode, seed):
    if mode == "false":
        return torch.zeros(shape, dtype=torch.bool)
    if mode == "true":
        return torch.ones(shape, dtype=torch.bool)
    g = torch.Generator().manual_seed(seed)
    return torch.rand(shape, generator=g) > 0.5


def outcome(fn, x, m, t):
    try:
        return fn(x, m, t), None
    except Exception as exc:       # noqa: BLE001 - any failure is compared below
        return None, exc


def same(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
        return
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, torch.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        torch.testing.assert_close(b, a, equal_nan=True)
    else:
        assert a == b


def check(name, x, m, t):
    _, after_src, before, after = functions(name)
    expected, error = outcome(before, x, m, t)
    got, error_after = outcome(after, x, m, t)
    if error is not None and name in NEEDS_DIMS:
        # These bodies build their own shapes; for some drawn shapes they do not fit (0-d or
        # empty x), which fails for every value of those shapes: not data-dependent.
        assert isinstance(error, (IndexError, RuntimeError)), error
        return
    if error is not None:
        if error_after is not None and type(error_after) is type(error):
            return                 # both fail (an empty amax, -inf into an integer tensor)
        if name in DTYPE_ERRORS and "dtype" in str(error):
            return
        # The original fails for every input of this dtype: `mean` of an integer tensor.
        assert name in MEAN and not x.is_floating_point(), (name, x, m, error)
        return
    assert error_after is None, f"{name}: the fix raised {error_after!r} on {x!r}, {m!r}\n{after_src}"
    same(expected, got)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_is_rewritten_statically(name):
    before, after, _, _ = functions(name)
    assert after != before, f"{name}: no safe fix applied"
    left = [f.code for f in ENGINE.check(after, "case.py") if f.code.startswith("DYN1")
            or f.code == "DYN112"]
    assert not left, f"{name}: still data-dependent after the fix: {left}\n{after}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_cases(name):
    """Empty tensors, all-false / all-true masks, every dtype: a fixed grid."""
    kind = CASES[name][1]
    for dtype, shape, mode in itertools.product(
            DTYPES, [(), (0,), (4,), (2, 3), (3, 0, 2)], ["false", "true", "random"]):
        values = [FLOATS[i % len(FLOATS)] for i in range(math.prod(shape))]
        x = make_tensor(values, shape, dtype)
        for k in range(len(shape) + 1):
            m = make_mask(mask_shape(kind, shape, k, k), mode, seed=k)
            check(name, x, m, 0.5)


@st.composite
def inputs(draw, kind):
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    dtype = draw(st.sampled_from(DTYPES))
    values = draw(st.lists(st.sampled_from(FLOATS), min_size=math.prod(shape),
                           max_size=math.prod(shape)))
    k = draw(st.integers(0, len(shape)))
    mshape = mask_shape(kind, shape, k, draw(st.integers(0, 3)))
    mode = draw(st.sampled_from(["false", "true", "random"]))
    bits = draw(st.lists(st.booleans(), min_size=math.prod(mshape), max_size=math.prod(mshape)))
    m = torch.tensor(bits, dtype=torch.bool).reshape(mshape) if mode == "random" \
        else make_mask(mshape, mode, 0)
    return make_tensor(values, shape, dtype), m, draw(st.sampled_from(THRESHOLDS))


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_inputs(name, data):
    x, m, t = data.draw(inputs(CASES[name][1]))
    check(name, x, m, t)


def test_every_safe_template_is_covered():
    safe = {(r.code, f.description) for r in RULES for f in r.fixes if f.applicability == "safe"}
    assert len(safe) == sum(f.applicability == "safe" for r in RULES for f in r.fixes), \
        "two safe fixes of one rule share a description; make it say which template it is"
    shown = [(f.code, f.fix.description) for name in CASES
             for f in ENGINE.check(source(name), "case.py")
             if f.fix is not None and f.fix.applicability == "safe"]
    # A description may name metavariables (`{Y}`), filled in with the matched code.
    missing = [(code, d) for code, d in safe if not any(
        c == code and re.fullmatch(re.sub(r"\\{\w+\\}", ".+?", re.escape(d)), text)
        for c, text in shown)]
    assert not missing, f"safe templates without a property case: {missing}"


def test_partial_mask_needs_the_reshape():
    """Why the templates line the mask up: a mask over the leading dimensions of a square
    tensor broadcasts silently against the *last* dimension in a plain torch.where."""
    x = torch.arange(9.0).reshape(3, 3)
    m = torch.tensor([True, False, False])
    naive = torch.where(m, x, torch.zeros_like(x)).sum()
    assert naive != x[m].sum()
    _, _, before, after = functions("torch.sum-mask")
    same(before(x, m, 0.0), after(x, m, 0.0))


def test_the_display_only_max_differs_only_on_an_empty_selection():
    """max/min are display-only: with nothing selected the original raises, the fix does not,
    so a caller could compute another value (not just see another shape)."""
    code = HEAD + "    return x[m].max()\n"
    assert fix_source(code, "case.py", ENGINE, unsafe=True) == code
    after = fix_source(code, "case.py", ENGINE, unsafe=True, display_only=True)
    ns_before, ns_after = {}, {}
    exec(code, ns_before)
    exec(after, ns_after)
    x = torch.tensor([[1.0, -2.0], [3.0, 4.0]])
    for m in (torch.tensor([True, False]), torch.tensor([False, True])):
        same(ns_before["f"](x, m, 0.0), ns_after["f"](x, m, 0.0))
    none = torch.tensor([False, False])
    with pytest.raises(RuntimeError):
        ns_before["f"](x, none, 0.0)
    assert ns_after["f"](x, none, 0.0).item() == -math.inf
