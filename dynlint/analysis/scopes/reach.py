"""Model reachability: the roots (forwards, compiled functions, loops that drive a model),
what they reach in the file, training steps (`in_step_span`), and the role of each function."""
from __future__ import annotations

import ast

from ..reporting import (EXPORTS, draws, imports_plotting, returns_host_numbers, returns_host_object,
                         opens_file, returns_python_bool, returns_text, writes_text)
from ..roles import Role
from ..evalsteps import call_key, inference_loops_callees, per_batch_callees, runs_model
from ..steploops import (batch_loop_spans, body_span, drives_model, loop_statements, own_nodes, step_spans, trains,
                         whole_body)
from .callgraph import CallGraph
from .cold import (handles_data, host_algorithm, HOST_ALGORITHMS, returns_float, self_test, spread_cold,
                   evaluates)
from .info import FunctionInfo, Scopes
from .naming import (COLD_FUNC, COMPILE_CALL, COMPILE_DECORATORS, LOSS_CLASS, MEMOIZE_DECORATORS,
                     MODULE_INSTANCE, ROOT_FUNCTION, ROOT_METHOD, STEP_METHOD, constructed_classes,
                     modelish_name)


def assign_roles(scopes: Scopes, order: list[FunctionInfo], lines: list[str]) -> None:
    """Model code is what model roots reach; cold code is cold by nature or reached only from
    cold code; the rest is neutral ("library": in scope for shape rules, not for host reads)."""
    if scopes.test_module is not None or scopes.logging_module is not None:
        for f in order:
            f.role = Role.COLD
        return
    graph = CallGraph(scopes, order, lines)
    compiled = _compiled_by_call(scopes, lines)
    model: set[int] = set()
    todo = [f for f in order if _is_root(f, scopes, compiled, graph)]
    todo += [f for f in order if _wraps_driver(f, graph)]
    # Drawing a figure is reporting whoever calls it: model reachability stops there (a root
    # that also draws, a `forward` with a debug plot, stays a root).
    plotting = scopes.plotting
    # Lightning steps of a class that only another file can tell to be a module: entry points
    # if the cross-file step finds it one, so cold here only for want of that (soft cold),
    # and, like the roots, not made cold by a figure they draw.
    steps = {id(f) for f in order if f.cls is not None and f.qualname in f.cls.deferred
             and STEP_METHOD.match(f.name)}
    roots = None
    if imports_plotting(scopes.imports):
        roots = {id(f) for f in todo} | steps
        plotting.update(id(f) for f in order
                        if id(f) not in roots and draws(f.refs(lines)[0], scopes.imports))
    # Writing text to a file or stream (a report, a log of weights) renders for a person,
    # like a figure: cold whoever calls it (one look at the text spares most modules).
    if any("file=" in ln or ".write(" in ln for ln in lines):
        roots = roots or {id(f) for f in todo} | steps
        scopes.reports.update(id(f) for f in order if id(f) not in roots and writes_text(f.node))
        plotting.update(scopes.reports)
    # Opening a file is host I/O (parsing a text file, writing a partition to disk): what the
    # function reads from tensors comes from or goes to the file, cold whoever calls it.
    if any("open(" in ln for ln in lines):
        roots = roots or {id(f) for f in todo} | steps
        scopes.files.update(id(f) for f in order if id(f) not in roots and opens_file(f.node))
        plotting.update(scopes.files)
    # Switching a module to eval mode and back to training mode is an evaluation run
    # between training steps (or a probe, an export): reporting too, whoever calls it.
    evaluating = [f for f in order if f.parent is None and evaluates(f, lines)]
    if evaluating:
        roots = roots or {id(f) for f in todo} | steps
        scopes.evaluation.update(id(f) for f in evaluating if id(f) not in roots)
        plotting.update(scopes.evaluation)
    # A memoized function runs its body once per distinct arguments (`@lru_cache` on the
    # degrees of a Clebsch-Gordan table), like lazy initialisation: cold, whoever calls it.
    memoized = scopes.memoized
    instances = _module_instances(lines, scopes) if any(
        type(d) is ast.Attribute and type(d.value) is ast.Name for f in order for d in f.node.decorator_list) else {}
    memoized.update(id(f) for f in order if f.node.decorator_list and
                    _decorated(f, scopes, MEMOIZE_DECORATORS, instances))
    why = scopes.why                # None unless explaining: then record predecessors
    if why is not None:
        scopes.roots = {id(f) for f in todo}
    while todo:
        f = todo.pop()
        if id(f) in model or id(f) in plotting or id(f) in memoized:
            continue
        model.add(id(f))
        start = len(todo)
        todo.extend(graph.callees(f))
        if why is not None:
            for g in todo[start:]:
                if id(g) not in model and id(g) not in scopes.roots:
                    why.setdefault(id(g), f)
    constructors = {id(i) for infos in constructed_classes(scopes.classes).values() for i in infos}
    # Most modules import neither heapq nor bisect: then no function's names need a look.
    host_imports = any(q in HOST_ALGORITHMS or q.rpartition(".")[0] in HOST_ALGORITHMS
                       for q in scopes.imports.values())
    # (most modules import no export library: then no function's returns need a look)
    exports = any((q + ".").startswith(EXPORTS) or q == "scipy" for q in scopes.imports.values())
    for f in order:                 # parents come before their nested functions
        parent_role = f.parent.role if f.parent is not None else Role.NEUTRAL
        if f.parent is not None and id(f.parent) in memoized:
            parent_role = Role.NEUTRAL  # (a closure it builds once may run on every call)
        if id(f) in plotting or id(f) in memoized:
            f.role = Role.COLD
        elif id(f) in model or parent_role == Role.MODEL:
            f.role = Role.MODEL
        elif parent_role == Role.COLD or COLD_FUNC.match(f.name) or (f.cls is not None and f.cls.cold):
            f.role = Role.COLD
            if f.parent is not None and id(f.parent) in scopes.soft_cold or id(f) in steps or \
                    f.parent is None and id(f) in constructors:
                # (the constructor of a plain class runs in the step when model code of
                # another file builds an instance there: `Interval(ts[0], ts[-1])`)
                scopes.soft_cold.add(id(f))
        elif returns_float(f.node) or returns_host_numbers(f.node) or returns_text(f.node, scopes.text_calls()) or \
                handles_data(f.node) or f.cls is not None and self_test(f.node, scopes.qualname) or \
                scopes.defer and predicate(f) or \
                exports and returns_host_object(f.node, scopes.qualname):
            # (reachability from another file wins)
            f.role = Role.COLD
            scopes.soft_cold.add(id(f))
        elif host_imports and host_algorithm(f, scopes, lines):
            f.role = Role.COLD
            scopes.host_algorithms.add(id(f))
    evaluated = _evaluation_steps(scopes, order, graph)
    spread_cold(order, graph, scopes.soft_cold, memoized, evaluated)
    if scopes.deferred:
        _keep_deferred_reach(scopes, order, graph)
    if scopes.example_module is None:       # example scripts stay cold unless model code reaches them
        _mark_steps(order, lines, scopes.deferred_reach, scopes, graph)
    for f in order:
        # (what a deferred entry point reaches is walked as it would be were it decided here)
        f.modelish = f.role == Role.MODEL or id(f) in scopes.deferred_reach or bool(
            modelish_name(f.name)
            or (f.cls is not None and f.cls.is_module and not COLD_FUNC.match(f.name)))


def _evaluation_steps(scopes: Scopes, order: list[FunctionInfo], graph: CallGraph) -> set:
    """The ids of the evaluation and prediction steps of this file (`evalsteps.py`): what an
    inference loop calls on each batch and runs a model on it. They are in scope whatever
    calls them (not cold for want of another caller, nor by their name): neutral, so shape
    rules and host reads that steer Python fire there, while the exports of predictions to
    the host (`in_model_code` rules) stay quiet, as in any library code."""
    out: set = set()
    lines = graph.lines
    # (most modules run nothing in inference mode: one look at the text spares their functions)
    text = "\n".join(lines)
    if "no_grad" not in text and "inference_mode" not in text and ".eval()" not in text:
        return out
    for f in order:
        for kind, name in per_batch_callees(f.node, scopes.qualname, f.refs(lines)[0]):
            if kind == "self":
                found = f.cls.methods.get(name, ()) if f.cls is not None else ()
            else:
                found = graph.module_funcs.get(name, ())
            for g in found:
                if id(g) in out or g.role == Role.MODEL or g is f or \
                        (g.cls is not None and g.cls.cold) or id(g) in scopes.plotting or \
                        id(g) in scopes.memoized or id(g) in scopes.host_algorithms:
                    continue
                own = g.cls.methods if g.cls is not None else {}
                if runs_model(g.node, own, lambda m, g=g: graph.method_holds(g.cls, m)):
                    out.add(id(g))
                    if g.role == Role.COLD:         # (by its name: `eval_step`, `validate_batch`)
                        g.role = Role.NEUTRAL
                        scopes.soft_cold.discard(id(g))
    scopes.eval_steps = out
    return out


def predicate(f: FunctionInfo) -> bool:
    """A function answering a question with a Python bool (reporting.returns_python_bool); not
    the `__call__` or `forward` of an object, which a driver calls on every step (a generation
    loop's stopping criterion returning `True` once a token's probability drops). Only with the
    cross-file step (`Scopes.defer`): a model steering on `if is_padded(mask):` is often in
    another file, and a file checked alone (flake8, `--no-cross-file`) cannot see it reached."""
    return not ROOT_METHOD.match(f.name) and returns_python_bool(f.node)


def _keep_deferred_reach(scopes: Scopes, order: list[FunctionInfo], graph: CallGraph) -> None:
    """What a `forward` left to the cross-file step (an entry point whenever its bases stay
    unknown) reaches in this file is walked as model code would be (`modelish`, no training
    step cut short) and, where cold here (by its name: `load_balancing_loss_func`, or for
    want of another caller), is soft cold: its model-code findings are kept aside, reported
    if that step makes the `forward` an entry point, as when it is decided in the file."""
    seen = scopes.deferred_reach
    todo = list(scopes.deferred)
    while todo:
        f = todo.pop()
        if id(f) in seen or f.role == Role.MODEL:
            continue
        seen.add(id(f))
        if f.role == Role.COLD and not (f.cls is not None and f.cls.cold):
            scopes.soft_cold.add(id(f))
        todo.extend(graph.callees(f))
    for f in order:                 # parents come before their nested functions
        if f.parent is not None and id(f.parent) in seen:
            seen.add(id(f))
            if f.role == Role.COLD:
                scopes.soft_cold.add(id(f))


def _mark_steps(order: list[FunctionInfo], lines: list[str], deferred: set, scopes: Scopes,
                graph: CallGraph) -> None:
    """A function that runs a backward pass through a loss it computed is the training step
    (stable-baselines3's `train()`, a Trainer's `training_step`), whatever its name: its code
    inside the step's span is model code. Marked after the cold spread, so that helpers only
    it calls keep their role, and not followed to callees (a driver that only calls a step
    function stays as it is; the step's callees are reached from the model, or are not).
    Not a function only memoized functions call: it runs once per their distinct arguments
    (a numerical optimiser placing grid points once per grid size), a precomputation."""
    per_batch = {}
    for f in order:
        # (what an entry point left to the cross-file step reaches is model code, whole, if
        # that step makes it one, as when it is decided in the file)
        if f.role == Role.MODEL or id(f) in deferred or "backward" not in f.refs(lines)[0]:
            continue
        if scopes.memoized and _only_memoized_callers(f, order, graph, scopes.memoized):
            continue
        spans = step_spans(f.node)
        if spans:
            f.steps = tuple(spans)
            f.role = Role.MODEL
            if spans == [whole_body(f.node)]:
                per_batch[id(f)] = f
    funcs = {}
    for f in order:
        if f.parent is None and f.cls is None:
            funcs.setdefault(f.name, []).append(f)
    if per_batch:
        _mark_batch_loops(order, deferred, scopes, per_batch, funcs)
    _mark_validation_epochs(order, lines, deferred, scopes, funcs)


def _mark_batch_loops(order, deferred, scopes, per_batch, funcs) -> None:
    """A function that runs a backward pass outside any loop is called once per minibatch
    (TabNet's `_train_batch`, a template's `batch_update` overridden by the training epoch's
    subclass): the innermost loop calling it (`self.m(...)`, this class's `m` or an override
    in a subclass of this file, or a module function `f(...)`) is the minibatch loop, its
    body the training step whatever the looping function's name (`Epoch.run`), as when the
    backward sits in the loop itself. Only a per-batch step makes one: a loop around a
    function with its own minibatch loop iterates over epochs."""
    for f in order:
        if f.role == Role.MODEL or id(f) in deferred:
            continue
        spans = batch_loop_spans(f.node, lambda call, f=f: any(
            id(g) in per_batch and g is not f for g in _called(call, f, funcs, scopes)))
        if spans:
            f.steps = tuple(spans)
            f.role = Role.MODEL


def _called(call, f, funcs, scopes) -> list:
    """What a call in `f` runs in this file: `f(...)` a module function, `self.m(...)` the
    class's `m` and the overrides in its subclasses here."""
    func = call.func
    if type(func) is ast.Name:
        return funcs.get(func.id, ())
    cls = f.cls
    if type(func) is ast.Attribute and type(func.value) is ast.Name and func.value.id == "self" and \
            cls is not None:
        return [*cls.methods.get(func.attr, ()),
                *(g for sub in scopes.subclasses(cls) for g in sub.methods.get(func.attr, ()))]
    return ()


def _span_calls(g) -> set:
    """(kind, name) of the `self.m(...)` and `f(...)` calls inside a function's step spans."""
    return {call_key(n) for n in own_nodes(g.node.body) if type(n) is ast.Call and in_step_span(g, n)}


def _mark_validation_epochs(order, lines, deferred, scopes, funcs) -> None:
    """The validation epoch a fit loop runs between its training epochs: a loop calling a
    training step (a function with step spans: the epoch loop of TabNet's `fit`, sbi's
    `train`) that also calls a function of the file whose inference loop
    (`evalsteps._inference_loops`) runs, on each batch, an evaluation step or what the
    training step itself calls per batch (`self._get_losses(batch=batch)`: the step's
    computation without its backward). That loop runs every epoch on the device the
    training runs on, whatever the function's name, `-> float` or `eval()`/`train()` switch
    (which make a one-off evaluation reporting): its body is model code, as the training
    step's loop is, and so is the evaluation step it calls. An evaluation called once after
    the fit loop, or by the user, stays as it was."""
    stepping = {id(f) for f in order if f.steps}
    if not stepping:
        return
    for f in order:
        if id(f) in deferred:
            continue
        for loop in loop_statements(f.node.body):
            resolved = [(c, _called(c, f, funcs, scopes)) for c in own_nodes(loop.body) if type(c) is ast.Call]
            steps = [g for _, gs in resolved for g in gs if id(g) in stepping and g is not f]
            if not steps:
                continue
            # (what the training steps call: a validation loop calling the same on each batch
            # runs the step's computation without its backward, `self._get_losses(batch)`)
            shared = {c for g in steps for c in _span_calls(g)}
            for _, gs in resolved:
                for h in gs:
                    if id(h) in stepping or h is f or h.role == Role.MODEL:
                        continue
                    spans, evals = _validation_loops(h, lines, scopes, funcs, shared)
                    if spans:
                        h.steps = tuple(spans)
                        h.role = Role.MODEL
                        stepping.add(id(h))
                        scopes.soft_cold.discard(id(h))
                        for e in evals:
                            e.role = Role.MODEL
                            scopes.soft_cold.discard(id(e))


def _validation_loops(h, lines, scopes, funcs, shared) -> tuple:
    """(the bodies of `h`'s inference loops that run an evaluation step or a call in `shared`
    on each batch, the evaluation steps they run)."""
    spans, evals = [], []
    for loop, callees in inference_loops_callees(h.node, scopes.qualname, h.refs(lines)[0]):
        for kind, name in callees:
            found = (h.cls.methods.get(name, ()) if h.cls is not None else ()) \
                if kind == "self" else funcs.get(name, ())
            hit = [e for e in found if id(e) in scopes.eval_steps]
            if hit or (kind, name) in shared:
                evals += hit
                span = body_span(loop.body)
                if span not in spans:
                    spans.append(span)
    return spans, evals


def in_step_span(f: FunctionInfo, node) -> bool:
    """Whether `node` of a step function (`FunctionInfo.steps`) lies in one of its steps."""
    at = (node.lineno, node.col_offset)
    return any(start <= at <= end for start, end in f.steps)


def _compiled_by_call(scopes: Scopes, lines: list[str]) -> frozenset:
    """Names of functions passed to `torch.compile(fn)` / `torch.jit.script(fn)` by call."""
    out = set()
    text = "\n".join(lines)
    if "compile(" not in text and "script(" not in text and "trace(" not in text:
        return frozenset()
    for line in lines:
        if "compile(" in line or "script(" in line or "trace(" in line:
            for callee, arg in COMPILE_CALL.findall(line):
                first, _, rest = callee.partition(".")
                full = scopes.imports.get(first, first) + ("." + rest if rest else "")
                if full in COMPILE_DECORATORS:
                    out.add(arg)
    return frozenset(out)


def _is_root(f: FunctionInfo, scopes: Scopes, compiled=frozenset(), graph=None) -> bool:
    cls = f.cls
    if cls is not None and cls.cold:
        return False
    if _decorated(f, scopes, COMPILE_DECORATORS):
        return True
    if f.name in compiled and (f.parent is None or cls is not None):
        return True
    if cls is not None:
        if (STEP_METHOD.match(f.name) and cls.is_module) or (cls.autograd and f.name in ("forward", "backward")):
            return True
        if STEP_METHOD.match(f.name) and cls.module_state is None and scopes.defer:
            cls.deferred[f.qualname] = False
        if ROOT_METHOD.match(f.name):
            if returns_host_numbers(f.node) or returns_text(f.node, scopes.text_calls()):   # a report, no step's output
                return False
            if cls.is_module or LOSS_CLASS.search(cls.name):
                return True
            # Not known to be a module: its `forward` runs in the step only if some code
            # reachable calls it, unless a base of another file may make it a module.
            if cls.module_state is None:
                if scopes.defer:
                    cls.deferred[f.qualname] = f.name == "forward"
                    if f.name == "forward":     # (an entry point without this step too)
                        scopes.deferred.append(f)
                else:
                    return f.name == "forward"
    elif f.parent is None and ROOT_FUNCTION.search(f.name):
        return True
    if COLD_FUNC.match(f.name):
        return False
    if graph is None or cls is not None and self_test(f.node, scopes.qualname):
        return False                # (a self-check's loop over test cases drives nothing)
    own = cls.methods if cls is not None else {}
    f.drives = drives_model(f.node, own, lambda name: graph.method_holds(cls, name))
    return f.drives


def _wraps_driver(f: FunctionInfo, graph: CallGraph) -> bool:
    """A method that calls, through `self`, a method of its own class whose loop drives the
    model (whisper's `DecodingTask.run` around `_main_loop`, `generate` around `_sample`): the
    decoding API, whose preparation and finalisation run once per call of the step, as the
    loop does. Whatever its name; not a training loop, not in a cold class."""
    cls = f.cls
    if cls is None or cls.cold or f.drives:
        return False
    _, attrs, _ = f.refs(graph.lines)
    if not any(g.drives and g is not f for a in attrs for g in cls.methods.get(a, ())):
        return False
    return not trains(own_nodes(f.node.body))


def _decorated(f: FunctionInfo, scopes: Scopes, names: frozenset, instances: dict | None = None) -> bool:
    """A decorator of `f` is one of `names`: `functools.lru_cache`, or a method of a module-level
    instance (`cache = Memory(path)`, then `@cache.cache`: `joblib.Memory.cache`)."""
    for d in f.node.decorator_list:
        d = d.func if type(d) is ast.Call else d
        q = scopes.qualname(d)
        if q in names:
            return True
        if instances and type(d) is ast.Attribute and type(d.value) is ast.Name and \
                f"{instances.get(d.value.id)}.{d.attr}" in names:
            return True
    return False


def _module_instances(lines: list[str], scopes: Scopes) -> dict:
    """Module-level names bound to a call, with the callee's qualified name (`cache =
    Memory(path)` -> {"cache": "joblib.Memory"})."""
    out = {}
    for line in lines:
        m = MODULE_INSTANCE.match(line)
        if m:
            head, _, rest = m.group(2).partition(".")
            out[m.group(1)] = scopes.imports.get(head, head) + ("." + rest if rest else "")
    return out


def _only_memoized_callers(f: FunctionInfo, order: list[FunctionInfo], graph: CallGraph, memoized) -> bool:
    """Something in the file calls `f`, and only memoized functions do."""
    callers = [g for g in order if g is not f and f in graph.callees(g)]
    return bool(callers) and all(id(g) in memoized for g in callers)


# -- what the roles came to, for a walk again of the same text ----------------------------------
# A walk again with other files' summaries (crossfile.settle) parses the file anew and runs the
# pre-pass again; the roles (reachability, cold spread, steps) depend only on the text, the
# module's name and `defer`, so the first walk hands them on instead (`roles_record`), keyed
# by position in the definition order, which the same text gives again. (The text is checked by
# `hash`, the same in the forked workers of one run; where workers are spawned with another
# seed, the record never matches and the walk again decides the roles itself, as before.)
_ROLE_SETS = ("plotting", "evaluation", "memoized", "host_algorithms", "soft_cold",
              "eval_steps", "deferred_reach")


def roles_record(scopes: Scopes, text: str) -> tuple | None:
    """What `assign_roles` decided for the module of `text` (the roles, `modelish`, steps,
    drivers, entry points left to the cross-file step, and the sets of `Scopes` it fills), as
    positions in `scopes.order`: None where something is not such a position (then the walk
    again runs the pre-pass whole, as without a record)."""
    order = scopes.order
    if scopes.why is not None:
        return None
    at = {id(f): i for i, f in enumerate(order)}
    sets = {}
    for name in _ROLE_SETS:
        ids = getattr(scopes, name)
        if not all(i in at for i in ids):
            return None
        sets[name] = tuple(sorted(at[i] for i in ids))
    if not all(id(f) in at for f in scopes.deferred):
        return None
    return (hash(text), tuple(f.qualname for f in order), tuple(f.role for f in order),
            tuple(i for i, f in enumerate(order) if f.modelish),
            tuple((i, f.steps) for i, f in enumerate(order) if f.steps),
            tuple(i for i, f in enumerate(order) if f.drives),
            tuple((i, f.cls.deferred[f.qualname]) for i, f in enumerate(order)
                  if f.cls is not None and f.qualname in f.cls.deferred),
            tuple(at[id(f)] for f in scopes.deferred), sets)


def apply_roles(scopes: Scopes, order: list[FunctionInfo], text: str, record: tuple) -> bool:
    """`assign_roles` replayed from `roles_record` of the same text; False (nothing set) when
    the record is of another text or another definition order."""
    digest, names, roles, modelish, steps, drives, deferred, entries, sets = record
    if digest != hash(text) or len(names) != len(order) or \
            any(f.qualname != n for f, n in zip(order, names)):
        return False
    for f, role in zip(order, roles):
        f.role = role
    for i in modelish:
        order[i].modelish = True
    for i, spans in steps:
        order[i].steps = spans
    for i in drives:
        order[i].drives = True
    for i, value in deferred:
        f = order[i]
        f.cls.deferred[f.qualname] = value
    scopes.deferred = [order[i] for i in entries]
    for name, at in sets.items():
        setattr(scopes, name, {id(order[i]) for i in at})
    return True
