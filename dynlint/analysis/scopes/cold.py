"""Cold code: why a function is cold (`cold_reason`, for `--explain`), host algorithms, and
the spreading of coldness to what only cold code calls."""
from __future__ import annotations

import ast
import re

from ..reporting import returns_host_numbers, returns_host_object, returns_python_bool, returns_text
from ..roles import Role
from ..statements import walk
from .callgraph import CallGraph
from .info import FunctionInfo, Scopes
from .held import stores
from .naming import COLD_BASE, COLD_CLASS, COLD_FUNC, METHOD_ALIAS, ROOT_METHOD


# Modules whose data structures live on the host only: a function that keeps a heap or
# bisects a sorted list runs a host algorithm (greedy clustering, scheduling, search), which
# no device step contains; one that does symbolic algebra (`sympy`) generates formulas or
# code from tensor constants, offline.
HOST_ALGORITHMS = frozenset({"heapq", "bisect", "sympy"})
# A bisect is a search only when repeated: one lookup outside any loop (where a solver's
# setup starts in its sorted list of jump times) is one line of a function that otherwise
# runs device code, no algorithm that would make the whole function host code.
_REPEATED_ONLY = frozenset({"bisect"})
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp,
          ast.GeneratorExp)


def host_algorithm(f: FunctionInfo, scopes: Scopes, lines) -> bool:
    """Whether the function calls `heapq`/`sympy` (by module or by a name imported from it),
    or `bisect` in a loop."""
    imports = scopes.imports
    if not imports:
        return False
    names, _, pairs = f.refs(lines)
    found = {imports.get(name) for name, attr in pairs if imports.get(name) in HOST_ALGORITHMS}
    found.update(imports[n].rpartition(".")[0] for n in names
                 if n in imports and imports[n].rpartition(".")[0] in HOST_ALGORITHMS)
    if found - _REPEATED_ONLY:
        return True
    return bool(found) and _in_loop(f.node, scopes.imports, _REPEATED_ONLY)


def _in_loop(node, imports, modules) -> bool:
    """Whether a call of `modules` (by module or imported name) sits in a loop of `node`."""
    for loop in ast.walk(node):
        if not isinstance(loop, _LOOPS):
            continue
        for call in ast.walk(loop):
            if type(call) is not ast.Call:
                continue
            fn = call.func
            if type(fn) is ast.Attribute and type(fn.value) is ast.Name:
                q = imports.get(fn.value.id)
            elif type(fn) is ast.Name:
                q = imports.get(fn.id, "").rpartition(".")[0]
            else:
                continue
            if q in modules:
                return True
    return False


def evaluates(f: FunctionInfo, lines) -> bool:
    """Whether the function calls `m.eval()` and then `m.train()` on the same receiver, both
    without arguments: it runs `m` in eval mode and hands it back in training mode, so it runs
    between training steps (nerfstudio's pipeline `get_eval_image_metrics_and_images`), not
    in one. Not `m.train(training)`, which restores whatever mode the caller had: a model's
    `forward` may take a posterior of a submodule that way (gpytorch's heteroskedastic noise)."""
    node = f.node
    text = "\n".join(lines[node.lineno - 1:node.end_lineno])
    if ".eval()" not in text or ".train()" not in text:
        return False
    calls: dict = {"eval": {}, "train": {}}       # receiver -> the lines of its calls
    for n in walk(node):
        if type(n) is ast.Call and not n.args and not n.keywords and \
                type(n.func) is ast.Attribute and n.func.attr in calls:
            calls[n.func.attr].setdefault(ast.dump(n.func.value), []).append(n.lineno)
    return any(min(at) <= max(calls["train"].get(recv, (0,))) for recv, at in calls["eval"].items())


def returns_float(node) -> bool:
    """Declared to return Python floats (`-> float`, `-> tuple[float, float]`): a statistic or
    metric of tensors (a graph's assortativity, a group distance ratio), whose reads of tensor
    data are its result; or metrics by name beside what they were computed from (`->
    Tuple[Dict[str, float], Dict[str, Tensor]]`: an evaluation's metrics and images). Not
    `-> int`, which is often a size a step needs (`num_nodes`)."""
    ann = node.returns
    if _generic(ann) in ("tuple", "Tuple"):
        ann = ann.slice
        items = ann.elts if type(ann) is ast.Tuple else [ann]
        return bool(items) and (all(type(i) is ast.Name and i.id == "float" or
                                    type(i) is ast.Constant and i.value is Ellipsis for i in items)
                                or any(_float_dict(i) for i in items))
    return type(ann) is ast.Name and ann.id == "float" or _float_dict(ann)


def _generic(ann) -> str | None:
    """`Tuple` of `Tuple[...]`, `dict` of `dict[...]`; None for anything else."""
    if type(ann) is ast.Subscript and type(ann.value) in (ast.Name, ast.Attribute):
        return ann.value.id if type(ann.value) is ast.Name else ann.value.attr
    return None


def _float_dict(ann) -> bool:
    """`Dict[str, float]`: Python floats by name."""
    return _generic(ann) in ("dict", "Dict") and type(ann.slice) is ast.Tuple and \
        len(ann.slice.elts) == 2 and type(ann.slice.elts[1]) is ast.Name and \
        ann.slice.elts[1].id == "float"


# Annotations that name the data pipeline's objects (a library's own dataset bases included,
# as `COLD_BASE` counts them); not `...Sampler` alone, which models' box samplers are named.
_DATA_TYPE = re.compile(r"^(\w*Dataset|Sampler|BatchSampler|DataLoader|\w*DataModule)$")


def handles_data(node) -> bool:
    """Declared to take or return a dataset, sampler or loader (`def split(dataset: GeoDataset,
    ...) -> list[GeoDataset]`): data preparation, which runs before any step does."""
    args = node.args
    anns = [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    return any(_names_data(a) for a in (*anns, node.returns) if a is not None)


def _names_data(ann) -> bool:
    for n in walk(ann):
        name = n.id if type(n) is ast.Name else n.attr if type(n) is ast.Attribute else \
            n.value if type(n) is ast.Constant and type(n.value) is str else None
        if name is not None and _DATA_TYPE.match(name.rpartition(".")[2]):
            return True
    return False


# torch's random factories: an input a function draws for itself.
_RANDOM_FACTORIES = frozenset({"torch.randn", "torch.rand", "torch.randint", "torch.randperm"})


def self_test(node, qualname) -> bool:
    """A method that runs its own object (`self(x)`) on an input it draws itself in host memory
    (`x = torch.randn(3, c, 10, 10)`: no `device=`, nothing moved with `.to`/`.cuda`) and takes
    no data, only settings with constant defaults (`atol=1e-6, rtol=1e-5`): a self-check or a
    demo (escnn's `check_equivariance`). No step runs it, and nothing it reads comes from a
    caller's data. (A sampler that draws its noise on the model's device is no such test.)"""
    a = node.args
    params = a.posonlyargs + a.args
    if not params or params[0].arg != "self" or a.vararg or a.kwarg or len(a.defaults) != len(params) - 1:
        return False
    if any(type(d) is not ast.Constant for d in (*a.defaults, *a.kw_defaults)):
        return False                # (a keyword-only parameter without a default: None here)
    drawn = runs_self = False
    for n in walk(node):
        if type(n) is ast.keyword and n.arg == "device":
            return False
        if type(n) is ast.Call:
            f = n.func
            if type(f) is ast.Attribute and f.attr in ("to", "cuda"):
                return False
            if type(f) is ast.Name and f.id == "self":
                runs_self = True
            elif type(f) is ast.Attribute and qualname(f) in _RANDOM_FACTORIES:
                drawn = True
    return drawn and runs_self


def cold_reason(f: FunctionInfo, scopes: Scopes) -> str:
    """Why `_assign_roles` made a cold function cold (for `--explain`), in its order."""
    if scopes.test_module is not None:
        return f"its module `{scopes.test_module}` is in a test package"
    if scopes.logging_module is not None:
        return f"its module `{scopes.logging_module}` is a logging module"
    if id(f) in scopes.evaluation:
        return "it switches a module to eval mode and back to training mode (`m.eval()` ... " \
               "`m.train()`): an evaluation between training steps, whoever calls it"
    if id(f) in scopes.reports:
        return "it writes text to a file or stream (`print(..., file=f)`, `f.write(f\"...\")`): " \
               "a report, whoever calls it"
    if id(f) in scopes.files:
        return "it opens a file (`with open(path) as f:`): host I/O, what it reads from tensors " \
               "comes from or goes to disk, whoever calls it"
    if id(f) in scopes.plotting:
        return "it draws a figure (a plotting library): reporting, whoever calls it"
    if id(f) in scopes.memoized:
        return "it is memoized (`functools.lru_cache`/`cache`/`cached_property`, a `joblib.Memory`'s " \
               "`cache`): its body runs " \
               "once per distinct arguments, whoever calls it"
    if f.parent is not None and f.parent.role == Role.COLD:
        return f"it is nested in `{f.parent.qualname}`, which is cold"
    if COLD_FUNC.match(f.name):
        return f"its name `{f.name}` is one of code that runs outside the model " \
               "(construction, initialisation, data, training loop, tests, I/O)"
    if returns_float(f.node):
        return "it is declared to return Python floats: a statistic or metric, its reads are its result"
    if returns_host_numbers(f.node):
        return "every return converts tensor data to Python floats, or to a record of Python " \
               "values (JSON, a report): a statistic, metric or serialisation"
    if returns_text(f.node, scopes.text_calls()):
        return "it is declared to return text (`str`, a list or tuple of `str`) and builds the " \
               "text it returns: what it reads becomes words for a person or a file"
    if returns_host_object(f.node, scopes.qualname):
        return "every return is an object of a host container library (a scipy sparse matrix, " \
               "a graph, a data frame, an image): an export of the data it read"
    if scopes.defer and not ROOT_METHOD.match(f.name) and returns_python_bool(f.node):
        return "every return is a Python bool (a constant, `bool(...)`, `torch.equal`, a " \
               "comparison with a size or a read): a predicate, its reads are its answer"
    if handles_data(f.node):
        return "it is declared to take or return a dataset, sampler or loader: data preparation"
    if f.cls is not None and self_test(f.node, scopes.qualname):
        return "it runs its own object on an input it draws in host memory and takes no data: " \
               "a self-check or demo, no step"
    if id(f) in scopes.host_algorithms:
        return "it keeps a heap, bisects a list in a loop or does symbolic algebra (`heapq`, " \
               "`bisect`, `sympy`): a host algorithm"
    cls = f.cls
    if cls is None or not cls.cold:
        return "only cold code in this file calls it"
    if COLD_CLASS.search(cls.name):
        return f"its class `{cls.name}` is named like code that runs outside the model " \
               "(tests, tokenizers, processors, collate functions, configs)"
    for base in scopes.bases.get(cls.name, ()):
        if COLD_BASE.search(base):
            return f"its class `{cls.name}` derives from `{base}` (data loading, training, tests, " \
                   "a host thread)"
        if base in scopes.classes and scopes.classes[base].cold:
            return f"its class `{cls.name}` derives from `{base}`, which is cold"
    return f"its class `{cls.name}` is cold"


def spread_cold(order: list[FunctionInfo], graph: CallGraph, soft: set,
                 memoized: frozenset | set = frozenset(), steps: set = frozenset()) -> None:
    """A function that only cold code calls is cold (a helper `__init__` calls to build
    buffers runs once, at construction; a segment check only post-processing calls).
    A function nothing in the file calls stays in scope. Nested functions follow their
    parent, except in a memoized one (`memoized`), whose closures may run on every call.
    An evaluation step (`steps`: what an inference loop runs on each batch) stays in scope."""
    callers: dict[int, set[int]] = {}
    by_id = {id(f): f for f in order}
    # (`self.step = self.additive_step` is rare: one look at the module's text first)
    aliasing = METHOD_ALIAS.search("\n".join(graph.lines)) is not None
    for f in order:
        stored = _stored_methods(f, graph.lines) if aliasing and f.cls is not None else ()
        for g in graph.callees(f):
            if g is not f and not (g.name in stored and g.cls is f.cls):
                callers.setdefault(id(g), set()).add(id(f))
    changed = True
    while changed:
        changed = False
        for g in order:
            if g.role != Role.NEUTRAL or id(g) in steps:
                continue
            if g.parent is not None and id(g.parent) not in memoized:
                cold = g.parent.role == Role.COLD
            else:
                ids = callers.get(id(g))
                cold = bool(ids) and all(by_id[c].role == Role.COLD for c in ids)
            if cold:
                g.role = Role.COLD
                soft.add(id(g))
                changed = True


def _stored_methods(f: FunctionInfo, lines: list[str]) -> frozenset:
    """The methods `f` stores under another name of the object (`self.step =
    self.additive_step` in `__init__`): handed on, not called; they run where `self.step(...)`
    is called, so `f` is no caller of theirs."""
    return frozenset(name for _, name, how, node in stores(f.cls, lines)
                     if how == "." and node is f.node)


# Names that say where code runs by what Python or the frameworks call them for (construction,
# weight initialisation, printing, a script's `main`, data plumbing, drawing). Not the weaker
# ones (`log_prob` matches `log_*`, `validate_*`, `run`, `load*`, `fit*`) nor tests: a test
# calling a function is no sign that it is not API.
_COLD_CALLER_NAME = re.compile(
    r"^(__init__|__new__|__post_init__|__setstate__|_?init_weights?|reset_parameters|"
    r"extra_repr|__repr__|__str__|main|parse_args|prepare_data|setup|configure_optimizers|"
    r"collate.*|.*dataset.*|.*dataloader.*|download.*|plot.*|visuali[sz]e.*)$", re.IGNORECASE)


def cold_caller(f: FunctionInfo, scopes: Scopes) -> bool:
    """Whether the cold function `f`, calling a function of another file, makes a cold call
    (reach.cold_called): cold by its code, its class or a name above, not in tests."""
    if scopes.test_module is not None or (f.cls is not None and _TEST_CLASS.search(f.cls.name)) \
            or id(f) in scopes.host_algorithms:
        # (a host algorithm may run on every step: an ODE solver's step-size search)
        return False
    if cold_reason(f, scopes).startswith("its name"):
        # (a sampler's `__iter__`: its name is checked first, its class is cold too)
        return bool(_COLD_CALLER_NAME.match(f.name)) or (f.cls is not None and f.cls.cold) or \
            _evaluation_method(f)
    return True


def _evaluation_method(f: FunctionInfo) -> bool:
    """A method named `test*` that no test runner collects: pytest takes `test*` methods only
    from classes named `Test*` (excluded above) and unittest only from `TestCase`s, so a
    tester's `test(dataset_dict, epoch, trunk, embedder)` is evaluation code, not a test
    exercising the API (pytorch-metric-learning's `BaseTester.test`)."""
    return f.cls is not None and f.parent is None and f.name.lower().startswith("test") and \
        not any(b.rpartition(".")[2].endswith("TestCase") for b in f.cls.bases)


_TEST_CLASS = re.compile(r"^Test|Tests$")
