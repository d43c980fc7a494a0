"""Evaluation and prediction steps: the function an inference loop calls on each batch.

A loop that runs a model in inference mode (the function is decorated `torch.no_grad()` /
`torch.inference_mode()`, the loop sits in such a `with` block, or the function switches a
module to eval mode with `m.eval()`) and calls a function of its file on each batch (an
argument reads the loop's target, directly or through names the loop binds from it without
another call: `x = batch[0].to(device)`) runs that function once per batch, as a trainer
runs its training step. When that function itself runs a model on what it was handed (a
call of something it holds, `self.network(X)`, a parameter called, `model(x)`, or a method
of a parameter, `model.predict(hrt_batch=batch)`, with an argument that reads one of its
parameters, and uses what that call returns), it is the evaluation step, whatever the names of the loop (`evaluate`,
`_predict_epoch`) or of the step: it runs on the device on every batch of every
validation, so it is no cold code even when only that loop calls it.

The loop's own body stays what it was: collecting each batch's predictions for the host
(`preds.append(out.cpu().numpy())`) and accumulating metrics (`correct += (p == y).sum()
.item()`) are the harness around the step, as a training loop is around its step; but for
the validation epoch a fit loop runs between its training epochs, whose loop is model code
(`scopes.reach._mark_validation_epochs`).
"""
from __future__ import annotations

import ast

from .statements import walk
from .steploops import (HeldCalls, VALUE_METHODS, callee_chain, loop_statements, own_nodes, param_names,
                        trains)

_INFERENCE = frozenset({"torch.no_grad", "torch.inference_mode"})


def _inference_call(node, qualname) -> bool:
    """`torch.no_grad()`, `torch.inference_mode()` (or the bare decorator name)."""
    return qualname(node.func if type(node) is ast.Call else node) in _INFERENCE


def _inference_loops(fnode, qualname, names) -> list:
    """The `for` loops of the function that run in inference mode (see the module); `names`:
    the names its text mentions (FunctionInfo.refs), which spare most functions a walk."""
    decorated = any(_inference_call(d, qualname) for d in fnode.decorator_list)
    if not decorated and "eval" not in names and "no_grad" not in names and \
            "inference_mode" not in names:
        return []
    loops = [lp for lp in loop_statements(fnode.body) if type(lp) in (ast.For, ast.AsyncFor)]
    if not loops:
        return []
    if decorated or "eval" in names and any(
            type(n) is ast.Call and not n.args and not n.keywords and type(n.func) is ast.Attribute
            and n.func.attr == "eval" for n in own_nodes(fnode.body)):
        return loops
    inside = set()
    for n in own_nodes(fnode.body):
        if type(n) in (ast.With, ast.AsyncWith) and any(
                _inference_call(i.context_expr, qualname) for i in n.items):
            inside.update(id(lp) for lp in loop_statements(n.body))
    return [lp for lp in loops if id(lp) in inside]


def _batch_names(loop, nodes) -> tuple:
    """The batch of each iteration: (names, slices). Over an iterable (a loader, `x.split(n)`,
    `enumerate(loader)`), the loop's target names; over `range(...)`, none but the chunks
    its index slices (`x[i:i + n]`: `slices`, the ids of those subscripts), for an index
    alone (`xs[i]`, a grid cell's bound) is no batch. With the names the body binds from
    either by indexing, attribute reads and method calls on them (`x = batch["x"].to(device)`),
    not through another call."""
    target = {n.id for n in walk(loop.target) if type(n) is ast.Name}
    it = loop.iter
    if type(it) is ast.Call and type(it.func) is ast.Name and it.func.id == "range":
        names = set()
        slices = {id(n) for n in nodes if type(n) is ast.Subscript and _sliced_by(n.slice, target)}
    else:
        names, slices = target, set()
    assigns = [n for n in nodes if type(n) is ast.Assign]
    changed = True
    while changed:
        changed = False
        for a in assigns:
            value = a.value
            if not _reads(value, names, slices):
                continue
            if any(type(c) is ast.Call and not _on_batch(c, names, slices) for c in walk(value)):
                continue
            new = {n.id for t in a.targets for n in walk(t) if type(n) is ast.Name} - names
            if new:
                names |= new
                changed = True
    return names, slices


def _sliced_by(index, names) -> bool:
    """A subscript's index holding a slice whose bounds read `names` (`i:i + n`, `:, i:j`)."""
    parts = index.elts if type(index) is ast.Tuple else [index]
    return any(type(p) is ast.Slice and any(type(n) is ast.Name and n.id in names for n in walk(p))
               for p in parts)


def _reads(expr, names, slices) -> bool:
    return any(type(n) is ast.Name and n.id in names or id(n) in slices for n in walk(expr))


def _on_batch(call, names, slices) -> bool:
    """A method called on the batch (`batch.to(device)`, `x[i:j].float()`)."""
    func = call.func
    return type(func) is ast.Attribute and _reads(func.value, names, slices)


def per_batch_callees(fnode, qualname, names) -> list:
    """(kind, name) of what the function's inference loops call with a batch: ("self", m) for
    `self.m(...)`, ("name", f) for `f(...)`."""
    return [c for loop in _inference_loops(fnode, qualname, names) for c in loop_callees(loop)]


def inference_loops_callees(fnode, qualname, names) -> list:
    """(loop, its per-batch callees as `per_batch_callees` gives them) for each inference loop."""
    return [(loop, loop_callees(loop)) for loop in _inference_loops(fnode, qualname, names)]


def loop_callees(loop) -> list:
    """(kind, name) of what one inference loop calls with a batch (see `per_batch_callees`)."""
    out = []
    nodes = list(own_nodes(loop.body))
    if trains(nodes):
        return out
    batch, slices = _batch_names(loop, nodes)
    for call in nodes:
        if type(call) is not ast.Call:
            continue
        args = [*call.args, *(k.value for k in call.keywords)]
        if not any(_reads(a, batch, slices) for a in args):
            continue
        key = call_key(call)
        if key is not None:
            out.append(key)
    return out


def call_key(call):
    """("self", m) for `self.m(...)`, ("name", f) for `f(...)`, else None."""
    func = call.func
    if type(func) is ast.Name:
        return ("name", func.id)
    if type(func) is ast.Attribute and type(func.value) is ast.Name and func.value.id == "self":
        return ("self", func.attr)
    return None


def runs_model(fnode, own_methods, method_holds) -> bool:
    """Whether the function hands what it was given to a model and uses what it returns: a
    call of something it holds (`steploops.HeldCalls`) or of a parameter's method that is no
    tensor, container or string method (`model.predict(...)`), with an argument reading a
    parameter (or a name the function bound from one), whose result is assigned or returned."""
    params = param_names(fnode)
    if not params:
        return False
    calls = HeldCalls(fnode, own_methods, method_holds)
    nodes = list(own_nodes(fnode.body))
    given = set(params)
    assigns = sorted((n for n in nodes if type(n) is ast.Assign), key=lambda n: (n.lineno, n.col_offset))
    for a in assigns:           # (one pass in source order: `X = X.to(device).float()`)
        if any(type(n) is ast.Name and n.id in given for n in walk(a.value)):
            given.update(n.id for t in a.targets for n in walk(t) if type(n) is ast.Name)
    # (what it returns is used: assigned or returned; a call whose result is dropped,
    # `self.metric.update(preds, y)`, `self.logger.log(x)`, records, it computes nothing)
    used = {id(n) for stmt in nodes if type(stmt) in (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return)
            and stmt.value is not None for n in walk(stmt.value) if type(n) is ast.Call}
    for call in nodes:
        if type(call) is not ast.Call or id(call) not in used:
            continue
        args = [*call.args, *(k.value for k in call.keywords)]
        if not any(type(n) is ast.Name and n.id in given for a in args for n in walk(a)):
            continue
        if calls.held(call):
            return True
        root, attrs = callee_chain(call.func)
        if type(root) is ast.Name and root.id in params and len(attrs) == 1 and \
                attrs[0] not in VALUE_METHODS and not attrs[0].startswith("_"):
            return True
    return False
