"""Where the code runs (roles come from the scopes pre-pass): model, step, cold or unrolled
code, inside a function or a loop, a loop accumulator, a function named or passed as
something."""
from __future__ import annotations

import ast

from ...analysis.roles import Role
from ...analysis.statements import walk
from ...analysis.scopes.reach import in_step_span
from ...analysis.bindings import binds_name, binds_name_here, block_statements
from .context import ancestors_of, last_name, last_statement, LOOPS
from .guards import outside_step
from .registry import predicate


@predicate()
def in_model_code(ctx, node):
    """Inside code that runs as part of the model's computation: a `forward` (or `__call__`/`forward_*` of a module), a loss function, a `torch.compile`/`jit.script` function, a helper or method they call in the same file, or a function nested in those."""
    return (ctx.frame.role == Role.MODEL or ctx.assume_model) and not outside_step(ctx, node) \
        and not _outside_training_step(ctx, node)


def _outside_training_step(ctx, node) -> bool:
    """In a function that is model code because it runs a training step of its own
    (`scopes.reach._mark_steps`), but outside that step: before or after its minibatch loop."""
    if ctx.assume_model or ctx.frame.kind != "function":
        return False
    info = ctx.analyzer.frame_info()
    if info is None or not info.steps:
        return False
    return not in_step_span(info, node) or _periodic(ctx, node)


def _periodic(ctx, node) -> bool:
    """Under `if step % log_every == 0:` (a test holding a `%`): logging every few steps,
    whose read is paid once per period, not per step. Not a block that runs a backward pass
    itself (TD3's delayed actor update under `if n % policy_delay == 0:` is a step)."""
    child = node
    for anc in reversed(ctx.analyzer.stack):
        if type(anc) is ast.If and any(b is child for b in anc.body) and any(
                type(n) is ast.BinOp and type(n.op) is ast.Mod for n in walk(anc.test)):
            return not any(type(n) is ast.Call and type(n.func) is ast.Attribute
                           and n.func.attr == "backward" for b in anc.body for n in walk(b))
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        child = anc
    return False


@predicate()
def in_step_code(ctx, node):
    """Inside a function that may run inside the step: model code, or library code that nothing in the file reaches from model code or from cold code only (a scheduler's `step`, a box utility a detector calls from another file). Not module level, class bodies, cold code."""
    if ctx.assume_model or ctx.frame.role == Role.MODEL:
        return (ctx.assume_model or ctx.frame.kind == "function") and not outside_step(ctx, node) \
            and not _outside_training_step(ctx, node)
    if ctx.frame.kind != "function" or ctx.frame.role == Role.COLD or outside_step(ctx, node):
        return False
    # Library code that no entry point reaches: it may run in a step, or may be setup, data
    # or diagnostics; the finding rests on scope alone and is `likely`, not `certain`.
    ctx.library = True
    return True


@predicate()
def in_cold_code(ctx, node):
    """Inside code that never runs inside the model graph and is not called from it: `__init__`, weight initialisation, training/eval loops, data preparation, tests, module level under `if __name__ == "__main__"`, class bodies."""
    return (ctx.frame.role == Role.COLD and not ctx.assume_model) or ctx.frame.kind in ("class", "main") or outside_step(ctx, node) \
        or _outside_training_step(ctx, node)


@predicate()
def in_unrolled_code(ctx, node):
    """Inside model code whose loops have a fixed number of steps that unroll into one graph (a `forward`, a loss, what they call); not a function whose loop feeds what a model returns into the next step (a hand-written decoding or denoising loop, found from the code)."""
    if not (ctx.frame.role == Role.MODEL or ctx.assume_model):
        return False
    info = ctx.analyzer.frame_info()
    return info is None or not (info.drives or info.steps)


@predicate()
def in_function(ctx, node):
    """Inside a function or method body, not at module or class level."""
    return ctx.frame.kind == "function"


@predicate()
def in_loop(ctx, node):
    """Inside the body of a `for`/`while` loop of the same function (not in the loop's header, not in a nested function): the code runs once per iteration."""
    return _innermost_loop(ctx, node)[0] is not None


def _innermost_loop(ctx, node):
    """(loop, the statement of its body holding `node`), or (None, None)."""
    child = node
    for owner in ancestors_of(ctx):
        if owner is ctx.frame.node:
            break
        if isinstance(owner, LOOPS) and any(child is s for s in owner.body):
            return owner, child
        child = owner
    return None, None


@predicate()
def loop_accumulator(ctx, node):
    """A local name that the innermost enclosing loop accumulates into: the matched statement is the only thing in the loop that binds it (not the loop target, no other assignment in the body), so each iteration starts from the previous iteration's result (`x = torch.cat([x, y])` grows `x`; after `x = f(item)` or before `x = layer(x)` it does not)."""
    if type(node) is not ast.Name:
        return False
    loop, holder = _innermost_loop(ctx, node)
    if loop is None or holder is None:
        return False
    if type(loop) is not ast.While and binds_name(loop.target, node.id):
        return False
    statement = last_statement(ctx)
    for st in block_statements(loop.body):
        if st is not statement and binds_name_here(st, node.id):
            return False
    return not any(binds_name(t, node.id) for t in _comprehension_targets(ctx, node))


def _comprehension_targets(ctx, node):
    return [g.target for a in ancestors_of(ctx)
            if type(a) in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
            for g in a.generators]


def _enclosing_names(info):
    """The names `in_function_*` may see from inside function `info`: its own, its class's and
    those of the functions around it, and `<lambda>` (a lambda nested anywhere inside)."""
    names = ["<lambda>"]
    while info is not None:
        names.append(info.name)
        if info.cls is not None:
            names.append(info.cls.name)
        info = info.parent
    return names


def _named_scope(analyzer, info, *words):
    return any(w.lower() in n.lower() for n in _enclosing_names(info) for w in words)


@predicate(arity=-1, scope=_named_scope)
def in_function_named(ctx, node, *words):
    """Inside a function whose name, or whose class's name, contains one of the given words, case-insensitive (`in_function_named(collate)`: `collate_fn`, `DataCollatorForX.__call__`), or a function nested in one."""
    words = tuple(w.lower() for w in words)
    frame = ctx.frame
    while frame is not None and frame.kind == "function":
        names = [frame.name, frame.cls.name if frame.cls is not None else ""]
        if any(w in n.lower() for n in names for w in words):
            return True
        frame = frame.parent
    return False


def _passed_scope(analyzer, info, *keywords):
    passed = _passed_as(analyzer, keywords)
    return bool(passed) and any(n in passed for n in _enclosing_names(info))


@predicate(arity=-1, scope=_passed_scope)
def in_function_passed_as(ctx, node, *keywords):
    """Inside a function (or a method of a class) that the module passes as one of the given keyword arguments, e.g. `in_function_passed_as(collate_fn)` for `DataLoader(ds, collate_fn=pad_batch)`, `collate_fn=partial(pad_batch, ...)` or `collate_fn=Padder(...)`; or a function nested in one."""
    passed = _passed_as(ctx.analyzer, keywords)
    frame = ctx.frame
    while frame is not None and frame.kind == "function":
        if frame.name in passed or (frame.cls is not None and frame.cls.name in passed):
            return True
        frame = frame.parent
    return False


def _passed_as(analyzer, keywords) -> frozenset:
    """Names given as these keyword arguments anywhere in the module (cached per module)."""
    cache = analyzer.__dict__.setdefault("_passed_as_cache", {})
    if keywords not in cache:
        names = set()
        tree = getattr(analyzer, "tree", None)
        # A keyword argument names itself in the text: most modules need no tree walk.
        text = "\n".join(analyzer.lines) if tree is not None else ""
        if any(k in text for k in keywords):
            for n in walk(tree):
                if type(n) is ast.keyword and n.arg in keywords:
                    value = n.value
                    if type(value) is ast.Call:   # partial(fn, ...) or an instance of a class
                        names.add(last_name(value.func))
                        value = value.args[0] if value.args else value
                    names.add(last_name(value))
        names.discard(None)
        cache[keywords] = frozenset(names)
    return cache[keywords]
