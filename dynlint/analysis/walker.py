"""One walk over a module's `ast`: scopes and light tensor-kind inference.

The walk visits nodes in source order and keeps, per function, an environment of what each
local name holds (see `kinds`). Hooks see nodes with the environment as it stands at that
point, so `x = x[x > 0]` is judged with the `x` from before the assignment. Function roles
(model / cold / neutral) come from the `scopes` pre-pass; bodies whose role no enabled rule
looks at are not walked at all.
"""
from __future__ import annotations

import ast
import builtins

from . import kinds as K
from .kinds import BOOL, HOLDS, HOST, NOT, PROBABLE, ROW, SCALAR, SHAPE, TENSOR, UNKNOWN
from .scopes import Scopes, index_module
from .annotations import annotation_kind
from .attributes import attribute_kind
from .evidence import PANDAS_ONLY, array_by_evidence
from .summaries import LocalCalls
from .tensor_api import TENSOR_NAMES
from .roles import Role

_BUILTINS = frozenset(dir(builtins))


class Frame:
    """A function (or the module, a class body, a lambda) and what its names hold."""

    __slots__ = ("name", "qualname", "parent", "cls", "env", "node", "kind", "modelish", "role",
                 "top", "info", "tuples")

    def __init__(self, name, qualname, parent, cls=None, node=None, kind="function"):
        self.name, self.qualname, self.parent, self.cls = name, qualname, parent, cls
        self.node, self.kind = node, kind
        self.env: dict[str, int] = {}
        self.modelish = False        # unannotated parameters are probably tensors
        self.role = Role.NEUTRAL
        self.top = None              # scopes.FunctionInfo of the enclosing module-level function
        self.info = None             # scopes.FunctionInfo of this function
        self.tuples: dict = {}       # name -> kinds of the items of a tuple it holds

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


class Analyzer:
    """Walks a module once, calling `hooks[type(node)](node)` before a node's children."""

    def __init__(self, hooks=None, position_hooks=None, skip_roles=frozenset()):
        self.hooks: dict = hooks or {}       # node type -> callback, before the children
        # Expressions in a position (`truth_test`: used as a condition; `formatted`: in an
        # f-string) -> callback; `positions` maps a node's id to its position.
        self.position_hooks: dict = position_hooks or {}
        self.skip_roles = skip_roles         # function roles whose bodies need no walk
        # (analyzer) -> ids of the functions and `__main__` guards to walk although their role
        # is skipped: some rule may match inside them (see Engine._walk_anyway).
        self.walk_anyway = None
        self._unskipped = frozenset()
        self.scopes = Scopes()
        self.imports = self.scopes.imports
        self.classes = self.scopes.classes
        self.module = Frame("<module>", "<module>", None, kind="module")
        self.frame = self.module
        self.stack: list[ast.AST] = []      # ancestors (names, constants, attributes, keywords are not pushed)
        self.lines: list[str] = []
        self.positions: dict[int, str] = {}
        self._kinds: dict[int, int] = {}
        self._tuple_kinds: dict[int, tuple] = {}
        self.calls = LocalCalls(self)
        self._special = {
            ast.FunctionDef: self._function, ast.AsyncFunctionDef: self._function,
            ast.Lambda: self._lambda, ast.ClassDef: self._class,
            ast.Assign: self._assign, ast.AugAssign: self._augassign,
            ast.AnnAssign: self._annassign, ast.For: self._for, ast.AsyncFor: self._for,
            ast.NamedExpr: self._namedexpr, ast.With: self._with, ast.AsyncWith: self._with,
            ast.ListComp: self._comp, ast.SetComp: self._comp, ast.GeneratorExp: self._comp,
            ast.DictComp: self._comp, ast.If: self._if, ast.Import: self._import,
            ast.ImportFrom: self._import, ast.Return: self._return,
        }

    # -- walking -------------------------------------------------------------------------
    def run(self, tree: ast.AST, lines: list[str]) -> None:
        self.lines = lines
        self.tree = tree                   # for module-wide facts some predicates need
        self.scopes = index_module(tree, lines)
        self.imports, self.classes = self.scopes.imports, self.scopes.classes
        if self.walk_anyway is not None:
            self._unskipped = self.walk_anyway(self)
        self.visit(tree)
        for _ in range(2):                 # see summaries.py
            todo = self.calls.to_revisit()
            if not todo:
                break
            self._kinds.clear()
            self._tuple_kinds.clear()
            for info in todo:
                self._walk_function(info, self.calls.parents[id(info)])

    def release(self) -> None:
        """Break the reference cycles (hooks, scopes) so that the tree is freed by reference
        counting as soon as the caller drops it, not at the next cyclic collection."""
        self.hooks, self.position_hooks = {}, {}
        self.walk_anyway, self._unskipped = None, frozenset()
        self.stack, self.positions = [], {}
        self._kinds, self._tuple_kinds = {}, {}
        self.calls = None
        self.frame = self.module = self.tree = None
        self.scopes.release()
        self.scopes = Scopes()

    def visit(self, node: ast.AST) -> None:
        t = type(node)
        self.stack.append(node)
        if t in _TRUTH_PARENTS:
            self._mark_truth(node, t)
        elif t is ast.Call:
            f = node.func
            # Only calls that can reach this file's own functions feed the call summaries.
            # (`Class.static_method(...)` of a class of this file included.)
            if (type(f) is ast.Name and f.id in self.scopes.module_functions) or \
                    (type(f) is ast.Attribute and type(f.value) is ast.Name and
                     (f.value.id == "self" or f.value.id in self.scopes.classes)):
                self.calls.note_call(node)
        elif t is ast.FormattedValue:
            self.positions[id(node.value)] = "formatted"
        hook = self.hooks.get(t)
        if hook is not None:
            hook(node)
        # An `and`/`or` chain is never converted as a whole: its operands are, one by one.
        if self.position_hooks and t is not ast.BoolOp:
            position = self.positions.get(id(node))
            if position is not None:
                self._positioned(node)
        special = self._special.get(t)
        if special is not None:
            special(node)
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
        self.bind(node.target, _binop(self.kind(node.target), self.kind(node.value), node.op))

    def _annassign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.child(node.value)
        self.child(node.target)
        k = annotation_kind(node.annotation)
        if node.value is not None and K.level(k) != TENSOR:
            k = self.kind(node.value)
        self.bind(node.target, k, node.value)

    def _for(self, node) -> None:
        self.child(node.iter)
        self.bind_iteration(node.target, node.iter)
        self.child(node.target)
        self.visit_all(node.body)
        self.visit_all(node.orelse)

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
        for gen in node.generators:
            self.child(gen.iter)
            self.bind_iteration(gen.target, gen.iter)
            for cond in gen.ifs:
                self.positions[id(cond)] = "truth_test"
                self.child(cond)
        if type(node) is ast.DictComp:
            self.child(node.key)
            self.child(node.value)
        else:
            self.child(node.elt)

    def _if(self, node: ast.If) -> None:
        if id(node) in self.scopes.main_guards:
            self.child(node.test)
            frame = Frame("__main__", "__main__", self.module, kind="main")
            frame.role = Role.COLD
            if Role.COLD not in self.skip_roles or id(node) in self._unskipped:
                self._in_frame(frame, node.body)
            self.visit_all(node.orelse)
        else:
            self.generic(node)

    # -- scopes -----------------------------------------------------------------------
    def _function(self, node) -> None:
        self.visit_all(node.decorator_list)
        args = node.args
        self.visit_all([d for d in args.defaults + args.kw_defaults if d is not None])
        self.frame.env[node.name] = NOT
        info = self.scopes.functions[id(node)]
        if info.role in self.skip_roles and id(info) not in self._unskipped:
            return
        self.calls.parents[id(info)] = self.frame
        self._walk_function(info, self.frame)

    def _walk_function(self, info, parent: Frame) -> None:
        node = info.node
        frame = Frame(node.name, info.qualname, parent, cls=info.cls, node=node)
        frame.role, frame.modelish, frame.top, frame.info = info.role, info.modelish, info.top, info
        self._bind_params(frame, node.args, is_method=info.cls is not None)
        self.calls.params[id(info)] = dict(frame.env)
        self.calls.infos[id(info)] = info
        for name, k in self.calls.overrides.get(id(info), {}).items():
            if type(k) is tuple:            # a tuple every caller passes: its items' kinds
                frame.env[name] = NOT | (HOLDS if any(K.level(i) == TENSOR for i in k) else 0)
                frame.tuples[name] = k
            else:
                frame.env[name] = k
        self.calls.returns[id(info)] = []
        # A second walk starts after the module's: its ancestors are just the function.
        revisit = not self.stack or self.stack[-1] is not node
        if revisit:
            outer_stack, self.stack = self.stack, [node]
        self._in_frame(frame, node.body)
        if revisit:
            self.stack = outer_stack
        self.calls.done.add(id(info))

    @property
    def _pandas_here(self) -> bool:
        """The module's text names some pandas-only attribute (cached): else no scan."""
        found = self.__dict__.get("_pandas_text")
        if found is None or found[0] is not self.lines:
            text = "\n".join(self.lines)
            found = self._pandas_text = (self.lines, any("." + w in text for w in PANDAS_ONLY))
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
        elif t is ast.BoolOp:
            values = node.values
            for v in values[:-1]:
                positions[id(v)] = "truth_test"
            if positions.get(id(node)) == "truth_test":
                positions[id(values[-1])] = "truth_test"
        elif type(node.op) is ast.Not:
            positions[id(node.operand)] = "truth_test"

    def qualname(self, node: ast.AST) -> str | None:
        return self.scopes.qualname(node)

    # -- kinds ------------------------------------------------------------------------
    def bind(self, target: ast.AST, k: int, value: ast.AST | None = None) -> None:
        t = type(target)
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
            self.bind(target, NOT, None)          # a tuple
            return
        item = _unpacked(self.kind(it))
        self.bind(target, item | ROW if K.level(item) == TENSOR else item, None)

    def kind(self, node: ast.AST) -> int:
        key = id(node)
        k = self._kinds.get(key)
        if k is None:
            k = self._kinds[key] = self._infer(node)
        return k

    def _infer(self, node: ast.AST) -> int:
        t = type(node)
        if t is ast.Name:
            k = self.frame.lookup(node.id)
            # Builtins (`tuple`, `len`, `str`) are not tensors unless rebound.
            if k == UNKNOWN and node.id in _BUILTINS:
                return NOT
            if K.level(k) in (UNKNOWN, PROBABLE) and self._pandas_here and \
                    array_by_evidence(self, node.id, self._function_node()):
                return NOT | K.ARRAY            # `df.iloc[...]` in the same function
            return k
        if t is ast.Constant or t is ast.JoinedStr or t is ast.Lambda:
            return NOT
        if t is ast.Call:
            return self._call_kind(node)
        if t is ast.Attribute:
            return self._attr_kind(node)
        if t is ast.Subscript:
            items = self._items_of(node.value)
            if items is not None and type(node.slice) is ast.Constant and \
                    type(node.slice.value) is int and -len(items) <= node.slice.value < len(items):
                return items[node.slice.value]
            base = self.kind(node.value)
            lv = K.level(base)
            if base & SHAPE:
                return NOT
            if base & (HOST | K.ARRAY):
                return NOT | (base & (HOST | K.ARRAY))
            if base & ROW and type(node.slice) is ast.Constant and type(node.slice.value) is int:
                return (base & ~ROW) | SCALAR
            if lv >= PROBABLE:
                return base & ~(SHAPE | HOLDS)
            return UNKNOWN
        if t is ast.Compare:
            ops = node.ops
            if all(type(o) in (ast.Is, ast.IsNot) for o in ops):
                return NOT
            if any(type(o) in (ast.In, ast.NotIn) for o in ops):
                host = any(K.level(self.kind(c)) == TENSOR for c in node.comparators)
                return NOT | (HOST if host else 0)
            operands = [node.left, *node.comparators]
            if any(type(o) in (ast.List, ast.Tuple) and
                   any(K.level(self.kind(e)) == TENSOR for e in o.elts) for o in operands):
                # [a, b] == [c, t] compares item by item and reads each answer on the host.
                return TENSOR | BOOL
            if any(_is_non_numeric_literal(o) for o in operands):
                return NOT
            lv = max(K.level(self.kind(o)) for o in operands)
            if lv == NOT:
                host = any(self.kind(o) & HOST for o in operands)
                return NOT | (HOST if host else 0)
            return lv | BOOL
        if t is ast.BinOp:
            return _binop(self.kind(node.left), self.kind(node.right), node.op)
        if t is ast.UnaryOp:
            if type(node.op) is ast.Not:
                return NOT
            return self.kind(node.operand) & ~SHAPE
        if t is ast.BoolOp:
            return max(K.level(self.kind(v)) for v in node.values)
        if t is ast.IfExp:
            a, b = self.kind(node.body), self.kind(node.orelse)
            return max(K.level(a), K.level(b)) | (a & b & BOOL)
        if t is ast.NamedExpr:
            return self.kind(node.value)
        if t is ast.List or t is ast.Tuple:
            return NOT | (HOLDS if any(K.level(self.kind(e)) == TENSOR for e in node.elts) else 0)
        if t in (ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp):
            return NOT
        return UNKNOWN

    def _items_of(self, node: ast.AST):
        """Kinds of the items of a tuple returned by one of this file's functions, if known."""
        if type(node) is ast.Name:
            frame = self.frame
            while frame is not None:
                if node.id in frame.env:
                    return frame.tuples.get(node.id)
                frame = frame.parent
            return None
        if type(node) is ast.Call:
            self.kind(node)
            return self._tuple_kinds.get(id(node))
        return None

    def _local_result(self, node: ast.Call):
        r = self.calls.result(node)
        if type(r) is tuple:
            self._tuple_kinds[id(node)] = r
            return NOT
        return r

    def _attr_kind(self, node: ast.Attribute) -> int:
        base_node = node.value
        if type(base_node) is ast.Name:
            if base_node.id in ("self", "cls"):
                if node.attr == "training":
                    return NOT
                k = self.frame.lookup("self." + node.attr)
                if k == UNKNOWN and base_node.id == "self":
                    cls = self._enclosing_class()
                    if cls is not None:
                        return attribute_kind(self, cls, node.attr)
                return k
            if base_node.id in self.imports or base_node.id in self.classes:
                # A module or class attribute: torch.float32, np.pi, Config.size.
                return NOT if (self.qualname(node) or "").startswith("torch.") else UNKNOWN
        attr = node.attr
        if attr == "shape":
            return NOT | SHAPE
        if attr in ("dtype", "device", "ndim", "is_cuda", "requires_grad", "is_leaf", "layout"):
            return NOT
        base = self.kind(base_node)
        lv = K.level(base)
        if base & K.ARRAY:
            return NOT | K.ARRAY
        if attr in K.TENSOR_ATTRS and lv >= PROBABLE:
            return TENSOR | (base & BOOL if attr not in ("grad",) else 0)
        if lv == TENSOR:
            return NOT
        if lv == PROBABLE:
            return PROBABLE
        return UNKNOWN

    def _call_kind(self, node: ast.Call) -> int:
        func = node.func
        if type(func) is ast.Attribute:
            q = self.qualname(func)
            if q is not None and q.startswith("torch."):
                return self._torch_call_kind(q[6:], node)
            if q is not None and q.startswith(K.ARRAY_LIBRARIES):
                return NOT | K.ARRAY
            if type(func.value) is ast.Name and func.value.id in ("self",) and \
                    ("self." + func.attr) not in self.frame.env:
                r = self._local_result(node)
                if r is not None:
                    return r
                return PROBABLE if self.frame.modelish else UNKNOWN
            if type(func.value) is ast.Name and func.value.id in self.classes:
                r = self._local_result(node)         # Class.static_method(...) of this file
                if r is not None:
                    return r
            return self._method_kind(func.attr, self.kind(func.value), node)
        if type(func) is ast.Name:
            q = self.imports.get(func.id)
            if q is not None:
                if q.startswith("torch."):
                    return self._torch_call_kind(q[6:], node)
                return NOT | K.ARRAY if q.startswith(K.ARRAY_LIBRARIES) else UNKNOWN
            name = func.id
            if name in K.HOST_CONVERTERS:
                arg = self.kind(node.args[0]) if node.args else NOT
                return NOT | (HOST if (K.level(arg) >= PROBABLE or arg & HOST) else 0)
            if name in K.NOT_TENSOR_BUILTINS:
                return NOT
            if name in K.SCALAR_BUILTINS:
                ks = [self.kind(a) for a in node.args]
                if any(k & HOST for k in ks):
                    return NOT | HOST
                return max((K.level(k) for k in ks), default=NOT) if ks else NOT
            if name in self.classes:
                return NOT
            r = self._local_result(node)
            if r is not None:
                return r
        return UNKNOWN

    def _torch_call_kind(self, name: str, node: ast.Call) -> int:
        if "." in name:
            for prefix, lv in _SUBMODULES_BY_LENGTH:
                if name.startswith(prefix + "."):
                    if lv == TENSOR:
                        return TENSOR | self._dtype_flag(name.rsplit(".", 1)[1], node)
                    return lv
            if name.startswith("Tensor."):
                return self._method_kind(name[7:], TENSOR, node)
            return UNKNOWN
        if name in K.TORCH_HOST:
            return NOT | HOST
        if name in K.TORCH_NOT_TENSOR or name.startswith(("is_", "are_", "get_", "set_", "use_", "_")):
            return NOT
        if name == "BoolTensor":
            return TENSOR | BOOL
        if name[:1].isupper() and not name.endswith("Tensor"):
            return NOT
        return TENSOR | self._dtype_flag(name, node)

    def _dtype_flag(self, name: str, node: ast.Call) -> int:
        for kw in node.keywords:
            if kw.arg == "dtype":
                return BOOL if self._is_bool_dtype(kw.value) else 0
        if name in K.BOOL_FUNCS:
            return BOOL
        if name == "where":        # where(c) gives indices; where(c, a, b) the dtype of a, b
            args = node.args
            return BOOL if len(args) == 3 and self.kind(args[1]) & self.kind(args[2]) & BOOL else 0
        if name in K.DTYPE_PRESERVING or name.endswith("_like") and name != "full_like":
            first = node.args[0] if node.args else None
            if type(first) in (ast.List, ast.Tuple) and first.elts:
                first = first.elts[0]
            if first is not None and self.kind(first) & BOOL:
                return BOOL
        return 0

    def _is_bool_dtype(self, node: ast.AST) -> bool:
        q = self.qualname(node) if type(node) in (ast.Name, ast.Attribute) else None
        return q in K.BOOL_DTYPE_NAMES

    def _method_kind(self, name: str, base: int, node: ast.Call) -> int:
        lv = K.level(base)
        if base & HOST:
            return NOT | HOST if name in K.HOST_METHODS or lv == NOT else UNKNOWN
        if base & K.ARRAY or name in K.STR_METHODS or _str_split(name, node):
            return NOT | (base & K.ARRAY)      # numpy/pandas results; text
        if lv == NOT:
            return UNKNOWN
        if lv == UNKNOWN:
            # Methods only tensors have are evidence that the receiver is one.
            if name in K.NOT_TENSOR_METHODS:
                return NOT
            if name in K.TENSOR_ONLY_METHODS:
                return TENSOR | (BOOL if name in K.BOOL_FUNCS or name == "bool" else 0)
            if name in K.HOST_METHODS:
                return NOT | HOST
            return UNKNOWN
        if name not in TENSOR_NAMES:
            # Not a tensor method: the receiver is some other object (a ModelOutput, a cache,
            # a dict), whatever its annotation claims.
            return PROBABLE if lv == PROBABLE else UNKNOWN
        if name in K.HOST_METHODS:
            return NOT | HOST
        if name in K.NOT_TENSOR_METHODS:
            return NOT | (SHAPE if name == "size" and not node.args else 0)
        if name in K.BOOL_FUNCS or name == "bool":
            return TENSOR | BOOL
        if name in ("to", "type"):
            args = list(node.args) + [k.value for k in node.keywords if k.arg == "dtype"]
            if any(self._is_bool_dtype(a) for a in args):
                return TENSOR | BOOL
            if name == "type" and not args:
                return NOT
            dtype_given = any(type(a) in (ast.Attribute, ast.Name) and
                              (self.qualname(a) or "").startswith("torch.") and
                              not (self.qualname(a) or "").startswith("torch.device")
                              for a in args)
            return TENSOR | (0 if dtype_given else base & BOOL)
        if name in K.DTYPE_PRESERVING:
            return TENSOR | (base & BOOL)
        return TENSOR


# ---------------------------------------------------------------------------------------
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
_SUBMODULES_BY_LENGTH = sorted(K.TORCH_SUBMODULES.items(), key=lambda kv: -len(kv[0]))


def _binop(a: int, b: int, op: ast.operator) -> int:
    la, lb = K.level(a), K.level(b)
    lv = max(la, lb)
    if (a | b) & SCALAR and min(la, lb) == NOT:
        return lv | SCALAR          # `idx + 1` is still a 0-d tensor
    if lv == NOT:
        return NOT | ((a | b) & HOST)
    if lv == UNKNOWN and ((a | b) & HOST):
        return NOT | HOST
    flags = 0
    if type(op) in (ast.BitAnd, ast.BitOr, ast.BitXor) and (a & BOOL or b & BOOL):
        flags = BOOL
    return lv | flags


def _str_split(name: str, node: ast.Call) -> bool:
    """`s.split()`, `s.split(",")`, `s.split(sep=...)`: `str.split`; `Tensor.split` needs a size."""
    if name != "split":
        return False
    args = node.args
    return (not args and all(k.arg in ("sep", "maxsplit") for k in node.keywords)) or \
        (bool(args) and type(args[0]) is ast.Constant and type(args[0].value) is str)


def _unpacked(k: int) -> int:
    """Kind of the items when a value of kind `k` is unpacked or iterated."""
    if k & SHAPE:
        return NOT
    if k & HOST:
        return NOT | HOST
    lv = K.level(k)
    return lv | (k & BOOL) if lv >= PROBABLE else UNKNOWN


def _is_non_numeric_literal(node: ast.AST) -> bool:
    t = type(node)
    if t is ast.Constant:
        return isinstance(node.value, (str, bytes)) or node.value is None
    return t in (ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set)


def _param_kind(arg: ast.arg, default: ast.AST | None, modelish: bool) -> int:
    # A literal default other than None beats a claimed Tensor annotation (`x: Tensor = False`).
    if default is not None and type(default) is ast.Constant and default.value is not None:
        return NOT
    if arg.annotation is not None:
        k = annotation_kind(arg.annotation)
        if k != UNKNOWN:
            return k
    if default is not None:
        if type(default) is ast.Constant and default.value is None:
            return UNKNOWN
        return NOT if type(default) in (ast.Constant, ast.Tuple, ast.List, ast.Dict,
                                        ast.UnaryOp) else UNKNOWN
    return PROBABLE if modelish else UNKNOWN
