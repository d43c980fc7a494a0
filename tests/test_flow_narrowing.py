"""A type test proves a name's kind for the rest of the function where failing it leaves the
function (analysis/walker.py): after `assert isinstance(t, torch.Tensor)` and after `if not
torch.is_tensor(t): raise TypeError(...)`, `t` is a tensor, whatever its callers pass (an
unannotated parameter of a public function that callers in another file feed from their own
unannotated parameters). A test that ends nothing (`if isinstance(t, float): t = ...`) or
proves a number (`if isinstance(t, (int, float)): return t`) makes no tensor. Through the
real CLI on a small package.

A call statement of such a checker of the same file proves the same of its argument in the
caller (analysis/postconditions.py): after `_check_timelike("t", t)` the caller's `t` is a
tensor; a checker that may return before its assert (`if x is None: return`) proves nothing."""
from __future__ import annotations

import json

from _tree import write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/checks.py": """\
        import torch


        def check_timelike(name, times):
            assert isinstance(times, torch.Tensor), name
            diff = times[1:] > times[:-1]
            assert diff.all() or (~diff).all(), name


        def is_reversed(times):
            if not torch.is_tensor(times):
                raise TypeError("times must be a tensor")
            return times[0] > times[1] and len(times) > 1


        def first_positive(times):
            if isinstance(times, (int, float)):
                return times
            if times > 0:
                return 1
            return 0
        """,
    "pkg/inputs.py": """\
        import torch


        def _check_timelike(name, timelike, can_grad):
            \"\"\"The time points: a 1-d tensor.\"\"\"
            assert isinstance(timelike, torch.Tensor), "{} must be a tensor".format(name)
            assert timelike.ndimension() == 1


        def _check_optional(name, x):
            if x is None:
                return
            assert isinstance(x, torch.Tensor), name


        def check_inputs(func, y0, t, jump_t):
            _check_timelike("t", t, True)
            _check_optional("jump_t", jump_t)
            if len(t) > 1 and t[0] > t[1]:
                t = -t
            if jump_t > 0:
                jump_t = -jump_t
            return func, y0, t, jump_t
        """,
    "pkg/api.py": """\
        from pkg.checks import check_timelike, first_positive, is_reversed


        def integrate(func, y0, times):
            check_timelike("times", times)
            if is_reversed(times):
                times = -times
            return func(first_positive(times), y0)
        """,
}


def test_failed_type_tests_that_leave_prove_the_kind(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    out = dynlint("check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path)
    found = sorted((f["path"].replace("\\", "/").rsplit("/", 1)[-1], f["line"])
                   for f in json.loads(out.stdout))
    assert ("checks.py", 7) in found, found         # assert diff.all() or (~diff).all()
    assert ("checks.py", 13) in found, found        # times[0] > times[1]
    assert ("checks.py", 19) not in found, found    # `times > 0`: nothing proves a tensor
    assert ("inputs.py", 19) in found, found        # t[0] > t[1], after _check_timelike
    assert ("inputs.py", 21) not in found, found    # jump_t > 0: it may be None there
