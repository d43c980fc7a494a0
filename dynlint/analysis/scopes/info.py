"""What the pre-pass records: a class (`ClassInfo`), a function (`FunctionInfo`, with the
names its text refers to) and a module (`Scopes`)."""
from __future__ import annotations

import ast
import re

from ..reporting import text_functions
from ..roles import Role


# str.translate table: every ASCII character but letters, digits, `_` and `.` to a space (the
# dotted names of a text, split on whitespace).
TOKEN_TABLE = {i: " " for i in range(128) if not (chr(i).isalnum() or chr(i) in "_.")}
_SUPER_ATTR = re.compile(r"super\(\)\s*\.\s*([A-Za-z_]\w*)")


class ClassInfo:
    __slots__ = ("name", "is_module", "cold", "methods", "autograd", "bases", "module_state",
                 "deferred", "held_text")

    def __init__(self, name, is_module, cold, autograd=False, bases=(), module_state=None):
        self.name, self.is_module, self.cold = name, is_module, cold
        self.autograd = autograd        # a torch.autograd.Function: forward and backward run in the step
        self.methods: dict[str, list[FunctionInfo]] = {}
        self.bases = bases              # base names, their first part resolved by the imports
        # True: an nn.Module (by a base of this file or torch's); False: known not to be one
        # (every base is of this file and no module, or a builtin/stdlib class); None: it
        # depends on a base defined elsewhere (another file of the project, or unknown).
        self.module_state = module_state
        # Entry points left to the cross-file step (collecting, module_state None): method
        # qualname -> whether it is one when the base stays unknown (`forward`, as before)
        # or only when a base in another file is an nn.Module (`__call__`, `forward_*`...).
        self.deferred: dict[str, bool] = {}
        self.held_text = None           # what its methods store in attributes (scopes/held.py)


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
            for tok in set(text.translate(TOKEN_TABLE).split()):
                if "." in tok:
                    parts = tok.split(".")
                    names.update(parts)
                    if len(parts) > 1 and parts[1]:
                        pairs.add((parts[0], parts[1]))
                        if len(parts) > 2 and parts[2] and parts[0] != "self":
                            # (`torch_geometric.backend.use_segment_matmul_heuristic(...)`: a
                            # function named through its package and module)
                            pairs.add((parts[0], parts[1] + "." + parts[2]))
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
        self.reports: set[int] = set()            # ids of functions that write text reports (`reporting.py`)
        self.files: set[int] = set()              # ids of functions that open a file (`reporting.opens_file`)
        self.evaluation: set[int] = set()         # ids of those switching a module to eval and back
        self.memoized: set[int] = set()           # ids of memoized functions (`functools.lru_cache`, `joblib.Memory.cache`)
        self.eval_steps: set[int] = set()         # ids of evaluation steps (`evalsteps.py`)
        # ids of functions cold only for want of a caller that is not cold (and those `-> float`):
        # being called from cold code is no evidence, so another file's model code reaching
        # them (a base class's `forward` calling an overridden hook) makes them model code.
        self.soft_cold: set[int] = set()
        self._text_calls: frozenset | None = None
        # Collecting for the cross-file step: entry points that depend on whether a base
        # class of another file is an nn.Module are left to it (ClassInfo.deferred).
        self.defer = False
        self.deferred: list[FunctionInfo] = []      # those that are `forward`
        self.deferred_reach: set[int] = set()       # ids of what they reach in the file
        self._children: dict[str, list[ClassInfo]] | None = None    # (subclasses)
        self._below: dict[str, list[ClassInfo]] = {}

    def subclasses(self, cls: ClassInfo) -> list[ClassInfo]:
        """The classes of this module below `cls` at any depth, each once (bases named as in
        the module): `self.m(...)` in a base's method runs their overrides of `m` as well (a
        template method: `forward` calling `self.update()`). Asked once the pre-pass is done."""
        if self._children is None:
            self._children = {}
            for c in self.classes.values():
                for base in c.bases:
                    if base in self.classes and base != c.name:
                        self._children.setdefault(base, []).append(c)
        out = self._below.get(cls.name)
        if out is None:
            out, seen, todo = [], {cls.name}, [cls.name]
            while todo:
                for child in self._children.get(todo.pop(), ()):
                    if child.name not in seen:
                        seen.add(child.name)
                        out.append(child)
                        todo.append(child.name)
            self._below[cls.name] = out
        return out

    def text_calls(self) -> frozenset:
        """Names of the module's functions that return text they build (`reporting.
        text_functions`), once per module: a call of one is text."""
        if self._text_calls is None:
            self._text_calls = text_functions(
                (f.name, f.node) for f in self.functions.values() if f.parent is None and f.cls is None)
        return self._text_calls

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
