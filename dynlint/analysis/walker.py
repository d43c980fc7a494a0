"""One walk over a module's `ast`: scopes and light tensor-kind inference.

The walk visits nodes in source order and keeps, per function, an environment of what each
local name holds (see `kinds`). Hooks see nodes with the environment as it stands at that
point, so `x = x[x > 0]` is judged with the `x` from before the assignment. Function roles
(model / cold / neutral) come from the `scopes` pre-pass; bodies whose role no enabled rule
looks at are not walked at all.
"""
from __future__ import annotations

import ast
from contextlib import contextmanager

from . import kinds as K
from . import narrowing, postconditions
from .kinds import BOOL, HOLDS, HOST, NOT, PROBABLE, ROW, SHAPE, TENSOR, UNKNOWN
from .scopes import index_module
from .scopes.info import Scopes
from .annotations import annotation_kind
from .evidence import PANDAS_ONLY
from .infer import KindInference, binop_kind
from .paths import PathJoins, ends, holds_host, stored_names
from .summaries import LocalCalls
from .text import finder
from .roles import Role


class Frame:
    """A function (or the module, a class body, a lambda) and what its names hold."""

    __slots__ = ("name", "qualname", "parent", "cls", "env", "node", "kind", "modelish", "role",
                 "top", "info", "tuples", "entry")

    def __init__(self, name, qualname, parent, cls=None, node=None, kind="function"):
        self.name, self.qualname, self.parent, self.cls = name, qualname, parent, cls
        self.node, self.kind = node, kind
        self.env: dict[str, int] = {}
        self.modelish = False        # unannotated parameters are probably tensors
        self.role = Role.NEUTRAL
        self.top = None              # scopes.FunctionInfo of the enclosing function or method (its `unit`)
        self.info = None             # scopes.FunctionInfo of this function
        self.tuples: dict = {}       # name -> kinds of the items of a tuple it holds
        self.entry: dict = {}        # parameter -> its kind on entry (annotation, callers)

    def lookup(self, name: str) -> int:
        frame = self
        while frame is not None:
            k = frame.env.get(name)
            if k is not None:
                return k
            frame = frame.parent
            while frame is not None and frame.kind == "class":
                frame = frame.parent
        return UNKNOWN


class Analyzer(PathJoins, KindInference):
    """Walks a module once, calling `hooks[type(node)](node)` before a node's children."""

    def __init__(self, hooks=None, position_hooks=None, skip_roles=frozenset()):
        self.hooks: dict = hooks or {}       # node type -> callback, before the children
        # Expressions in a position (`truth_test`: used as a condition; `formatted`: in an
        # f-string) -> callback; `positions` maps a node's id to its position.
        self.position_hooks: dict = position_hooks or {}
        self.skip_roles = skip_roles         # function roles whose bodies need no walk
        self.module_name: str | None = None  # dotted module name, when known (test packages)
        self.defer = False      # collecting for the cross-file step (scopes.index_module)
        # (analyzer) -> ids of the functions and `__main__` guards to walk although their role
        # is skipped: some rule may match inside them (see Engine._walk_anyway).
        self.walk_anyway = None
        self._unskipped = frozenset()
        # Qualified names of the module-level functions and methods to walk (None: all): a
        # walk again with what other files return walks only those that asked (crossfile.py).
        self.only = None
        # A walk again's record of the first walk's roles, and the module's text it was
        # taken from (scopes.reach.roles_record): the pre-pass replays them.
        self.roles, self.text = None, None
        self.scopes = Scopes()
        self.imports = self.scopes.imports
        self.classes = self.scopes.classes
        self.module = Frame("<module>", "<module>", None, kind="module")
        self.frame = self.module
        self.stack: list[ast.AST] = []      # ancestors (names, constants, attributes, keywords are not pushed)
        self.lines: list[str] = []
        self.positions: dict[int, str] = {}
        self.truth_lines: dict[int, tuple[int, int]] = {}   # see `_mark_truth`
        self._kinds: dict[int, int] = {}
        self._tuple_kinds: dict[int, tuple] = {}
        self.calls = LocalCalls(self)

    # -- walking -------------------------------------------------------------------------
    def run(self, tree: ast.AST, lines: list[str]) -> None:
        self.lines = lines
        self.tree = tree                   # for module-wide facts some predicates need
        self.scopes = index_module(tree, lines, module=self.module_name, defer=self.defer,
                                   roles=self.roles, text=self.text)
        self.imports, self.classes = self.scopes.imports, self.scopes.classes
        if self.walk_anyway is not None:
            self._unskipped = self.walk_anyway(self)
        if self.only is not None:
            self.only = self.calls.with_callers(self.only)
        self.visit(tree)
        for _ in range(_REWALKS):          # see summaries.py
            todo = self.calls.to_revisit()
            if not todo:
                break
            self._kinds.clear()
            self._tuple_kinds.clear()
            for info, parent in todo:
                self._walk_function(info, parent)

    def release(self) -> None:
        """Break the reference cycles (hooks, scopes) so that the tree is freed by reference
        counting as soon as the caller drops it, not at the next cyclic collection."""
        self.hooks, self.position_hooks = {}, {}
        self.walk_anyway, self._unskipped = None, frozenset()
        self.stack, self.positions, self.truth_lines = [], {}, {}
        self._kinds, self._tuple_kinds = {}, {}
        self.calls = None
        self.frame = self.module = self.tree = None
        self.scopes.release()
        self.scopes = Scopes()
        self.imports, self.classes = self.scopes.imports, self.scopes.classes

    def visit(self, node: ast.AST) -> None:
        t = type(node)
        self.stack.append(node)
        if t in _TRUTH_PARENTS:
            self._mark_truth(node, t)
        elif t is ast.Call:
            f = node.func
            # Only calls that can reach this file's own functions feed the call summaries.
            # (`Class.static_method(...)` of a class of this file included.)
            # Calls into other files too (imported names, `self.x.m(...)`): their sites.
            if (type(f) is ast.Name and (f.id in self.scopes.module_functions or
                                         f.id in self.imports or f.id in self.scopes.classes)) or \
                    (type(f) is ast.Attribute and
                     ((type(f.value) is ast.Name and
                       (f.value.id == "self" or f.value.id in self.scopes.classes or
                        f.value.id in self.imports)) or
                      (type(f.value) is ast.Attribute and type(f.value.value) is ast.Name and
                       f.value.value.id == "self"))):
                self.calls.note_call(node)
            elif type(f) is ast.Attribute and type(f.value) is ast.Name and \
                    self.calls.from_registry(f.value.id):
                self.calls.note_call(node)      # `solver.integrate(t)`, see registries.py
            elif type(f) is ast.Name and f.id in self.frame.env and \
                    self.calls.holds_instance(f.id, node.lineno):
                self.calls.note_call(node)      # `bm = Interval(...)`, then `bm(t0, t1)`
            elif type(f) is ast.Attribute and type(f.value) is ast.Name and \
                    (self.calls.local_methods(node) or
                     self.calls.holds_instance(f.value.id, node.lineno)):
                self.calls.note_call(node)      # `ctl = Controller(...)`, then `ctl.propose(e)`
        elif t is ast.FormattedValue:
            self.positions[id(node.value)] = "formatted"
        elif t is ast.Compare and len(node.ops) > 1:
            # `t0 < t < t1` is `t0 < t and t < t1`: Python tests every link but the last.
            self.positions.setdefault(id(node), "chained_comparison")
        hook = self.hooks.get(t)
        if hook is not None:
            hook(node)
        # An `and`/`or` chain is never converted as a whole: its operands are, one by one.
        if self.position_hooks and t is not ast.BoolOp:
            position = self.positions.get(id(node))
            if position is not None:
                self._positioned(node)
        special = _SPECIAL.get(t)
        if special is not None:
            special(self, node)
        else:
            self.generic(node)
        self.stack.pop()

    def generic(self, node: ast.AST) -> None:
        # Inlined child handling: names, constants, keywords and attribute chains are most of
        # a tree and need no full visit of their own.
        hooks_at = self.position_hooks
        positions = self.positions if hooks_at else None
        visit = self.visit
        fast_attr = ast.Attribute not in self.hooks
        for field in _FIELDS[type(node)]:
            v = getattr(node, field)
            if type(v) is not list:
                v = (v,)
            for x in v:
                while True:
                    t = type(x)
                    if t is ast.Name:
                        if positions is not None:
                            position = positions.get(id(x))
                            if position is not None and position in hooks_at:
                                hooks_at[position](x)
                    elif t is ast.Attribute and fast_attr:
                        if positions is not None:
                            position = positions.get(id(x))
                            if position is not None and position in hooks_at:
                                hooks_at[position](x)
                        x = x.value
                        continue
                    elif t is ast.keyword:
                        x = x.value
                        continue
                    elif t is not ast.Constant and x is not None:
                        visit(x)
                    break

    def child(self, x) -> None:
        t = type(x)
        if t is ast.Name:
            if self.position_hooks:
                self._positioned(x)
        elif t is not ast.Constant and x is not None:
            self.visit(x)

    def _positioned(self, node) -> None:
        position = self.positions.get(id(node))
        if position is not None:
            hook = self.position_hooks.get(position)
            if hook is not None:
                hook(node)

    def visit_all(self, nodes) -> None:
        for n in nodes:
            self.child(n)

    @property
    def parent(self) -> ast.AST | None:
        return self.stack[-2] if len(self.stack) > 1 else None

    # -- statements that bind names -----------------------------------------------------
    def _import(self, node) -> None:
        # The pre-pass resolved every import; here the bound names only shadow earlier kinds.
        for a in node.names:
            if a.name != "*":
                self.frame.env[(a.asname or a.name).split(".")[0]] = NOT

    def _assign(self, node: ast.Assign) -> None:
        self.child(node.value)
        self.visit_all(node.targets)
        k = self.kind(node.value)
        for target in node.targets:
            self.bind(target, k, node.value)

    def _augassign(self, node: ast.AugAssign) -> None:
        self.child(node.value)
        self.child(node.target)
        self.bind(node.target, binop_kind(self.kind(node.target), self.kind(node.value), node.op))

    def _annassign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.child(node.value)
        self.child(node.target)
        k = annotation_kind(node.annotation)
        if node.value is not None and K.level(k) != TENSOR:
            k = self.kind(node.value)
        self.bind(node.target, k, node.value)

    def _for(self, node) -> None:
        pre = dict(self.frame.env)
        self.child(node.iter)
        self.bind_iteration(node.target, node.iter)
        self.child(node.target)
        self._loop_carried(node.body, node.target, node.lineno)
        self.visit_all(node.body)
        self.visit_all(node.orelse)
        self._host_on_every_path(pre, node.body + node.orelse)


    def _namedexpr(self, node: ast.NamedExpr) -> None:
        self.child(node.value)
        self.bind(node.target, self.kind(node.value), node.value)

    def _with(self, node) -> None:
        for item in node.items:
            self.child(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, UNKNOWN, None)
        self.visit_all(node.body)

    def _comp(self, node) -> None:
        with self.comprehension(node, walk=True):
            if type(node) is ast.DictComp:
                self.child(node.key)
                self.child(node.value)
            else:
                self.child(node.elt)

    @contextmanager
    def comprehension(self, node, walk: bool = False):
        """Inside, a comprehension's targets hold its items; afterwards what they held before
        (Python 3 gives a comprehension its own scope). Kind inference enters one too when
        asked about a comprehension the walk has not reached yet (`sum(float(t) for t in x)`
        is asked about at the call): the items' kinds it keeps are read with the targets
        bound, as the walk will see them."""
        env, tuples = self.frame.env, self.frame.tuples
        saved = {n.id: (env.get(n.id), tuples.get(n.id)) for gen in node.generators
                 for n in ast.walk(gen.target) if type(n) is ast.Name}
        try:
            for gen in node.generators:
                if walk:
                    self.child(gen.iter)
                self.bind_iteration(gen.target, gen.iter)
                if walk:
                    for cond in gen.ifs:
                        self.positions[id(cond)] = "truth_test"
                        if cond.end_lineno != node.lineno:
                            self._truth_lines(cond, node.lineno, node.col_offset)
                        self.child(cond)
            yield
        finally:
            for name, (k, items) in saved.items():
                if k is None:
                    env.pop(name, None)
                else:
                    env[name] = k
                if items is None:
                    tuples.pop(name, None)
                else:
                    tuples[name] = items

    def _if(self, node: ast.If) -> None:
        if id(node) in self.scopes.main_guards:
            self.child(node.test)
            frame = Frame("__main__", "__main__", self.module, kind="main")
            frame.role = Role.COLD
            if Role.COLD not in self.skip_roles or id(node) in self._unskipped:
                self._in_frame(frame, node.body)
            self.visit_all(node.orelse)
        else:
            pre = dict(self.frame.env)
            self.child(node.test)
            self._narrowed_block(narrowing.facts(self, node.test, True), node.body)
            mid = dict(self.frame.env)
            self._else_block(pre, mid, node)
            self._join_tensor_paths(pre, mid, node)
            self._join_optional_paths(pre, mid, node)
            # A name the `else` binds holds, on the other path, what the body left in it; one
            # only the body binds holds what it held before the `if`.
            if holds_host(self.frame.env):
                in_else = stored_names(node.orelse)
                self._host_on_every_path(mid, node.orelse, in_else)
                self._host_on_every_path(pre, node.body, stored_names(node.body) - in_else)
            # `if not isinstance(t, Tensor): raise TypeError(...)`: what follows runs only
            # where the test failed.
            if not node.orelse and ends(node.body):
                self._proved(narrowing.facts(self, node.test, False))

    def _assert(self, node: ast.Assert) -> None:
        """What follows `assert isinstance(t, torch.Tensor), ...` runs only where it held."""
        self.generic(node)
        self._proved(narrowing.facts(self, node.test, True))

    def _expr(self, node: ast.Expr) -> None:
        """A call statement of a checker of this file (`_check_timelike('t', t)`) proves what
        the checker asserts of its arguments (`postconditions`)."""
        self.generic(node)
        call = node.value
        if type(call) is ast.Call and self.calls is not None:
            info = self.calls.callee(call)
            if info is not None:
                self._proved(postconditions.arguments_proved(self, call, info))


    # -- scopes -----------------------------------------------------------------------
    def _function(self, node) -> None:
        self.visit_all(node.decorator_list)
        args = node.args
        self.visit_all([d for d in args.defaults + args.kw_defaults if d is not None])
        self.frame.env[node.name] = NOT
        info = self.scopes.functions[id(node)]
        if info.role in self.skip_roles and id(info) not in self._unskipped:
            return
        self.calls.met(info, self.frame)    # (walked later if its callers teach it something)
        if self.only is not None and info.parent is None and info.qualname not in self.only:
            return
        self._walk_function(info, self.frame)

    def _walk_function(self, info, parent: Frame) -> None:
        node = info.node
        frame = Frame(node.name, info.qualname, parent, cls=info.cls, node=node)
        frame.role, frame.modelish, frame.top, frame.info = info.role, info.modelish, info.unit, info
        self._bind_params(frame, node.args, is_method=info.cls is not None)
        for name, k in self.calls.enter(info, frame.env).items():
            if type(k) is tuple:            # a tuple every caller passes: its items' kinds
                frame.env[name] = K.tuple_kind(k)
                frame.tuples[name] = k
            else:
                frame.env[name] = k
        frame.entry = dict(frame.env)
        # A second walk starts after the module's: its ancestors are just the function.
        revisit = not self.stack or self.stack[-1] is not node
        if revisit:
            outer_stack, self.stack = self.stack, [node]
        self._in_frame(frame, node.body)
        if revisit:
            self.stack = outer_stack
        self.calls.leave(info)

    @property
    def _pandas_here(self) -> bool:
        """The module's text names some pandas-only attribute (cached): else no scan."""
        found = self.__dict__.get("_pandas_text")
        if found is None or found[0] is not self.lines:
            text = "\n".join(self.lines)
            found = self._pandas_text = (self.lines, _PANDAS_DOTTED(text) is not None)
        return found[1]

    def _function_node(self):
        frame = self.frame
        while frame is not None and frame.kind != "function":
            frame = frame.parent
        return frame.node if frame is not None else None

    def _enclosing_class(self):
        frame = self.frame
        while frame is not None and frame.kind != "class":
            if frame.cls is not None and frame.kind == "function":
                return frame.cls
            frame = frame.parent
        return None

    def frame_info(self):
        frame = self.frame
        while frame is not None and frame.info is None:
            frame = frame.parent
        return frame.info if frame is not None else None

    def _return(self, node: ast.Return) -> None:
        if node.value is not None:
            self.child(node.value)
        self.calls.note_return(node.value)

    def _lambda(self, node: ast.Lambda) -> None:
        args = node.args
        self.visit_all([d for d in args.defaults + args.kw_defaults if d is not None])
        frame = Frame("<lambda>", f"{self.frame.qualname}.<lambda>", self.frame, node=node)
        frame.modelish, frame.role, frame.top = self.frame.modelish, self.frame.role, self.frame.top
        self._bind_params(frame, args, is_method=False)
        self._in_frame(frame, [node.body])

    def _class(self, node: ast.ClassDef) -> None:
        self.visit_all(node.decorator_list)
        self.visit_all(node.bases)
        self.visit_all(node.keywords)
        self.frame.env[node.name] = NOT
        qual = node.name if self.frame.kind == "module" else f"{self.frame.qualname}.{node.name}"
        frame = Frame(node.name, qual, self.frame, cls=self.classes.get(node.name), node=node,
                      kind="class")
        frame.role = Role.COLD       # class bodies run once, at import
        self._in_frame(frame, node.body)

    def _in_frame(self, frame: Frame, body) -> None:
        outer, self.frame = self.frame, frame
        self.visit_all(body)
        self.frame = outer

    def _bind_params(self, frame: Frame, args: ast.arguments, is_method: bool) -> None:
        positional = args.posonlyargs + args.args
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        pairs = list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))
        for i, (arg, default) in enumerate(pairs):
            if i == 0 and is_method and arg.arg in ("self", "cls"):
                frame.env[arg.arg] = NOT
                continue
            frame.env[arg.arg] = _param_kind(arg, default, frame.modelish)
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                frame.env[extra.arg] = UNKNOWN

    # -- references, for reachability ----------------------------------------------------
    def _mark_truth(self, node, t) -> None:
        positions = self.positions
        if t is ast.If or t is ast.While or t is ast.IfExp or t is ast.Assert:
            positions[id(node.test)] = "truth_test"
            if node.test.end_lineno != node.lineno:
                self._truth_lines(node.test, node.lineno, node.col_offset)
        elif t is ast.BoolOp:
            values = node.values
            for v in values[:-1]:
                positions[id(v)] = "truth_test"
            if positions.get(id(node)) == "truth_test":
                positions[id(values[-1])] = "truth_test"
        elif type(node.op) is ast.Not:
            positions[id(node.operand)] = "truth_test"

    def _truth_lines(self, test, line: int, col: int) -> None:
        """Where Python reports a condition's host read at run time, for a test spread over
        lines: the jump that reads an operand belongs to the line current when it runs, the
        statement's own (`if`, `elif`, `while`, `assert`; a conditional expression's or a
        comprehension's start),
        or that of the last comparison evaluated before it in the same test; a comparison's
        to its own line (CPython 3.11's line table; what `dynlint confirm`, profilers and
        graph-break logs name). Operands reported elsewhere than they start are kept in
        `truth_lines` (node id -> line, column), for the finding to start there."""
        current = (line, col)
        todo = [test]
        while todo:
            v = todo.pop()
            t = type(v)
            if t is ast.BoolOp:
                todo.extend(reversed(v.values))
            elif t is ast.UnaryOp and type(v.op) is ast.Not:
                todo.append(v.operand)
            elif t is ast.Compare:
                current = (v.lineno, v.col_offset)
            elif v.lineno != current[0]:
                self.truth_lines[id(v)] = current

    def qualname(self, node: ast.AST) -> str | None:
        return self.scopes.qualname(node)

    # -- kinds ------------------------------------------------------------------------
    def bind(self, target: ast.AST, k, value: ast.AST | None = None) -> None:
        """Bind `target` to kind `k`: an int, or the items' kinds of a tuple (nested ones
        too: `(fg, idx), loss = self.assigned(...)`)."""
        t = type(target)
        if type(k) is tuple:
            tuple_kinds, k = k, K.tuple_kind(k)
        else:
            tuple_kinds = self._tuple_kinds.get(id(value)) if value is not None else None
        if tuple_kinds is None and type(value) is ast.Name:
            tuple_kinds = self._items_of(value)
        if t is ast.Name:
            self.frame.env[target.id] = k
            if tuple_kinds is not None:
                self.frame.tuples[target.id] = tuple_kinds
            else:
                self.frame.tuples.pop(target.id, None)
        elif t is ast.Attribute:
            if type(target.value) is ast.Name:
                self.frame.env[target.value.id + "." + target.attr] = k
        elif t is ast.Subscript:
            self._store_item(target, k)
        elif t is ast.Tuple or t is ast.List:
            elts = target.elts
            if type(value) in (ast.Tuple, ast.List) and len(value.elts) == len(elts):
                for e, v in zip(elts, value.elts):
                    self.bind(e, self.kind(v), v)
            elif tuple_kinds is not None and len(tuple_kinds) == len(elts):
                for e, item in zip(elts, tuple_kinds):
                    self.bind(e, item, None)
            elif type(value) in (ast.ListComp, ast.GeneratorExp):
                # `a, b = (torch.cat(...) for ...)`: every item is what the element gives
                # (the comprehension's targets are bound by now).
                item = self.kind(value.elt)
                for e in elts:
                    self.bind(e, UNKNOWN if type(e) is ast.Starred else item, None)
            else:
                item = _unpacked(k)
                for e in elts:
                    self.bind(e, UNKNOWN if type(e) is ast.Starred else item, None)

    def _store_item(self, target: ast.Subscript, k: int) -> None:
        """`shape[-2:] = size[0]`, `dims[i] = n.max()`: a Python list or dict (not a tensor,
        not numpy, not host values) that a tensor is written into holds one from then on, as
        if built with it (`HOLDS`): `torch.Size(shape)` reads its items back to the host. It
        is no longer a pure shape either."""
        name = target.value
        if type(name) is not ast.Name or type(k) is not int or \
                K.level(k) != TENSOR or k & HOST:
            return
        env = self.frame.env
        now = env.get(name.id)
        if now is None or K.level(now) != NOT or now & (HOST | K.ARRAY | HOLDS | K.ITEMS):
            return
        env[name.id] = (now & ~SHAPE) | HOLDS

    def bind_iteration(self, target: ast.AST, it: ast.AST) -> None:
        """Bind a loop target; `enumerate` and `zip` (nested too) are unpacked item by item."""
        if type(it) is ast.Call and type(it.func) is ast.Name and type(target) in (ast.Tuple, ast.List) \
                and it.func.id in ("zip", "enumerate") and it.args:
            if it.func.id == "enumerate" and len(target.elts) == 2:
                self.bind(target.elts[0], NOT, None)
                self.bind_iteration(target.elts[1], it.args[0])
                return
            if it.func.id == "zip" and len(target.elts) == len(it.args):
                for e, a in zip(target.elts, it.args):
                    self.bind_iteration(e, a)
                return
        if type(target) is ast.Name and type(it) is ast.Call and type(it.func) is ast.Name \
                and it.func.id in ("zip", "enumerate"):
            # A tuple; its items are kept for a later unpacking (`m, b = item`) or `item[0]`.
            items = self._iteration_items(it)
            self.bind(target, NOT | (HOLDS if items and any(
                type(i) is int and K.level(i) == TENSOR for i in items) else 0), None)
            if items is not None:
                self.frame.tuples[target.id] = items
            return
        item = self._iteration_item(it)
        self.bind(target, item if type(item) is int else UNKNOWN, None)

    def _iteration_item(self, it: ast.AST):
        """What one iteration over `it` yields: a kind, or for `zip`/`enumerate` a tuple of
        the items' kinds (None where unknown)."""
        if type(it) is ast.Call and type(it.func) is ast.Name and it.func.id in ("zip", "enumerate"):
            return self._iteration_items(it)
        if type(it) is ast.Call and type(it.func) is ast.Name and it.func.id == "range" and \
                not self._rebound("range"):
            return NOT                  # Python ints (`lens[i]` of a 1-d `lens` is 0-d: rank.py)
        k = self.kind(it)
        item = _unpacked(k)
        # A tensor's rows are tensors one dimension down (a 1-d tensor's are 0-d); a
        # sequence's items are whole tensors.
        if K.level(item) == TENSOR and not k & K.SEQ:
            return item | (K.SCALAR if k & K.VEC and not k & K.CPU else ROW)
        return item

    def _rebound(self, name: str) -> bool:
        frame = self.frame
        while frame is not None:
            if name in frame.env:
                return True
            frame = frame.parent
        return False

    def _iteration_items(self, it: ast.Call):
        if it.keywords or any(type(a) is ast.Starred for a in it.args) or not it.args:
            return None
        if it.func.id == "enumerate":
            if len(it.args) != 1:
                return None
            inner = self._iteration_item(it.args[0])
            return None if type(inner) is not int else (NOT, inner)
        items = tuple(self._iteration_item(a) for a in it.args)
        # Nested tuples are not kept item by item: they count as unknown.
        return tuple(i if type(i) is int else UNKNOWN for i in items)

# Walks again of the functions that learnt something (summaries.py): three, for a chain
# `step` -> `step_plms` -> `_get_prev_sample` each passing on the 0-d tensor it was told of.
_REWALKS = 3

# How the walk handles the nodes that bind names or open scopes (plain functions, not bound
# methods kept on each Analyzer: those would make every analyzer a reference cycle, freed
# only by the cyclic garbage collector).
_SPECIAL = {
    ast.FunctionDef: Analyzer._function, ast.AsyncFunctionDef: Analyzer._function,
    ast.Lambda: Analyzer._lambda, ast.ClassDef: Analyzer._class,
    ast.Assign: Analyzer._assign, ast.AugAssign: Analyzer._augassign,
    ast.AnnAssign: Analyzer._annassign, ast.For: Analyzer._for, ast.AsyncFor: Analyzer._for,
    ast.NamedExpr: Analyzer._namedexpr, ast.With: Analyzer._with, ast.AsyncWith: Analyzer._with,
    ast.ListComp: Analyzer._comp, ast.SetComp: Analyzer._comp, ast.GeneratorExp: Analyzer._comp,
    ast.DictComp: Analyzer._comp, ast.If: Analyzer._if, ast.Import: Analyzer._import,
    ast.ImportFrom: Analyzer._import, ast.Return: Analyzer._return,
    ast.While: Analyzer._while, ast.Try: Analyzer._branching, ast.BoolOp: Analyzer._boolop,
    ast.Assert: Analyzer._assert, ast.Expr: Analyzer._expr,
}
if hasattr(ast, "TryStar"):
    _SPECIAL[ast.TryStar] = Analyzer._branching
_PANDAS_DOTTED = finder(frozenset("." + w for w in PANDAS_ONLY))
_TRUTH_PARENTS = frozenset({ast.If, ast.While, ast.IfExp, ast.Assert, ast.BoolOp, ast.UnaryOp})
# Child fields worth walking: operators, contexts and plain strings or numbers are not.
# Fields that hold identifiers, flags or operators rather than child nodes (`kwd_attrs` and
# `rest` are the identifiers of class and mapping patterns in `match`).
_NOT_NODES = frozenset({"ctx", "op", "ops", "type_comment", "kind", "arg", "attr", "id", "name",
                        "names", "module", "asname", "conversion", "level", "is_async",
                        "simple", "tag", "kwd_attrs", "rest"})
_FIELDS = {
    cls: tuple(f for f in cls._fields if f not in _NOT_NODES)
    for cls in (getattr(ast, n) for n in dir(ast))
    if isinstance(cls, type) and issubclass(cls, ast.AST)
}
_FIELDS[ast.Constant] = ()
_FIELDS[ast.MatchSingleton] = ()


def _unpacked(k: int) -> int:
    """Kind of the items when a value of kind `k` is unpacked or iterated."""
    if k & SHAPE:
        return NOT
    if k & HOST:
        return NOT | HOST
    if k & K.ARRAY:
        return NOT | K.ARRAY            # rows of a numpy array are numpy arrays
    if k & K.ITEMS and k & K.SEQ:
        return TENSOR                   # the items of `feats: List[Tensor]`, as `feats[0]` is
    lv = K.level(k)
    return lv | (k & (BOOL | K.CPU)) if lv >= PROBABLE else UNKNOWN


def _param_kind(arg: ast.arg, default: ast.AST | None, modelish: bool) -> int:
    # A literal default other than None beats a claimed Tensor annotation (`x: Tensor = False`).
    if default is not None and type(default) is ast.Constant and default.value is not None:
        return NOT
    items = 0
    if arg.annotation is not None:
        k = annotation_kind(arg.annotation)
        if k & K.ITEMS:
            items = k & (K.ITEMS | K.SEQ)   # `List[Tensor]`: its items; the value itself as unannotated
        elif k != UNKNOWN:
            return k
    if default is not None:
        if type(default) is ast.Constant and default.value is None:
            return UNKNOWN | items
        return (NOT if type(default) in (ast.Constant, ast.Tuple, ast.List, ast.Dict,
                                         ast.UnaryOp) else UNKNOWN) | items
    return (PROBABLE if modelish else UNKNOWN) | items
