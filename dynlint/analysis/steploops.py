"""Loops that drive a model: a decoding or denoising loop runs once per generated token or
per step, so what it calls runs inside the step as surely as what `forward` calls.

The evidence is read from the code, not from names: a `for`/`while` loop whose body calls
something the function *holds* (`self(...)`, `self.model(...)`, `self.scheduler.step(...)`,
a parameter called directly or through a submodule, `model.decoder.layer(...)`, whose first
attribute no tensor, container or string has, a local bound to one of those) and feeds what
that call returns, directly or through other assignments in the loop, into its next step:
into the next iteration or into another held call. A loop that calls `.backward()` or
`.zero_grad()` is a training loop, not a driver. A method of
the same class counts as held when its own body calls something held (SAM's mask generator
calls `self._process_batch`, which calls `self.predictor`). A loop that only collects
results (`for b in batches: outs.append(self.model(b))`) is no driver.
"""
from __future__ import annotations

import ast

from .statements import child_nodes, statements, walk
from .tensor_api import TENSOR_NAMES

# Methods of tensors and of Python containers and strings: `x.view(...)`, `d.get(k)` on a
# parameter are no model call, `model.decoder(...)` is (also what `evalsteps` asks of a
# parameter's method: `model.predict(x)` runs a model, `x.float()` does not).
VALUE_METHODS = TENSOR_NAMES | frozenset(
    n for t in (list, dict, str, set, tuple, bytes) for n in dir(t) if not n.startswith("_"))
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def own_nodes(nodes):
    """All nodes under `nodes`, not entering nested functions, classes or lambdas: what runs
    when the function (or the loop body) runs, not what it only defines."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        for child in child_nodes(node):
            if not isinstance(child, _NESTED):
                stack.append(child)


def _own_node_list(nodes) -> list:
    """`list(own_nodes(nodes))`, without a generator's resume per node."""
    out, stack = [], list(nodes)
    pop, push, add = stack.pop, stack.append, out.append
    while stack:
        node = pop()
        add(node)
        for child in child_nodes(node):
            if not isinstance(child, _NESTED):
                push(child)
    return out


def _own_statements(body):
    """The statements `own_nodes(body)` gives (it enters a function or class that is itself
    an item of `body`, not deeper ones), without walking their expressions."""
    for node in body:
        if isinstance(node, _NESTED):
            yield node
            yield from statements(node.body, enter_defs=False)
        else:
            yield from statements((node,), enter_defs=False)


def loop_statements(body):
    """Loop statements of a function body (nested loops included, nested defs not): the
    candidates for a driving loop here and for an inference loop in `evalsteps`."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, _LOOPS):
            yield node
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(node, field, ()) or ())
        if type(node).__name__ == "Match":
            for case in node.cases:
                stack.extend(case.body)


def callee_chain(func):
    """(root node, attribute names from the root outward) of a callee expression
    (`self.model.decoder(...)` -> (Name self, ["model", "decoder"])): whether a call is held is
    decided by its root and its first attribute, whatever indexing or calls sit between."""
    attrs = []
    node = func
    while True:
        t = type(node)
        if t is ast.Attribute:
            attrs.append(node.attr)
            node = node.value
        elif t is ast.Subscript:
            node = node.value
        elif t is ast.Call:
            node = node.func
        else:
            attrs.reverse()
            return node, attrs


def param_names(fnode) -> set[str]:
    """The function's named parameters but `self`/`cls`: what a caller hands it (a model, a
    batch), as opposed to what it holds through `self`."""
    a = fnode.args
    names = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    names.discard("self")
    names.discard("cls")
    return names


def _held_locals(fnode) -> set[str]:
    """Locals bound to something held by `self`, without calling it (`fwd = self.__call__`,
    `model = self.model`)."""
    out = set()
    for node in _own_statements(fnode.body):
        if type(node) is ast.Assign and type(node.value) is ast.Attribute:
            root, _ = callee_chain(node.value)
            if type(root) is ast.Name and root.id == "self":
                out.update(t.id for t in node.targets if type(t) is ast.Name)
    return out


class HeldCalls:
    """Decides whether a call is a call of something a function holds (`self(...)`,
    `self.model(...)`, a parameter called or through a submodule, a local bound to one of
    those): the call that runs a model, shared by driving loops here and by evaluation
    steps (`evalsteps.runs_model`). `method_holds(name)` answers for a method of the same
    class (followed only when `follow_methods`)."""

    def __init__(self, fnode, own_methods, method_holds):
        self.params = param_names(fnode)
        self.locals = _held_locals(fnode)
        self.own_methods, self.method_holds = own_methods, method_holds

    def held(self, call: ast.Call, follow_methods: bool = True) -> bool:
        func = call.func
        if type(func) is ast.Name:
            return func.id == "self" or func.id in self.params or func.id in self.locals
        root, attrs = callee_chain(func)
        if type(root) is not ast.Name or not attrs:
            return False
        if root.id == "self":
            if attrs[0] in self.own_methods:
                return follow_methods and len(attrs) == 1 and self.method_holds(attrs[0])
            return True
        if root.id in self.params:        # `model.decoder(...)`; not `x.view(...)`, `op.Cast(...)`
            return len(attrs) > 1 and attrs[0] not in VALUE_METHODS
        return root.id in self.locals


def calls_held(fnode, own_methods) -> bool:
    """Whether the function's own body calls something it holds (methods not followed)."""
    calls = HeldCalls(fnode, own_methods, None)
    return any(type(n) is ast.Call and calls.held(n, follow_methods=False)
               for n in own_nodes(fnode.body))


def _targets(node):
    """Names an assignment rebinds (a subscript or attribute target rebinds nothing)."""
    t = type(node)
    if t is ast.Assign:
        todo = list(node.targets)
    elif t in (ast.AugAssign, ast.AnnAssign):
        todo = [node.target]
    else:
        return []
    out = []
    while todo:
        tgt = todo.pop()
        if type(tgt) is ast.Name:
            out.append(tgt.id)
        elif type(tgt) in (ast.Tuple, ast.List):
            todo.extend(tgt.elts)
        elif type(tgt) is ast.Starred:
            todo.append(tgt.value)
    return out


def trains(nodes) -> bool:
    """Whether `nodes` (a loop body's or a function body's own nodes, `own_nodes`) run a
    training step (`loss.backward()`, `optimizer.zero_grad()`): a training loop is cold code
    around the step, no driver of a model nor an evaluation loop."""
    return any(type(n) is ast.Call and type(n.func) is ast.Attribute
               and n.func.attr in ("backward", "zero_grad") for n in nodes)


_FAR = (1 << 60, 0)


def _bases(node):
    """Local names whose tensor an assignment writes into (`tokens[:, i] = v`): the object
    keeps the value across iterations. Not `self` (its attributes are state, not a step's
    output) nor attribute targets."""
    targets = node.targets if type(node) is ast.Assign else [node.target]
    out = []
    for tgt in targets:
        if type(tgt) is ast.Subscript:
            while type(tgt) is ast.Subscript:
                tgt = tgt.value
            if type(tgt) is ast.Name and tgt.id not in ("self", "cls"):
                out.append(tgt)
    return out


def _first_binding(nodes, assigns):
    """Name -> where the loop body first rebinds it (the end of an assignment's value, or the
    target of a nested `for`/`with`/comprehension/walrus): a read before that point sees what
    the previous iteration left."""
    first: dict[str, tuple] = {}
    skip = set()
    for a in assigns:
        targets = a.targets if type(a) is ast.Assign else [a.target]
        skip.update(id(n) for tgt in targets for n in walk(tgt))
        at = (a.value.end_lineno, a.value.end_col_offset)
        for name in _targets(a):
            if at < first.get(name, _FAR):
                first[name] = at
    for n in nodes:
        if type(n) is ast.Name and type(n.ctx) is ast.Store and id(n) not in skip:
            at = (n.lineno, n.col_offset)
            if at < first.get(n.id, _FAR):
                first[n.id] = at
    return first


def drives_model(fnode, own_methods, method_holds) -> bool:
    """Whether one of the function's loops feeds what a held callee returns back into the
    next iteration's held call: a name bound (or a tensor written, `tokens[:, i] = ...`) from
    that result is read in the loop before the loop body rebinds it, so the read sees what
    the previous iteration computed, and that value (directly or through names computed from
    it in the iteration) is passed to a held call; or a `while` test reads such a result. A
    loop whose iterations are independent (build a model, fit it, score it, collect the
    score) or that only accumulates results (`total += self.model(x)`) is no driver."""
    calls = None
    for loop in loop_statements(fnode.body):
        nodes = _own_node_list(loop.body)
        if not any(type(n) is ast.Call for n in nodes) or trains(nodes):
            continue
        if calls is None:
            calls = HeldCalls(fnode, own_methods, method_holds)
        assigns = [n for n in nodes if type(n) in (ast.Assign, ast.AugAssign, ast.AnnAssign)
                   and n.value is not None]
        held = [n for n in nodes if type(n) is ast.Call and calls.held(n)]
        if not held:
            continue
        held_ids = {id(n) for n in held}
        derived = _spread(assigns, set(), lambda a: any(
            id(n) in held_ids for n in walk(a.value) if type(n) is ast.Call))
        if not derived:
            continue
        if type(loop) is ast.While and any(type(n) is ast.Name and n.id in derived
                                           for n in walk(loop.test)):
            return True
        first = _first_binding(nodes, assigns)
        written = {id(b) for a in assigns for b in _bases(a)}
        carried = set()
        for n in nodes:
            if type(n) is ast.Name and type(n.ctx) is ast.Load and n.id in derived \
                    and id(n) not in written \
                    and (n.lineno, n.col_offset) <= first.get(n.id, _FAR):
                carried.add(n.id)           # read before this iteration binds it
        if not carried:
            continue
        carried = _spread(assigns, carried, lambda a: False)
        for call in held:
            args = [*call.args, *(k.value for k in call.keywords)]
            if any(type(x) is ast.Name and x.id in carried for arg in args for x in walk(arg)):
                return True
    return False


def _spread(assigns, names: set, source) -> set:
    """`names` grown to a fixed point by the assignments whose value is a `source` or reads
    one of the names (targets and written tensors join)."""
    names = set(names)
    changed = True
    while changed:                  # assignments come in any order
        changed = False
        for a in assigns:
            if not (source(a) or any(type(n) is ast.Name and n.id in names for n in walk(a.value))):
                continue
            new = [*_targets(a), *(b.id for b in _bases(a))]
            if not names.issuperset(new):
                names.update(new)
                changed = True
    return names


# -- training steps ---------------------------------------------------------------------------
def _computed_here(fnode) -> set[str]:
    """Names the function binds from a call (`out = model(x)`, `loss += crit(a, b)`) or from
    such names (`loss = policy_loss + c * value_loss`): values computed in the step, not
    handed to it."""
    assigns = [n for n in _own_statements(fnode.body)
               if type(n) in (ast.Assign, ast.AugAssign, ast.AnnAssign) and n.value is not None]
    return _spread(assigns, set(), lambda a: any(type(n) is ast.Call for n in walk(a.value)))


def _backward_of_computed(call: ast.Call, computed: set[str]) -> bool:
    """`loss.backward()`, `scaler.scale(loss).backward()`, `crit(a, b).backward()`,
    `self.accelerator.backward(loss)`, `torch.autograd.backward(loss)`: a backward pass
    through a tensor the function computed from a call (not `self.loss.backward()`, whose
    tensor another method computed, nor an autograd Function's own `backward`)."""
    func = call.func
    if type(func) is not ast.Attribute or func.attr != "backward":
        return False
    recv = func.value
    if type(recv) is ast.Name and recv.id in computed:
        return True
    if type(recv) is ast.Call:          # `crit(a, b).backward()`, `scaler.scale(loss).backward()`
        return True
    # `accelerator.backward(loss)`, `torch.autograd.backward(loss)`: the tensor is the argument.
    return bool(call.args) and type(call.args[0]) is ast.Name and call.args[0].id in computed \
        and type(recv) in (ast.Name, ast.Attribute)


def step_spans(fnode) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where the function runs a training step of its own: it calls `.backward()` on a tensor
    it computed from a call (a model's output, a loss). A backward inside a loop makes the
    innermost such loop's body the step (a `train()` that iterates over minibatches: what
    runs before and after the loop runs once per call); a backward outside loops makes the
    whole body the step (a function called once per batch). Spans are ((line, col), (line,
    col)) ranges; empty when the function runs no backward pass."""
    computed = None

    def hit(node) -> bool:
        nonlocal computed
        if type(node) is not ast.Call or type(node.func) is not ast.Attribute or node.func.attr != "backward":
            return False
        if computed is None:
            computed = _computed_here(fnode)
        return _backward_of_computed(node, computed)

    return _innermost_loop_spans(fnode, hit, True)


def whole_body(fnode) -> tuple[tuple[int, int], tuple[int, int]]:
    """The span of a function's whole body (`step_spans` gives it for a backward outside loops)."""
    return body_span(fnode.body)


def batch_loop_spans(fnode, is_step) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The bodies of the innermost loops of the function holding a call `is_step(call)` says
    runs a per-batch training step (reach._mark_batch_loops); spans as in `step_spans`."""
    return _innermost_loop_spans(fnode, lambda node: type(node) is ast.Call and is_step(node), False)


def body_span(body) -> tuple[tuple[int, int], tuple[int, int]]:
    return ((body[0].lineno, body[0].col_offset), (body[-1].end_lineno, body[-1].end_col_offset))


def _innermost_loop_spans(fnode, hit, outside: bool) -> list:
    """The bodies of the innermost loops holding a node `hit` accepts (with `outside`, the
    whole body for such a node outside loops), each once."""
    spans = []
    stack = [(n, None) for n in fnode.body]
    while stack:
        node, loop = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if (loop is not None or outside) and hit(node):
            span = body_span(loop.body if loop is not None else fnode.body)
            if span not in spans:
                spans.append(span)
        inner = node if isinstance(node, _LOOPS) else loop
        for child in child_nodes(node):
            in_body = isinstance(node, _LOOPS) and any(child is b for b in node.body)
            stack.append((child, inner if in_body else loop))
    return spans
