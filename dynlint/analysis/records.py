"""Opt-in records: statements of a method that only note statistics for a person to read.

A block under a flag of the object (`if self.collect_stats:`) that does nothing but store
Python numbers read from tensors into attributes (`self.average_angle =
np.degrees(angles.mean().item())`) keeps a record that nothing in the step uses: no code of
the module reads those attributes back, and the locals it computes stay inside the block. The
step's result is the same with the flag off, which is the point of putting the reads behind
it; they run only when someone asks for the statistics. A block that returns, calls something
for its effect, or stores a value that code of the module reads again (a running mean the
forward uses, a cache) does more than record, and stays part of the step.
"""
from __future__ import annotations

import ast

from .statements import statements, walk

# Statements a record may be built of; anything else (a call for its effect, a return, a
# raise, a loop that may not end) does more than note values.
_RECORDING = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.With, ast.If, ast.For, ast.Pass)


def _self_attr(node) -> str | None:
    if type(node) is ast.Attribute and type(node.value) is ast.Name and node.value.id == "self":
        return node.attr
    return None


def _converts(node) -> bool:
    """The value holds a conversion of tensor data to a Python value: `.item()`, `.tolist()`,
    `float(...)`, `int(...)` somewhere in it (`np.degrees(angles.mean().item())`)."""
    for n in walk(node):
        if type(n) is ast.Call:
            f = n.func
            if type(f) is ast.Attribute and f.attr in ("item", "tolist") and not n.args:
                return True
            if type(f) is ast.Name and f.id in ("float", "int") and len(n.args) == 1:
                return True
    return False


def _targets(st):
    return st.targets if type(st) is ast.Assign else [st.target]


def _records(block) -> tuple[set[str], set[str]] | None:
    """(attributes stored, locals bound) when every statement of `block` only assigns, to
    attributes of `self` or to plain local names, and one attribute at least gets a Python
    value converted from tensor data; None otherwise."""
    attrs, local_names, converted = set(), set(), False
    for st in statements(block, enter_defs=False):
        if not isinstance(st, _RECORDING):
            return None
        if type(st) is ast.For:
            if st.orelse or any(type(n) is not ast.Name for n in walk(st.target) if type(n) is not ast.Tuple):
                return None
            local_names.update(n.id for n in walk(st.target) if type(n) is ast.Name)
            continue
        if type(st) is ast.With:
            if any(item.optional_vars is not None for item in st.items):
                return None
            continue
        if type(st) not in (ast.Assign, ast.AugAssign, ast.AnnAssign):
            continue
        for tgt in _targets(st):
            attr = _self_attr(tgt)
            if attr is not None:
                attrs.add(attr)
                converted = converted or (st.value is not None and _converts(st.value))
            elif type(tgt) is ast.Name:
                local_names.add(tgt.id)
            else:
                return None     # (a subscript or a nested attribute writes into an object)
    return (attrs, local_names) if converted else None


def attributes_read(tree) -> set[str]:
    """Names of `self.X` read anywhere in the module (a load, or the receiver of a method)."""
    return {n.attr for n in walk(tree) if type(n) is ast.Attribute and type(n.ctx) is ast.Load
            and type(n.value) is ast.Name and n.value.id == "self"}


def record_regions(fnode, module_reads) -> list:
    """The `if self.X:` statements (no `else`, not `self.training`) of `fnode` whose body is
    an opt-in record (see the module docstring); `module_reads()` gives `attributes_read` of
    the module (asked only when a block qualifies otherwise)."""
    out = []
    read = None
    for st in statements(fnode.body, enter_defs=False):
        if type(st) is not ast.If or st.orelse:
            continue
        flag = _self_attr(st.test)
        if flag is None or flag == "training":
            continue
        found = _records(st.body)
        if found is None:
            continue
        attrs, local_names = found
        if read is None:
            read = module_reads()
        if attrs & read:
            continue
        inside = {id(n) for b in st.body for n in walk(b)}
        if any(type(n) is ast.Name and type(n.ctx) is ast.Load and n.id in local_names
               and id(n) not in inside for n in walk(fnode)):
            continue        # (a local computed there goes on to the step)
        out.append(st)
    return out


# Opt-in output under a parameter that is off by default.
#
# `def fit(..., debug=False): ... if debug: print(f"loss={loss}")` and `def f(...,
# _inspect=None): ... if _inspect: _inspect(prompt, probs.tolist())`: the branch runs only
# when a caller turns the parameter on, and then it only shows values to a person (a print,
# a log line, a warning) or hands them to the callback the caller gave. The function's result
# is the same either way. A branch whose body does anything else (`if mask is not None: x =
# x[mask]`, a store, a return) is the function's own work and stays.

_LOG_LEVELS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "exception"})


def _off_by_default(fnode) -> set[str]:
    """Parameters of `fnode` whose default is `False` or `None`."""
    a = fnode.args
    positional = a.posonlyargs + a.args
    pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
    pairs += [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
    return {p.arg for p, d in pairs if type(d) is ast.Constant and d.value in (False, None)
            and type(d.value) is not int}


def _flag(test, params) -> str | None:
    """`p` or `p is not None` for a parameter `p` of `params`."""
    if type(test) is ast.Name and test.id in params:
        return test.id
    if type(test) is ast.Compare and type(test.left) is ast.Name and test.left.id in params \
            and len(test.ops) == 1 and type(test.ops[0]) is ast.IsNot \
            and type(test.comparators[0]) is ast.Constant and test.comparators[0].value is None:
        return test.left.id
    return None


def _outputs(call, flag: str) -> bool:
    """`print(...)`, `warnings.warn(...)`, `logger.info(...)` (a logging level),
    `sys.stderr.write(...)`, or a call of the opt-in parameter itself."""
    f = call.func
    if type(f) is ast.Name:
        return f.id in ("print", flag)
    if type(f) is not ast.Attribute:
        return False
    if f.attr in _LOG_LEVELS:
        return True
    return f.attr == "write" and type(f.value) is ast.Attribute and f.value.attr in ("stdout", "stderr") \
        and type(f.value.value) is ast.Name and f.value.value.id == "sys"


def _output_only(block, flag: str) -> set[str] | None:
    """The locals bound in `block` when it does nothing but output (one call at least), with
    plain local assignments, nested `if`s and `for` loops around it; None otherwise."""
    local_names, shown = set(), False
    for st in statements(block, enter_defs=False):
        t = type(st)
        if t is ast.Expr and type(st.value) is ast.Call:
            if not _outputs(st.value, flag):
                return None
            shown = True
        elif t in (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For):
            if t is ast.For and st.orelse:
                return None
            for tgt in (st.targets if t is ast.Assign else [st.target]):
                if any(type(n) in (ast.Subscript, ast.Attribute, ast.Starred) for n in walk(tgt)):
                    return None     # (a store into an object)
                local_names.update(n.id for n in walk(tgt) if type(n) is ast.Name)
        elif t not in (ast.If, ast.Pass):
            return None
    return local_names if shown else None


def optin_regions(fnode) -> list:
    """The `if p:` / `if p is not None:` statements (no `else`) of `fnode`, `p` a parameter
    defaulting to `False` or `None` that the function never rebinds, whose body only outputs
    (see above) and binds no local the rest of the function reads."""
    params = _off_by_default(fnode)
    if not params:
        return []
    params -= {n.id for n in walk(fnode) if type(n) is ast.Name and type(n.ctx) is not ast.Load}
    out = []
    for st in statements(fnode.body, enter_defs=False):
        if type(st) is not ast.If or st.orelse:
            continue
        flag = _flag(st.test, params)
        if flag is None:
            continue
        local_names = _output_only(st.body, flag)
        if local_names is None:
            continue
        inside = {id(n) for b in st.body for n in walk(b)}
        if any(type(n) is ast.Name and type(n.ctx) is ast.Load and n.id in local_names
               and id(n) not in inside for n in walk(fnode)):
            continue
        out.append(st)
    return out
