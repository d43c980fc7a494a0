"""Predicates about calls: how many arguments and which keywords they get, what an argument
is, and what a call or a container holds (a tensor element, tensor items)."""
from __future__ import annotations

import ast

from ...analysis import kinds as K
from ...analysis.kinds import HOST, PROBABLE, TENSOR
from ...analysis.hostmem import copy_source
from .context import function_of
from .registry import predicate, REGISTRY


@predicate(arity=1)
def arg_count(ctx, node, n):
    """The call has exactly `n` positional arguments and no `*args`."""
    return type(node) is ast.Call and len(node.args) == int(n) and \
        not any(type(a) is ast.Starred for a in node.args)


@predicate(arity=1)
def min_args(ctx, node, n):
    """The call has at least `n` positional arguments."""
    return type(node) is ast.Call and len(node.args) >= int(n)


@predicate(arity=-1)
def kw_absent(ctx, node, *names):
    """None of the named keyword arguments is passed (and no `**kwargs` that could hold them)."""
    if type(node) is not ast.Call:
        return False
    given = {k.arg for k in node.keywords}
    return None not in given and not given.intersection(names)


@predicate(arity=-1)
def kw_unset(ctx, node, *names):
    """Each named keyword argument is absent, `None`, or a parameter of the enclosing function
    that defaults to `None` and is never rebound (`output_size=output_size` of a helper
    written to be called without it: the value may well be None); no `**kwargs`."""
    if type(node) is not ast.Call:
        return False
    func = None
    for k in node.keywords:
        if k.arg is None:
            return False
        if k.arg not in names or type(k.value) is ast.Constant and k.value.value is None:
            continue
        if type(k.value) is not ast.Name:
            return False
        if func is None:
            frame = function_of(ctx)
            if frame is None:
                return False
            func = frame.node
        if not _none_default_param(func, k.value.id):
            return False
    return True


def _none_default_param(func, name: str) -> bool:
    """`name` is a parameter of `func` with the default `None`, not rebound in its body."""
    args = func.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults)) + \
        list(zip(args.kwonlyargs, args.kw_defaults))
    if not any(a.arg == name and type(d) is ast.Constant and d.value is None for a, d in pairs):
        return False
    return not any(type(n) is ast.Name and n.id == name and type(n.ctx) is not ast.Load
                   for st in func.body for n in ast.walk(st))


@predicate(arity=-1)
def kw_present(ctx, node, *names):
    """At least one of the named keyword arguments is passed."""
    return type(node) is ast.Call and any(k.arg in names for k in node.keywords)


@predicate(arity=2)
def kw_literal(ctx, node, name, value):
    """Keyword argument `name` is passed as the literal `value` (`kw_literal(shuffle, True)`)."""
    if type(node) is not ast.Call:
        return False
    for k in node.keywords:
        if k.arg == name:
            return type(k.value) is ast.Constant and type(k.value.value) is type(value) \
                and k.value.value == value
    return False


@predicate(arity=2)
def arg(ctx, node, index, pred):
    """Positional argument `index` (0-based) exists and satisfies predicate `pred`."""
    if type(node) is not ast.Call or len(node.args) <= int(index):
        return False
    return _apply(ctx, pred, node.args[int(index)])


@predicate(arity=1)
def any_arg(ctx, node, pred):
    """Some argument of the call (positional, keyword, or an item of a tuple/list argument) satisfies predicate `pred`; `out=`, `device=`, `dtype=` and the like say where a result goes, not what it is, and do not count. A splatted argument (`*shape`) is given to `pred` as it is: only a predicate that reads a `Starred` (`holds_tensor`) can hold for it."""
    if type(node) is not ast.Call:
        return False
    values = list(node.args) + [k.value for k in node.keywords
                                if k.arg is not None and k.arg not in _PLACEMENT_KEYWORDS]
    for v in values:
        items = v.elts if type(v) in (ast.Tuple, ast.List) else (v,)
        if any(_apply(ctx, pred, i) for i in items):
            return True
    return False


_PLACEMENT_KEYWORDS = frozenset({"out", "device", "dtype", "layout", "generator",
                                 "requires_grad", "pin_memory", "memory_format"})


@predicate()
def project_callee(ctx, node):
    """The call's function resolves, through the file's imports (relative ones against the module's own dotted name), to a name inside the file's own top-level package: `box_ops.batched_nms(...)` after `from ..ops import boxes as box_ops` in a detection head of torchvision itself. The callee's body is then part of the project checked, where what it does is reported, once, rather than again at each call; the same call from another project (`torchvision.ops.batched_nms` in a user's detector) is not one. A relative import always does (it cannot leave its package); an absolute one needs the module's name, so never for a file outside any package or read from standard input."""
    if type(node) is not ast.Call or type(node.func) not in (ast.Name, ast.Attribute):
        return False
    analyzer = ctx.analyzer
    q = analyzer.qualname(node.func)
    if q is None:
        return False
    if q.startswith("."):
        return True             # a relative import never leaves its package
    module, is_package = analyzer.module_name, getattr(analyzer, "is_package", False)
    if not module or ("." not in module and not is_package):
        return False            # a loose module: no package around it to hold the callee
    return "." in q and q.partition(".")[0] == module.partition(".")[0]


def _apply(ctx, name, node) -> bool:
    p = REGISTRY.get(str(name))
    if p is None or p.arity not in (0, -1):
        raise ValueError(f"predicate argument must name a predicate without arguments: {name}")
    return bool(p.fn(ctx, node))


@predicate()
def tensor_element(ctx, node):
    """A 0-d tensor, which Python reads back to an int when it is used as an index: a single element taken from a row of a loop over a tensor (`for row in t: row[0]`) or of positions (`m.nonzero(as_tuple=True)[0][0]`), or, as weaker evidence (the finding is `likely`), a parameter annotated `int | Tensor` (a tensor standing in for a number)."""
    k = ctx.kind(node)
    if not k & K.SCALAR:
        return False
    if K.level(k) < TENSOR:
        ctx.weak = True
    return True


@predicate()
def compares_tensor_element(ctx, node):
    """A comparison (`t > 0`, `num_obs < 2`) that is probably, not certainly, a tensor because one side is a 0-d tensor only probably: a value declared `int | Tensor` (a parameter, a function's return), or a parameter declared a number that callers pass a tensor (see `tensor_element`). Python reads the answer back when it branches; the finding is `likely`."""
    if type(node) is not ast.Compare or any(type(o) in (ast.Is, ast.IsNot, ast.In, ast.NotIn)
                                            for o in node.ops):
        return False
    k = ctx.kind(node)
    if K.level(k) != PROBABLE or k & HOST:
        return False              # a certain tensor is `tensor`'s (no second finding)
    for operand in (node.left, *node.comparators):
        items = ctx.analyzer._items_of(operand) if type(operand) is ast.Name else None
        # (`pad == (0, 0)` of a tuple whose items callers pass as 0-d tensors)
        for o in items if type(items) is tuple else (ctx.kind(operand),):
            if o & K.SCALAR and K.level(o) >= PROBABLE and not o & HOST:
                ctx.weak = True
                return True
    return False


@predicate()
def loop_carried_tensor(ctx, node):
    """A name truth-tested as the first operand of an `or`/`and` whose value is assigned back to it inside a loop (`triggered = triggered or (meas[i] >= level)`), where a later operand is a tensor: from the second iteration on the name holds that tensor, and the test reads it on the host."""
    stack = ctx.analyzer.stack
    if type(node) is not ast.Name or len(stack) < 3 or type(stack[-1]) is not ast.BoolOp or \
            stack[-1].values[0] is not node:
        return False
    assign = stack[-2]
    if type(assign) is not ast.Assign or assign.value is not stack[-1] or \
            not any(type(t) is ast.Name and t.id == node.id for t in assign.targets):
        return False
    for outer in reversed(stack[:-2]):
        if type(outer) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef):
            return False
        if type(outer) in (ast.For, ast.AsyncFor, ast.While):
            break
    else:
        return False
    return any(K.level(k) == TENSOR and not k & HOST for k in map(ctx.kind, stack[-1].values[1:]))


@predicate()
def tensor_items(ctx, node):
    """A generator or list comprehension whose items are tensors (`m.any() for m in masks`): a builtin that truth-tests or compares the items (`any`, `all`, `min`, `max`) reads each one on the host."""
    return type(node) in (ast.GeneratorExp, ast.ListComp) and bool(ctx.kind(node) & K.ITEMS)


@predicate()
def tensor_tuple_items(ctx, node):
    """A generator or list comprehension of tuples with a tensor among their items (`(p, r, t) for p, r, t in zip(precision, recall, thresholds)`): `min`/`max`/`sorted` compare the tuples item by item, `==` then `<` on the tensors, each answer read on the host."""
    if type(node) not in (ast.GeneratorExp, ast.ListComp) or type(node.elt) is not ast.Tuple:
        return False
    with ctx.analyzer.comprehension(node):
        return any(K.level(k) == TENSOR and not k & HOST for k in map(ctx.kind, node.elt.elts))


@predicate()
def holds_tensor(ctx, node):
    """A tensor, or a list/tuple literal (or a name bound to one) with a tensor among its items; a tuple whose items callers pass as 0-d tensors (`pad: tuple[int, int]` given `(max_pad_len, 0)`), by name or unpacked into a literal, on weak evidence (`likely`)."""
    if type(node) is ast.Starred:
        # `torch.zeros(*shape)`: each item of `shape` is an argument; a tuple holding a
        # tensor (`(len(splits), torch.max(splits))`) passes it, and so does splatting a
        # tensor (its rows).
        node = node.value
        k = ctx.kind(node)
        if (K.level(k) == TENSOR and not k & (HOST | K.SHAPE)) or k & K.HOLDS:
            return True
        if type(node) is not ast.Name:
            return False
    else:
        k = ctx.kind(node)
        if (K.level(k) == TENSOR and not k & HOST) or k & K.HOLDS:
            return True
    # A tuple whose items callers pass as 0-d tensors (`pad: tuple[int, int]` given
    # `(max_pad_len, 0)`), by name or unpacked into a literal (`(*zeros, *pad)`): `likely`.
    names = [node] if type(node) is ast.Name else \
        [e.value for e in node.elts if type(e) is ast.Starred and type(e.value) is ast.Name] \
        if type(node) in (ast.Tuple, ast.List) else []
    for name in names:
        items = ctx.analyzer._items_of(name)
        if type(items) is tuple and any(i & K.SCALAR and K.level(i) >= PROBABLE and not i & HOST
                                        for i in items):
            ctx.weak = True
            return True
    return False


@predicate()
def sizes_from_device(ctx, node):
    """Always holds; when the call builds a tensor in host memory (see `host_tensor`: `torch.randint(2, 9, (n[i],))` without `device=`, `v.view(k, -1)` of a host tensor) and every tensor among its arguments is host memory too, it holds on weak evidence, so the finding is `likely`: no device waits for those sizes and no device graph has that shape, but under torch.compile the read is still a graph break, and a run on the CPU records it. A size read for a device tensor changes a device graph's shape whatever memory it comes from."""
    if type(node) is ast.Call and ctx.kind(node) & K.CPU:
        args = [*node.args, *(k.value for k in node.keywords if k.arg not in _PLACEMENT_KEYWORDS)]
        if type(node.func) is ast.Attribute:
            args.append(node.func.value)
        items = [i for a in args for i in (a.elts if type(a) in (ast.Tuple, ast.List) else (a,))]
        if not any(type(i) is ast.Starred or _device_tensor(ctx, i) for i in items):
            ctx.weak = True
    return True


def _device_tensor(ctx, node) -> bool:
    """A tensor (or a list holding tensors) not known to be in host memory."""
    k = ctx.kind(node)
    if k & K.HOLDS:
        return True
    return K.level(k) >= PROBABLE and not k & HOST and \
        not (k & K.CPU and ctx.kind(copy_source(node)) & K.CPU)
