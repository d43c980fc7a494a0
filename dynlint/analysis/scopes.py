"""A cheap pre-pass over a module's statements: imports, classes, functions and their roles.

Roles say where a function runs (docs/architecture.md has the full statement):

* model   - roots (`forward` and friends, autograd Functions, Lightning step methods,
            loss/scorer classes, compiled functions, loops that drive a model:
            `steploops.py`, and the methods that run such a loop of their own class),
            what they reach in this file, and functions nested in those; and training
            steps: a function that runs `.backward()` through a loss it computed (its
            minibatch loop only, not followed to callees: `steploops.step_spans`);
* cold    - `__init__`, weight init, training/eval loops, data code, tests, logging, class
            bodies, `if __name__ == "__main__"`, modules of a test package,
            and what only cold code calls;
* neutral - library code: in scope, reached by nothing in the file (in an example package:
            in scope only when the cross-file step finds model code reaching it).

Roles are computed before the expression walk so that rules limited to model code cost
nothing elsewhere and cold bodies can be skipped. References are read from each function's
text with a regex, which is much cheaper than walking its expressions; a name mentioned only
in a comment may over-approximate reachability, which errs on the side of recall.
"""
from __future__ import annotations

import ast
import sys
import re

from .reporting import draws, imports_plotting, returns_host_numbers
from .steploops import calls_held, drives_model, step_spans, trains
from .roles import Role

_COLD_FUNC = re.compile(
    r"^(__init__|__new__|__repr__|__str__|__len__|__getitem__|__iter__|__setstate__|"
    r"__getstate__|__post_init__|_?init_weights?|_?initiali[sz]e.*|reset_parameters|"
    r"reset|extra_repr|train(_.*|ing_step.*)?|fit.*|evaluat.*|eval_.*|validat.*|test_.*|"
    r"main|run|log(_.*)?|collate.*|prepare_data|setup|teardown|.*dataset.*|.*dataloader.*|"
    r"preprocess.*|load.*|save.*|from_pretrained|plot.*|visuali[sz]e.*|print.*|summari[sz]e.*|on_.*|"
    r"configure_optimizers|parse_args|download.*|benchmark.*|profile.*|post_?process.*)$",
    re.IGNORECASE,
)
# Classes whose methods never run inside a model: by name for preprocessing and tests, and
# by base class for data loading (datasets, samplers, loader transforms) and training infrastructure (a class merely *named*
# "...Sampler" may well be called from forward, like torchvision's box samplers). Any base named
# `...Dataset` counts: a library's own dataset bases (`InMemoryDataset`, `TensorDataset`,
# `HFDataset`) derive from torch's in files the pre-pass does not read.
_COLD_CLASS = re.compile(
    r"^Test|Tests$|Tokenizer|FeatureExtractor$|ImageProcessor|Collat(e|or)|"
    r"^(?!.*(Attn|Attention)).*Processor(Fast)?$|Config$|Args$|Arguments$",
)
_COLD_BASE = re.compile(
    r"(^|\.)(\w*Dataset|Sampler|BatchSampler|DataLoader|TestCase|\w*Transform|"
    r"LightningDataModule|DataModule|Trainer|TrainerCallback|Callback|PretrainedConfig)$"
)
_MODULE_BASE = re.compile(
    r"(^|\.)(Module|Sequential|ModuleList|ModuleDict)$|(Model|Module|Layer|Block|Net|Network|"
    r"Loss|Attention|Encoder|Decoder|Head|MLP|Embeddings?|Backbone|Transformer|Criterion|"
    r"Pooler|Neck|Stem|Conv\dd|Norm)$"
)
# Packages (or modules) of test code, by the dotted module name (as ruff and pytest tell tests
# by their place): `pyro.distributions.testing.gof`, `torch.testing._internal`. Nothing there
# runs in a user's step.
_TEST_PARTS = frozenset({"test", "tests", "testing", "conftest"})
# Logging modules (`stable_baselines3.common.logger`, `lightning.pytorch.loggers.csv_logs`):
# what they read from a tensor is what they were handed to record, after the step.
_LOGGING_PARTS = frozenset({"logger", "loggers", "logging"})
# Example packages (`pyro.contrib.examples.polyphonic_data_loader`, fairseq's `examples.*`)
# hold models people train, so their model code stays model code; but they are no library:
# no one's step calls a helper of theirs that their own model code does not reach (those are
# data preparation and scripts), so such helpers are reported only when model code of the
# project reaches them (the cross-file step), as host reads in neutral code are elsewhere.
_EXAMPLE_PARTS = frozenset({"examples"})
_ROOT_METHOD = re.compile(r"^(forward|_forward.*|forward_.*|__call__)$")
# Module-level functions that implement a forward pass (`eager_attention_forward`).
_ROOT_FUNCTION = re.compile(r"(^|_)forward($|_)")
_COMPILE_DECORATORS = frozenset({
    "torch.jit.script", "torch.jit.script_method", "torch.compile", "torch.fx.wrap",
    "torch.jit.trace", "torch.compiler.allow_in_graph",
})
# Lightning's step methods (of a LightningModule) run inside the step, although their names
# say "train"/"test"; a trainer's own `training_step` (backward, optimizer) does not.
_STEP_METHOD = re.compile(r"^(training|validation|test|predict)_step$")
# `__call__` of a plain class named as a loss or a scorer runs inside the step.
_LOSS_CLASS = re.compile(r"Loss|Criterion|Scorer")
# `torch.compile(fn)`, `torch.jit.script(self.fn)`: the callee and the first argument's name.
_COMPILE_CALL = re.compile(r"([A-Za-z_][\w.]*)\s*\(\s*(?:self\.)?([A-Za-z_]\w*)\s*[,)]")
# `self.loss_fn = FocalLoss(...)`: the attribute and the class it holds an instance of.
_HELD_INSTANCE = re.compile(r"self\.(\w+)\s*(?::[^=\n]*)?=\s*([A-Za-z_]\w*)\s*\(")
_TOKEN_TABLE = {i: " " for i in range(128) if not (chr(i).isalnum() or chr(i) in "_.")}
_SUPER_ATTR = re.compile(r"super\(\)\s*\.\s*([A-Za-z_]\w*)")


class ClassInfo:
    __slots__ = ("name", "is_module", "cold", "methods", "autograd", "bases")

    def __init__(self, name, is_module, cold, autograd=False, bases=()):
        self.name, self.is_module, self.cold = name, is_module, cold
        self.autograd = autograd        # a torch.autograd.Function: forward and backward run in the step
        self.methods: dict[str, list[FunctionInfo]] = {}
        self.bases = bases              # base names, their first part resolved by the imports


class FunctionInfo:
    __slots__ = ("name", "qualname", "cls", "parent", "node", "role", "modelish", "top", "_refs",
                 "_members", "drives", "steps", "unit")

    def __init__(self, name, qualname, cls, parent, node):
        self.name, self.qualname, self.cls, self.parent, self.node = name, qualname, cls, parent, node
        self.role = Role.NEUTRAL
        self.modelish = False
        # The module-level function this one is (or is nested in); None inside classes.
        self.top = self if parent is None and cls is None else (parent.top if parent else None)
        # The outermost function holding this one (a module-level function or a method): what
        # the cross-file step reaches and reports by its qualname (`f`, `Class.method`).
        self.unit = self if parent is None else parent.unit
        self._refs = None
        self._members = None
        self.drives = False     # one of its loops feeds a model's outputs into the next step
        # Where it runs a training step of its own (`steploops.step_spans`): model code there
        # only, whatever its name; empty for other functions.
        self.steps = ()

    def members(self, lines) -> set:
        """Attribute names read after the first part of a dotted name (`x.apply`, `self.dec.update`
        give `apply`, `update`; `self.m` gives nothing): methods that may be called on an
        object held in a variable or attribute."""
        if self._members is None:
            self.refs(lines)
        return self._members

    def refs(self, lines):
        """(names, self_attrs, dotted) mentioned in this function's text, read once."""
        if self._refs is None:
            node = self.node
            text = "\n".join(lines[node.lineno - 1:node.end_lineno])
            # `a.b.c` and plain names as tokens: str.translate + split is twice as fast as a
            # regex here, and this is the pre-pass's hottest line.
            names, attrs, pairs, members = set(), set(), set(), set()
            for tok in set(text.translate(_TOKEN_TABLE).split()):
                if "." in tok:
                    parts = tok.split(".")
                    names.update(parts)
                    if len(parts) > 1 and parts[1]:
                        pairs.add((parts[0], parts[1]))
                        if parts[0] == "self" or parts[0] == "cls":
                            attrs.add(parts[1])
                            members.update(parts[2:])
                        else:
                            members.update(parts[1:])
                else:
                    names.add(tok)
            if "super()" in text:
                attrs.update(_SUPER_ATTR.findall(text))
            self._refs = (names, attrs, pairs)
            self._members = members
        return self._refs


class Scopes:
    """What the pre-pass learns about one module."""

    def __init__(self):
        self.imports: dict[str, str] = {}
        self.classes: dict[str, ClassInfo] = {}
        self.functions: dict[int, FunctionInfo] = {}     # by id() of the def node
        self.main_guards: set[int] = set()
        self.order: list[FunctionInfo] = []                 # definition order
        self.module_functions: dict[str, list[FunctionInfo]] = {}
        # Only for `--explain` (index_module(..., explain=True)): id(function) -> the model
        # function whose reference reached it; the roots; each class's base names.
        self.why: dict[int, FunctionInfo] | None = None
        self.roots: set[int] = set()
        self.bases: dict[str, list[str]] = {}
        self.test_module: str | None = None     # the module's name when it is test code
        self.logging_module: str | None = None  # the module's name when it is a logging module
        self.example_module: str | None = None  # the module's name when it is example code
        self.host_algorithms: set[int] = set()    # ids of functions cold as host algorithms
        self.plotting: set[int] = set()           # ids of functions that draw figures (`reporting.py`)
        # ids of functions cold only for want of a caller that is not cold (and those `-> float`):
        # being called from cold code is no evidence, so another file's model code reaching
        # them (a base class's `forward` calling an overridden hook) makes them model code.
        self.soft_cold: set[int] = set()

    def release(self) -> None:
        """Break the reference cycles (functions <-> classes <-> nested functions) so that the
        tree is freed by reference counting, not at the next cyclic collection."""
        for info in self.order:
            info.node = info.parent = info.top = info.unit = info.cls = info._refs = None
        for cls in self.classes.values():
            cls.methods = {}

    def qualname(self, node: ast.AST) -> str | None:
        """Dotted name of a Name/Attribute chain with its first part resolved by imports."""
        parts = []
        while type(node) is ast.Attribute:
            parts.append(node.attr)
            node = node.value
        if type(node) is not ast.Name:
            return None
        parts.append(self.imports.get(node.id, node.id))
        return ".".join(reversed(parts))


def is_test_module(module: str | None) -> bool:
    """Whether a dotted module name lies in a test package (or is one)."""
    return bool(module) and not _TEST_PARTS.isdisjoint(module.split("."))


def is_logging_module(module: str | None) -> bool:
    """Whether a dotted module name lies in a logging package (or is a logging module)."""
    return bool(module) and not _LOGGING_PARTS.isdisjoint(module.split("."))


def is_example_module(module: str | None) -> bool:
    """Whether a dotted module name lies in an example package (or is one)."""
    return bool(module) and not _EXAMPLE_PARTS.isdisjoint(module.split("."))


def index_module(tree: ast.Module, lines: list[str], explain: bool = False,
                 module: str | None = None) -> Scopes:
    """The pre-pass over one module; `module` (its dotted name, when known) tells test
    packages, whose code is all cold, and example packages (no library: see _EXAMPLE_PARTS)."""
    scopes = Scopes()
    if explain:
        scopes.why = {}
    if is_test_module(module):
        scopes.test_module = module
    elif is_logging_module(module):
        scopes.logging_module = module
    elif is_example_module(module):
        scopes.example_module = module
    order: list[FunctionInfo] = []
    _scan(tree.body, scopes, order, None, None, "", True)
    _assign_roles(scopes, order, lines)
    scopes.order = order
    for f in order:
        if f.parent is None and f.cls is None:
            scopes.module_functions.setdefault(f.name, []).append(f)
    return scopes


# -- across files ----------------------------------------------------------------------------
def resolve_import(target: str, module: str, is_package: bool) -> str:
    """Absolute dotted name of an import target; relative ones are resolved against `module`."""
    if not target.startswith("."):
        return target
    level = len(target) - len(target.lstrip("."))
    package = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        package = package[:len(package) - (level - 1)]
    rest = target[level:]
    return ".".join([*package, rest] if rest else package)


def _stored(name: str, text: str) -> bool:
    """Whether `name` occurs in `text` as a whole word not followed by `(` (the regex
    `\\bname\\b(?!\\s*\\()`, without compiling one regex per name and file)."""
    end = len(text)
    i = text.find(name)
    while i >= 0:
        j = i + len(name)
        if (i == 0 or not _is_word(text[i - 1])) and (j == end or not _is_word(text[j])):
            while j < end and text[j].isspace():
                j += 1
            if j == end or text[j] != "(":
                return True
        i = text.find(name, i + 1)
    return False


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"         # what `\w` matches in a str regex


def cross_file_facts(scopes: Scopes, lines: list[str], module: str, is_package: bool):
    """What other files need to follow calls into and out of this one.

    Returns (exports, model_refs): for each module-level function, whether it is model code
    here and the absolute names it references; and the absolute names referenced from this
    file's model code. Names are read from function text, like in-file reachability.
    """
    aliases = {a: resolve_import(t, module, is_package) for a, t in scopes.imports.items()}
    local = {f.name for f in scopes.order if f.cls is None and f.parent is None}
    if not aliases and not local:
        return {}, frozenset()
    wanted = frozenset(aliases) | local

    def refs_of(f):
        names, _, pairs = f.refs(lines)
        out = set()
        for name in wanted.intersection(names):
            if name in aliases:
                out.add(aliases[name])
            if name in local:
                out.add(module + "." + name)
        for name, attr in pairs:
            if name in aliases:
                out.add(aliases[name] + "." + attr)
        return out

    exports = {}
    # Module-level code (registries such as {"sdpa": sdpa_mask}, class-level tables) counts
    # as a function "<module>": once model code uses the module, what it names is reachable.
    pieces, next_line = [], 1
    for start, end in sorted((f.node.lineno, f.node.end_lineno) for f in scopes.order
                             if f.parent is None):
        pieces += lines[next_line - 1:start - 1]
        next_line = max(next_line, end + 1)
    pieces += lines[next_line - 1:]
    outside = "\n".join(pieces)
    module_refs = set()
    # Only names stored (registries), not names called at import time (`_check_version()`).
    for name in local:
        if name in outside and _stored(name, outside):
            module_refs.add(module + "." + name)
    if module_refs:
        exports["<module>"] = (False, frozenset(module_refs))
    model_refs: set[str] = set()
    stored: dict[int, set] = {}
    soft = scopes.soft_cold
    for f in scopes.order:
        unit = f.parent is None         # a module-level function or a method
        if f.steps:         # a training step is an end: what it calls is no model code for it
            if unit:
                exports[f.qualname] = (True, frozenset())
        elif f.role == Role.MODEL and (f.parent is None or f.parent.role != Role.MODEL):
            refs = refs_of(f) | _self_refs(f, lines, module, stored)
            model_refs |= refs
            if unit:
                exports[f.qualname] = (True, frozenset(refs))
        elif unit and (f.role == Role.NEUTRAL or id(f) in soft):
            exports[f.qualname] = (False, frozenset(refs_of(f) | _self_refs(f, lines, module, stored)))
    return exports, frozenset(model_refs)


# `self.x = ...` / `self.x: T = ...`: an attribute the class stores, no method it calls.
_STORED_ATTR = re.compile(r"self\.(\w+)\s*(?::[^=\n]*)?=(?!=)")


def _self_refs(f: FunctionInfo, lines: list[str], module: str, stored: dict) -> set:
    """`module.Class.m` for each `self.m` a method names that its class does not store: the
    cross-file step follows it to `m` of the class, of its bases, and to the overrides of `m`
    in subclasses in other files (crossfile.Hierarchy)."""
    cls = f.cls
    if cls is None or f.parent is not None:
        return set()
    attrs = f.refs(lines)[1]
    if not attrs:
        return set()
    held = stored.get(id(cls))
    if held is None:
        held = stored[id(cls)] = {a for ms in cls.methods.values() for m in ms for a in
                                  _STORED_ATTR.findall("\n".join(lines[m.node.lineno - 1:m.node.end_lineno]))}
    owner = f"{module}.{f.qualname.rpartition('.')[0]}"
    return {f"{owner}.{a}" for a in attrs if a not in held and not a.startswith("__")}


def class_facts(scopes: Scopes, module: str, is_package: bool):
    """(classes, aliases) for method lookups across files (project/index.py): each class
    deriving from a class of another module, with its absolute bases and the names of its
    methods; and, for a package's `__init__`, what it re-exports (name -> absolute name)."""
    classes = {}
    for name, cls in scopes.classes.items():
        bases = [f"{module}.{b}" if b in scopes.classes else resolve_import(b, module, is_package)
                 for b in cls.bases if b and not b.startswith(_NOT_PROJECT) and b != "object"]
        if bases:
            classes[name] = [bases, sorted(cls.methods)]
    aliases = {}
    if is_package:
        aliases = {a: resolve_import(t, module, is_package) for a, t in scopes.imports.items()
                   if not t.startswith(_NOT_PROJECT)}
    return classes, aliases


_NOT_PROJECT = ("torch.", "typing.", "abc.", "enum.", "collections.", "numpy.", "dataclasses.")


def project_imports(scopes: Scopes, module: str, is_package: bool) -> list:
    """The absolute names the module imports (the libraries it surely uses left out): which
    files may call into which (crossfile.settle gathers parameters' call sites by them)."""
    return sorted({resolve_import(t, module, is_package) for t in scopes.imports.values()
                   if not (t + ".").startswith(_NOT_PROJECT) and
                   t.partition(".")[0] not in _STDLIB})


_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


# Statements that hold no import, definition or block: most of a module, skipped at once.
_LEAF_STATEMENTS = frozenset({ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return,
                              ast.Raise, ast.Assert, ast.Pass, ast.Break, ast.Continue,
                              ast.Delete, ast.Global, ast.Nonlocal})


def _scan(body, scopes: Scopes, order, func, cls, prefix, top) -> None:
    for node in body:
        t = type(node)
        if t in _LEAF_STATEMENTS:
            continue
        if t is ast.Import:
            for a in node.names:
                if a.asname:
                    scopes.imports[a.asname] = a.name
                else:
                    top_name = a.name.split(".")[0]
                    scopes.imports[top_name] = top_name
        elif t is ast.ImportFrom:
            base = "." * node.level + (node.module or "")
            for a in node.names:
                if a.name != "*":
                    sep = "" if base.endswith(".") else "."
                    scopes.imports[a.asname or a.name] = base + sep + a.name
        elif t is ast.ClassDef:
            bases = [scopes.qualname(b) or "" for b in node.bases]
            if scopes.why is not None:
                scopes.bases[node.name] = bases
            known = scopes.classes
            is_module = any(_MODULE_BASE.search(b) or (b in known and known[b].is_module)
                            for b in bases)
            # A name says "preprocessing" only for classes that are not modules: an
            # `nn.Module` named `...Tokenizer` has a forward that runs in the step.
            cold = (not is_module and bool(_COLD_CLASS.search(node.name))) or any(
                _COLD_BASE.search(b) or (b in known and known[b].cold) for b in bases)
            autograd = any(b.endswith("autograd.Function") or b.endswith("autograd.function.Function")
                           for b in bases)
            info = ClassInfo(node.name, is_module, cold, autograd, bases)
            known[node.name] = info
            _scan(node.body, scopes, order, func, info, prefix + node.name + ".", False)
        elif t is ast.FunctionDef or t is ast.AsyncFunctionDef:
            info = FunctionInfo(node.name, prefix + node.name, cls, func, node)
            scopes.functions[id(node)] = info
            order.append(info)
            if cls is not None:
                cls.methods.setdefault(node.name, []).append(info)
            _scan(node.body, scopes, order, info, None, prefix + node.name + ".", False)
        elif t is ast.If:
            if top and _is_main_guard(node.test):
                scopes.main_guards.add(id(node))
            _scan(node.body, scopes, order, func, cls, prefix, top)
            _scan(node.orelse, scopes, order, func, cls, prefix, top)
        elif t in (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith):
            _scan(node.body, scopes, order, func, cls, prefix, top)
            _scan(getattr(node, "orelse", ()), scopes, order, func, cls, prefix, top)
        elif t is ast.Try or t.__name__ == "TryStar":
            _scan(node.body, scopes, order, func, cls, prefix, top)
            for h in node.handlers:
                _scan(h.body, scopes, order, func, cls, prefix, top)
            _scan(node.orelse, scopes, order, func, cls, prefix, top)
            _scan(node.finalbody, scopes, order, func, cls, prefix, top)


def _assign_roles(scopes: Scopes, order: list[FunctionInfo], lines: list[str]) -> None:
    """Model code is what model roots reach; cold code is cold by nature or reached only from
    cold code; the rest is neutral ("library": in scope for shape rules, not for host reads)."""
    if scopes.test_module is not None or scopes.logging_module is not None:
        for f in order:
            f.role = Role.COLD
        return
    graph = _CallGraph(scopes, order, lines)
    compiled = _compiled_by_call(scopes, lines)
    model: set[int] = set()
    todo = [f for f in order if _is_root(f, scopes, compiled, graph)]
    todo += [f for f in order if _wraps_driver(f, graph)]
    # Drawing a figure is reporting whoever calls it: model reachability stops there (a root
    # that also draws, a `forward` with a debug plot, stays a root).
    plotting = scopes.plotting
    if imports_plotting(scopes.imports):
        roots = {id(f) for f in todo}
        plotting.update(id(f) for f in order
                        if id(f) not in roots and draws(f.refs(lines)[0], scopes.imports))
    why = scopes.why                # None unless explaining: then record predecessors
    if why is not None:
        scopes.roots = {id(f) for f in todo}
    while todo:
        f = todo.pop()
        if id(f) in model or id(f) in plotting:
            continue
        model.add(id(f))
        start = len(todo)
        todo.extend(graph.callees(f))
        if why is not None:
            for g in todo[start:]:
                if id(g) not in model and id(g) not in scopes.roots:
                    why.setdefault(id(g), f)
    # Most modules import neither heapq nor bisect: then no function's names need a look.
    host_imports = any(q in _HOST_ALGORITHMS or q.rpartition(".")[0] in _HOST_ALGORITHMS
                       for q in scopes.imports.values())
    for f in order:                 # parents come before their nested functions
        parent_role = f.parent.role if f.parent is not None else Role.NEUTRAL
        if id(f) in plotting:
            f.role = Role.COLD
        elif id(f) in model or parent_role == Role.MODEL:
            f.role = Role.MODEL
        elif parent_role == Role.COLD or _COLD_FUNC.match(f.name) or (f.cls is not None and f.cls.cold):
            f.role = Role.COLD
            if f.parent is not None and id(f.parent) in scopes.soft_cold:
                scopes.soft_cold.add(id(f))
        elif _returns_float(f.node) or returns_host_numbers(f.node):   # reachability from another file wins
            f.role = Role.COLD
            scopes.soft_cold.add(id(f))
        elif host_imports and _host_algorithm(f, scopes, lines):
            f.role = Role.COLD
            scopes.host_algorithms.add(id(f))
    _spread_cold(order, graph, scopes.soft_cold)
    if scopes.example_module is None:       # example scripts stay cold unless model code reaches them
        _mark_steps(order, lines)
    for f in order:
        f.modelish = f.role == Role.MODEL or bool(
            _ROOT_METHOD.match(f.name) or "loss" in f.name.lower()
            or (f.cls is not None and f.cls.is_module and not _COLD_FUNC.match(f.name)))


def _mark_steps(order: list[FunctionInfo], lines: list[str]) -> None:
    """A function that runs a backward pass through a loss it computed is the training step
    (stable-baselines3's `train()`, a Trainer's `training_step`), whatever its name: its code
    inside the step's span is model code. Marked after the cold spread, so that helpers only
    it calls keep their role, and not followed to callees (a driver that only calls a step
    function stays as it is; the step's callees are reached from the model, or are not)."""
    for f in order:
        if f.role == Role.MODEL or "backward" not in f.refs(lines)[0]:
            continue
        spans = step_spans(f.node)
        if spans:
            f.steps = tuple(spans)
            f.role = Role.MODEL


def in_step_span(f: FunctionInfo, node) -> bool:
    """Whether `node` of a step function (`FunctionInfo.steps`) lies in one of its steps."""
    at = (node.lineno, node.col_offset)
    return any(start <= at <= end for start, end in f.steps)


# Modules whose data structures live on the host only: a function that keeps a heap or
# bisects a sorted list runs a host algorithm (greedy clustering, scheduling, search), which
# no device step contains.
_HOST_ALGORITHMS = frozenset({"heapq", "bisect"})


def _host_algorithm(f: FunctionInfo, scopes: Scopes, lines) -> bool:
    """Whether the function calls `heapq`/`bisect` (by module or by a name imported from it)."""
    imports = scopes.imports
    if not imports:
        return False
    names, _, pairs = f.refs(lines)
    for name, attr in pairs:
        if imports.get(name) in _HOST_ALGORITHMS:
            return True
    return any(imports.get(n, "").rpartition(".")[0] in _HOST_ALGORITHMS for n in names if n in imports)


def _returns_float(node) -> bool:
    """Declared to return Python floats (`-> float`, `-> tuple[float, float]`): a statistic or
    metric of tensors (a graph's assortativity, a group distance ratio), whose reads of tensor
    data are its result. Not `-> int`, which is often a size a step needs (`num_nodes`)."""
    ann = node.returns
    if type(ann) is ast.Subscript and type(ann.value) in (ast.Name, ast.Attribute) and \
            (ann.value.id if type(ann.value) is ast.Name else ann.value.attr) in ("tuple", "Tuple"):
        ann = ann.slice
        items = ann.elts if type(ann) is ast.Tuple else [ann]
        return bool(items) and all(type(i) is ast.Name and i.id == "float" or
                                   type(i) is ast.Constant and i.value is Ellipsis for i in items)
    return type(ann) is ast.Name and ann.id == "float"


def cold_reason(f: FunctionInfo, scopes: Scopes) -> str:
    """Why `_assign_roles` made a cold function cold (for `--explain`), in its order."""
    if scopes.test_module is not None:
        return f"its module `{scopes.test_module}` is in a test package"
    if scopes.logging_module is not None:
        return f"its module `{scopes.logging_module}` is a logging module"
    if id(f) in scopes.plotting:
        return "it draws a figure (a plotting library): reporting, whoever calls it"
    if f.parent is not None and f.parent.role == Role.COLD:
        return f"it is nested in `{f.parent.qualname}`, which is cold"
    if _COLD_FUNC.match(f.name):
        return f"its name `{f.name}` is one of code that runs outside the model " \
               "(construction, initialisation, data, training loop, tests, I/O)"
    if _returns_float(f.node):
        return "it is declared to return Python floats: a statistic or metric, its reads are its result"
    if returns_host_numbers(f.node):
        return "every return converts tensor data to Python floats: a statistic or metric"
    if id(f) in scopes.host_algorithms:
        return "it keeps a heap or bisects a list (`heapq`, `bisect`): a host algorithm"
    cls = f.cls
    if cls is None or not cls.cold:
        return "only cold code in this file calls it"
    if _COLD_CLASS.search(cls.name):
        return f"its class `{cls.name}` is named like code that runs outside the model " \
               "(tests, tokenizers, processors, collate functions, configs)"
    for base in scopes.bases.get(cls.name, ()):
        if _COLD_BASE.search(base):
            return f"its class `{cls.name}` derives from `{base}` (data loading, training, tests)"
        if base in scopes.classes and scopes.classes[base].cold:
            return f"its class `{cls.name}` derives from `{base}`, which is cold"
    return f"its class `{cls.name}` is cold"


def _spread_cold(order: list[FunctionInfo], graph: _CallGraph, soft: set) -> None:
    """A function that only cold code calls is cold (a helper `__init__` calls to build
    buffers runs once, at construction; a segment check only post-processing calls).
    A function nothing in the file calls stays in scope. Nested functions follow their
    parent."""
    callers: dict[int, set[int]] = {}
    by_id = {id(f): f for f in order}
    for f in order:
        for g in graph.callees(f):
            if g is not f:
                callers.setdefault(id(g), set()).add(id(f))
    changed = True
    while changed:
        changed = False
        for g in order:
            if g.role != Role.NEUTRAL:
                continue
            if g.parent is not None:
                cold = g.parent.role == Role.COLD
            else:
                ids = callers.get(id(g))
                cold = bool(ids) and all(by_id[c].role == Role.COLD for c in ids)
            if cold:
                g.role = Role.COLD
                soft.add(id(g))
                changed = True


class _CallGraph:
    """Who may call whom inside one module, read from function text: `self.m(...)` reaches
    the class's own `m` (or any class's `m`), a module function's name reaches it, `x.m` or
    `self.x.m` reaches any class's method `m`, and `self.x` where some method stores
    `self.x = C(...)` reaches `C.__call__` and `C.forward` (a loss or scorer held by a model).
    `x.m` does not reach methods that are cold by their name or class (an image processor's
    `post_process`, a tokenizer's `decode`): reaching those takes an explicit `self.m`."""

    def __init__(self, scopes: Scopes, order: list[FunctionInfo], lines: list[str]):
        self.lines = lines
        self.module_funcs: dict[str, list[FunctionInfo]] = {}
        self.methods: dict[str, list[FunctionInfo]] = {}
        for f in order:
            if f.parent is None and f.cls is None:
                self.module_funcs.setdefault(f.name, []).append(f)
            if f.cls is not None:
                self.methods.setdefault(f.name, []).append(f)
        self.names = frozenset(self.module_funcs)
        self.held: dict[str, list[FunctionInfo]] = {}   # attribute -> __call__/forward it holds
        classes = scopes.classes
        if self.methods and "self." in "".join(lines):
            for attr, cls in _HELD_INSTANCE.findall("\n".join(lines)):
                info = classes.get(cls)
                if info is not None:
                    for name in ("__call__", "forward"):
                        self.held.setdefault(attr, []).extend(info.methods.get(name, ()))
        self._holds: dict[tuple, bool] = {}
        self._callees: dict[int, list[FunctionInfo]] = {}
        # Subclasses in this file, by base name: `self.m(...)` in a base's method runs the
        # overrides of `m` as well (a template method: `forward` calling `self.update()`).
        self.children: dict[str, list[ClassInfo]] = {}
        for cls in classes.values():
            for base in cls.bases:
                if base in classes and base != cls.name:
                    self.children.setdefault(base, []).append(cls)
        self._below: dict[str, list[ClassInfo]] = {}

    def descendants(self, cls: ClassInfo) -> list[ClassInfo]:
        out = self._below.get(cls.name)
        if out is None:
            out, seen, todo = [], {cls.name}, [cls.name]
            while todo:
                for child in self.children.get(todo.pop(), ()):
                    if child.name not in seen:
                        seen.add(child.name)
                        out.append(child)
                        todo.append(child.name)
            self._below[cls.name] = out
        return out

    def callees(self, f: FunctionInfo) -> list[FunctionInfo]:
        out = self._callees.get(id(f))
        if out is not None:
            return out
        out = []
        names_here, attrs, _ = f.refs(self.lines)
        methods = self.methods
        below = self.descendants(f.cls) if f.cls is not None and self.children else ()
        for attr in attrs:
            own = f.cls.methods.get(attr) if f.cls is not None else None
            out.extend(own if own is not None else methods.get(attr, ()))
            out.extend(self.held.get(attr, ()))
            if own is not None:
                for sub in below:
                    out.extend(sub.methods.get(attr, ()))
        if methods:         # `x.m` may be any class's `m`, but not cold code by its own nature
            for member in f.members(self.lines):
                if not member.startswith("__"):
                    out.extend(g for g in methods.get(member, ())
                               if not g.cls.cold and not _COLD_FUNC.match(g.name))
        if self.names:
            for name in self.names.intersection(names_here):
                out.extend(self.module_funcs[name])
        self._callees[id(f)] = out
        return out

    def method_holds(self, cls: ClassInfo, name: str) -> bool:
        """Whether a method `name` of `cls` itself calls something it holds."""
        key = (id(cls), name)
        found = self._holds.get(key)
        if found is None:
            found = self._holds[key] = any(calls_held(m.node, cls.methods)
                                           for m in cls.methods.get(name, ()))
        return found


def _compiled_by_call(scopes: Scopes, lines: list[str]) -> frozenset:
    """Names of functions passed to `torch.compile(fn)` / `torch.jit.script(fn)` by call."""
    out = set()
    text = "\n".join(lines)
    if "compile(" not in text and "script(" not in text and "trace(" not in text:
        return frozenset()
    for line in lines:
        if "compile(" in line or "script(" in line or "trace(" in line:
            for callee, arg in _COMPILE_CALL.findall(line):
                first, _, rest = callee.partition(".")
                full = scopes.imports.get(first, first) + ("." + rest if rest else "")
                if full in _COMPILE_DECORATORS:
                    out.add(arg)
    return frozenset(out)


def _is_root(f: FunctionInfo, scopes: Scopes, compiled=frozenset(), graph=None) -> bool:
    cls = f.cls
    if cls is not None and cls.cold:
        return False
    if _decorated(f, scopes, _COMPILE_DECORATORS):
        return True
    if f.name in compiled and (f.parent is None or cls is not None):
        return True
    if cls is not None:
        if (_STEP_METHOD.match(f.name) and cls.is_module) or (cls.autograd and f.name in ("forward", "backward")):
            return True
        if _ROOT_METHOD.match(f.name) and (
                f.name == "forward" or cls.is_module or _LOSS_CLASS.search(cls.name)):
            return True
    elif f.parent is None and _ROOT_FUNCTION.search(f.name):
        return True
    if _COLD_FUNC.match(f.name):
        return False
    if graph is None:
        return False
    own = cls.methods if cls is not None else {}
    f.drives = drives_model(f.node, own, lambda name: graph.method_holds(cls, name))
    return f.drives


def _wraps_driver(f: FunctionInfo, graph: _CallGraph) -> bool:
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
    return not trains(f.node)


def _decorated(f: FunctionInfo, scopes: Scopes, names: frozenset) -> bool:
    return any(scopes.qualname(d.func if type(d) is ast.Call else d) in names
               for d in f.node.decorator_list)


def _is_main_guard(test: ast.AST) -> bool:
    return (type(test) is ast.Compare and type(test.left) is ast.Name
            and test.left.id == "__name__" and len(test.comparators) == 1
            and type(test.comparators[0]) is ast.Constant
            and test.comparators[0].value == "__main__")
