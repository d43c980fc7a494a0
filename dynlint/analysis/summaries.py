"""Calls between a file's own functions: what they return and what their callers pass.

A helper such as `_get_global_attn_indices()` may return a tensor count that its caller
passes on to `attn.narrow(-1, 0, n)` in another helper. Seen alone, the helper's parameter is
merely "probably a tensor" and the call's result unknown. This module keeps, per function of
the file, the kinds its `return`s produce (element-wise for tuples, or its `-> Tensor`
annotation) and the kinds each call site passes; after the walk, functions that would learn
something (a parameter every caller passes a tensor for, or a call whose result was unknown
when first seen) are walked again, at most three times (`walker._REWALKS`). Only such
functions pay for it.
"""
from __future__ import annotations

import ast
import re
import sys
from types import SimpleNamespace

from . import kinds as K
from . import passthrough, typeddicts
from .annotations import annotation_kind, declared_numbers
from .attributes import held_classes, held_imported
from .fields import built_here, instance_class
from .bindings import binds_name, bound_values, last_values
from .kinds import BOOL, HOST, NOT, PROBABLE, TENSOR, UNKNOWN
from .registries import built_from_registry, registries
from .scopes.crossfile import resolve_import
from .scopes.held import held_attributes
from .scopes.naming import constructed_classes
from .scopes.info import TOKEN_TABLE
from .text import LineText, within


class LocalCalls:
    def __init__(self, analyzer):
        self.a = analyzer
        self.returns: dict[int, list] = {}        # id(FunctionInfo) -> kinds of its returns
        self.done: set[int] = set()               # functions walked to their end
        self.sites: dict[int, list] = {}          # id(FunctionInfo) -> [(positional, keywords)]
        self.waiting: dict[int, set] = {}         # callee -> callers that met it unknown
        self.params: dict[int, dict] = {}         # id(FunctionInfo) -> {param: kind} as bound
        self.parents: dict[int, object] = {}      # id(FunctionInfo) -> enclosing Frame
        self.infos: dict[int, object] = {}
        self.overrides: dict[int, dict] = {}      # parameters upgraded from call sites
        self.called_as: dict[int, set] = {}       # id(FunctionInfo) -> names its calls used
        self.proved: dict[int, dict] = {}         # id(def node) -> see postconditions.py
        self.registries = None                    # see registries.py
        self.instances: dict = {}
        # Calls into other files: absolute callee -> {calling function: [sites]} (exported);
        # and what every other file's caller passes to this file's functions, as the project
        # index gathered it (qualname -> sites; given in `external`, see CALLERS).
        self.out_calls: dict = {}
        self._incoming = None
        # Across files (the cross-file step, crossfile.settle): what calls into other files
        # return, by absolute name (`pkg.mod.func`, `pkg.mod.Class.method`), as the project
        # index learnt it; and the names whose result this walk needed and did not know.
        self.external: dict = {}
        self.returned_names: dict = {}            # id(info) -> the one name every return gives
        self._passes: dict = {}                   # id(info) -> passthrough.summary
        self.demands: dict = {}                   # name -> functions (qualname) that asked
        # Module-level functions (qualname -> [first line, last line]) whose walk read from
        # another file that a call's value is no tensor (`negative`): the first walk, knowing
        # nothing of other files, read it as a possible one (crossfile.settle withdraws what
        # that walk found there and this one does not).
        self.negated: dict = {}
        self._keys: dict = {}                     # import target -> absolute name

    # -- during the walk ----------------------------------------------------------------------
    def _own_class(self):
        frame = self.a.frame
        cls = frame.cls
        while cls is None and frame is not None:
            frame = frame.parent
            cls = frame.cls if frame is not None and frame.kind == "function" else None
        return cls

    def _method(self, cls, attr: str, depth: int = 0):
        """(methods named `attr` of `cls` or of its first base of this file defining it,
        the name of an imported base where the search leaves the file)."""
        methods = cls.methods.get(attr)
        if methods or depth > 8:
            return methods, None
        for base in cls.bases:
            known = self.a.scopes.classes.get(base)
            if known is not None and known is not cls:
                found, outside = self._method(known, attr, depth + 1)
            elif base and "." in base or base in self.a.scopes.imports:
                found, outside = None, base
            else:
                continue
            if found or outside:
                return found, outside
        return None, None

    def callee(self, node: ast.Call):
        f, scopes = node.func, self.a.scopes
        if type(f) is ast.Name:
            found = scopes.module_functions.get(f.id)
            if not found and f.id in scopes.classes:
                # `Interval(ts[0], ts[-1])` of a plain class of this file: its `__init__`
                found = constructed_classes({f.id: scopes.classes[f.id]}).get(f.id)
            return found[0] if found and len(found) == 1 else None
        if type(f) is ast.Attribute and type(f.value) is ast.Name and f.value.id == "self":
            cls = self._own_class()
            methods = self._method(cls, f.attr)[0] if cls is not None else None
            if methods is None and cls is not None:
                held = self._called(cls, f.attr)
                return held[0] if len(held) == 1 else None
            return methods[0] if methods and len(methods) == 1 else None
        if type(f) is ast.Attribute and type(f.value) is ast.Name and f.value.id in scopes.classes:
            # `Class.static_method(...)` / `Class.class_method(...)` of a class of this file.
            methods = scopes.classes[f.value.id].methods.get(f.attr)
            if methods and len(methods) == 1 and any(
                    type(d) is ast.Name and d.id in ("staticmethod", "classmethod")
                    for d in methods[0].node.decorator_list):
                return methods[0]
        return None

    # -- the walker tells when a function's walk starts and ends --------------------------------
    def met(self, info, parent) -> None:
        """The walk reached `info`'s definition inside `parent` (the frame a revisit reuses)."""
        self.parents[id(info)] = parent

    def enter(self, info, params: dict) -> dict:
        """A walk of `info` starts with `params` bound: returns the parameter kinds its call
        sites taught (an int, or a tuple of item kinds for a tuple every caller passes)."""
        self.params[id(info)] = dict(params)
        self.infos[id(info)] = info
        self.returns[id(info)] = []
        self.returned_names.pop(id(info), None)
        if id(info) in self.done and info.parent is None and self.out_calls:
            # Walked again with what its callers taught: its calls into other files pass what
            # it now knows (`Euler.step`'s `self.bm(t0, t1)` once `t0` is a 0-d tensor), not
            # also what the first walk passed (a bare veto).
            for per in self.out_calls.values():
                per.pop(info.qualname, None)
        return self.overrides.get(id(info), {})

    def leave(self, info) -> None:
        self.done.add(id(info))

    def note_call(self, node: ast.Call) -> None:
        if any(type(a) is ast.Starred for a in node.args) or \
                any(k.arg is None for k in node.keywords):
            return
        f = node.func
        name = f.id if type(f) is ast.Name else \
            f.value.id if type(f.value) is ast.Name else None
        target = self.a.imports.get(name) if name is not None else None
        if target is not None and (target + ".").startswith(_OUTSIDE):
            return                      # `F.relu(...)`, `torch.cat(...)`: no project code
        info = self.callee(node)
        infos = [info] if info is not None else self._held(node)
        if info is not None and type(f) is ast.Attribute and type(f.value) is ast.Name and \
                f.value.id == "self":
            infos += self._overrides(f.attr)
            cls = self._own_class()
            if cls is not None and cls.module_state is False and self.a.module_name:
                # A template method of a plain class (`integrate` calling `self.step(t0, t1,
                # y)`): the overrides in subclasses of other files get the site too ("^":
                # dispatched to them, crossfile._incoming). Not of a module: its methods' calls
                # are many, and a model's hooks are overridden in its own file.
                self._out_site(node, f"^{self.a.module_name}.{cls.name}.{f.attr}")
        if not infos:
            built = self.from_registry(f.value.id) if type(f) is ast.Attribute and \
                type(f.value) is ast.Name else ()
            if built:
                infos = self._registry_methods(built, f.attr, node)
                if not infos:
                    return
            else:
                # A call into another file of the project: its site, for the callee's
                # parameters (crossfile.settle gathers every file's sites per callee).
                self._out_site(node, self.external_key(node))
                return
        site = self._site(node)
        called = node.func.id if type(node.func) is ast.Name else node.func.attr
        for info in infos:      # a call that may run any of them: each gets the site
            self.sites.setdefault(id(info), []).append(site)
            self.infos[id(info)] = info
            self.called_as.setdefault(id(info), set()).add(called)

    def _out_site(self, node: ast.Call, key, bound: bool = False) -> None:
        if key is None:
            return
        f = node.func
        site = _portable(self._site(node))
        if not any(teaches(k) or forwards(k) for k in [*site[0], *site[1].values()]):
            site = 0            # it passes nothing a parameter could learn from
        elif not bound and type(f) is ast.Attribute and type(f.value) is ast.Name and \
                f.value.id in self.a.imports:
            site.append(1)      # `Class.method(obj, ...)` would pass the instance first
        per = self.out_calls.setdefault(key, {}).setdefault(self._asking(), [])
        if site not in per:
            per.append(site)

    def from_registry(self, name: str) -> tuple:
        """Classes (names in this module) a local `name` may hold, built through a registry
        (`solver = SOLVERS[method](...)`, see registries.py)."""
        frame = self.a.frame
        if name == "self" or frame is None or frame.kind != "function" or \
                not registries(self.a):
            return ()
        return built_from_registry(self.a, frame.node, name)

    def _registry_methods(self, built, attr: str, node: ast.Call) -> list:
        """Each class's method `attr` for a call on an instance built through a registry:
        this file's classes' methods (returned: they get the site), and for the classes
        imported from other files, a site under `module.Class.attr` (the index finds the
        method along the class's bases). [] when one of this file's classes has no single
        method so named, or the site went to other files only."""
        out = []
        module = self.a.module_name
        for name in built:
            cls = self.a.scopes.classes.get(name)
            if cls is not None:
                methods = self._method(cls, attr)[0]
                if not methods or len(methods) != 1:
                    return []
                out.append(methods[0])
            elif name in self.a.imports and module is not None:
                target = self.a.imports[name] + "." + attr
                if not target.startswith(_OUTSIDE) and target.partition(".")[0] not in _STDLIB:
                    self._out_site(node, resolve_import(target, module,
                                                        getattr(self.a, "is_package", False)),
                                   bound=True)
        return out

    def _site(self, node: ast.Call):
        kind = self._passed
        return [kind(a) for a in node.args], {k.arg: kind(k.value) for k in node.keywords}

    def _top(self):
        """The module-level function (or method) whose walk is at the current node."""
        info = self.a.frame_info()
        while info is not None and info.parent is not None:
            info = info.parent
        return info

    def _asking(self) -> str:
        info = self._top()
        return info.qualname if info is not None else "<module>"

    def _passed(self, arg):
        """Kind of an argument; a tuple literal (`(left, n_extra)`) item by item; marked FWD
        where it only passes on a parameter of the calling function (see `_forwarded`)."""
        if type(arg) is ast.Tuple and not any(type(e) is ast.Starred for e in arg.elts):
            return tuple(self.a.kind(e) for e in arg.elts)
        k = self.a.kind(arg)
        if type(arg) is ast.Name and type(k) is int and K.level(k) in (UNKNOWN, PROBABLE) and \
                not k & (HOST | K.ARRAY | K.SHAPE) and self._forwarded(arg.id):
            return k | K.FWD
        return k

    def _forwarded(self, name: str) -> bool:
        """`name` is a parameter of the function or lambda being walked that its body never
        binds again: what it holds is what that function's own callers pass."""
        frame = self.a.frame
        fn = frame.node if frame is not None else None
        if type(fn) not in (*_DEFS, ast.Lambda) or name in ("self", "cls"):
            return False
        args = fn.args
        if not any(a.arg == name for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)):
            return False
        return type(fn) is ast.Lambda or not any(binds_name(st, name) for st in fn.body)

    def note_return(self, value: ast.AST | None) -> None:
        info = self.a.frame_info()
        if info is None:
            return
        if value is None or (type(value) is ast.Constant and value.value is None):
            return                  # `return None` says nothing about the other returns
        self.returns.setdefault(id(info), []).append(self._returned(value, 0))
        # (a function whose every return is one bare name may hand back its argument)
        name = value.id if type(value) is ast.Name else ""
        if self.returned_names.setdefault(id(info), name) != name:
            self.returned_names[id(info)] = ""

    def _returned(self, value: ast.AST, depth: int):
        """What a returned expression gives: a kind, or for a tuple its items' kinds (a
        nested tuple item by item too: `return (fg_mask, idx), loss`)."""
        if type(value) is ast.Tuple:
            if depth and (depth >= _NESTING or any(type(e) is ast.Starred for e in value.elts)):
                return UNKNOWN
            return tuple(self._returned(e, depth + 1) for e in value.elts)
        if type(value) is ast.List and depth:
            return UNKNOWN          # a list's items are not tracked: no claim, not "no tensor"
        k = self.a.kind(value)
        if type(value) in (ast.Call, ast.Name, ast.Subscript):
            # `return self._forward(...)`: the tuple the callee returns, item by item.
            items = self.a._items_of(value)
            if type(items) is tuple:
                return items
        return k

    def result(self, node: ast.Call):
        """Kind (an int, or a tuple of ints for a tuple) returned by a call to a function of
        this file (or, as the cross-file step learnt it, of another file of the project), or
        None when not known (yet)."""
        info = self.callee(node)
        if info is None:
            held = self._held(node) or self.declared_methods(node)
            if held:
                return self._any_result(held)
            key = self.external_key(node)
            if key is None:
                return None
            asking = self._asking()
            if asking != "<module>":
                self.demands.setdefault(key, set()).add(asking)
            summary = self.external.get(key)
            if summary is not None and asking != "<module>" and negative(summary):
                top = self._top()
                self.negated[asking] = [top.node.lineno, top.node.end_lineno]
            if type(summary) is str:
                return self._plain(passthrough.argument_kind(summary, node, self.a.kind), node)
            return self._plain(summary, node)
        ann = info.node.returns
        if ann is not None:
            k = annotation_kind(ann)
            if K.level(k) == TENSOR:
                # The code may say more than the annotation (a bool mask, `-> Tensor`).
                if id(info) in self.done:
                    code = fold(self.returns.get(id(info), []))
                    if type(code) is int and K.level(code) == TENSOR:
                        return code
                return k
            if k & K.SCALAR:
                # `-> int | Tensor`: a 0-d tensor on some path (`previous_timestep`), which the
                # code's returns, joined, would call a plain int.
                return k
            if k & K.ARRAY:
                return k                # `-> np.ndarray`: a numpy array, whatever its inputs
        summary = self._summary(info)
        if summary is None or type(summary) is int and K.level(summary) <= UNKNOWN and \
                not summary & ~K.LEVEL:
            through = self._through(info)
            if through is not None:
                k = passthrough.argument_kind(through, node, self.a.kind)
                if k is not None:
                    summary = k
        if self.negated and summary is not None and negative(summary):
            self._negate_caller(info)
        return self._plain(summary, node)

    def _negate_caller(self, callee) -> None:
        """The function being walked reads what `callee`, told by another file that a value is
        no tensor, returns of it (`return stable_product(r)` read as `helper(r).item()`): its
        first walk's findings may rest on the unknown value too."""
        while callee.parent is not None:
            callee = callee.parent
        top = self._top()
        if callee.qualname in self.negated and top is not None and top is not callee:
            self.negated[top.qualname] = [top.node.lineno, top.node.end_lineno]

    def _through(self, info) -> str | None:
        """`passthrough.summary` of a walked function whose every return is one bare name."""
        if id(info) not in self.done or not self.returned_names.get(id(info)):
            return None
        found = self._passes.get(id(info), self._passes)
        if found is self._passes:
            bound = info.cls is not None and not any(
                type(d) is ast.Name and d.id == "staticmethod" for d in info.node.decorator_list)
            found = self._passes[id(info)] = passthrough.summary(info.node, bound)
        return found

    def _plain(self, summary, node: ast.Call):
        """A host value a function returns is read from its arguments' data, unless it reads
        some of its own: a call passing plain Python values only (`lengths(x.shape[-1])`, a
        helper written for tensors) gets a plain value."""
        if summary is None or not _any_host(summary):
            return summary
        args = [*node.args, *(k.value for k in node.keywords)]
        if not args or any(type(a) is ast.Starred for a in args):
            return summary
        for a in args:
            k = self.a.kind(a)
            if K.level(k) != NOT or k & HOST:
                return summary
        return _unhosted(summary)

    def _summary(self, info):
        if id(info) not in self.done:
            caller = self.a.frame_info()
            if caller is not None and caller is not info:
                self.waiting.setdefault(id(info), set()).add(id(caller))
                self.infos[id(caller)] = caller
            return None
        return fold(self.returns.get(id(info), []))

    def _held(self, node: ast.Call) -> list:
        """Methods a call `self.x.m(...)` may run: `m` of each class of this file that some
        method of the caller's class stores in `self.x` (`self.decoder = GreedyDecoder(...)`
        in one branch, `BeamSearchDecoder(...)` in another)."""
        f = node.func
        if type(f) is ast.Name:
            # `bm = Interval(...)`, then `bm(t0, t1)`: the instance is called (`__call__`).
            out = []
            for cls in self._local_instance(f.id, node.lineno, self.a.scopes.classes):
                methods = self._method(cls, "__call__")[0] or self._method(cls, "forward")[0]
                if not methods or len(methods) != 1:
                    return []
                out.append(methods[0])
            return out
        if type(f) is ast.Attribute and type(f.value) is ast.Name and f.value.id != "self":
            return self.local_methods(node)
        if type(f) is ast.Attribute and type(f.value) is ast.Name and f.value.id == "self":
            # `self.loss(...)`: the instance held is called (`__call__`, or a module's forward).
            cls = self._own_class()
            if cls is None or self._method(cls, f.attr)[0]:
                return []
            return self._called(cls, f.attr)
        if type(f) is not ast.Attribute or type(f.value) is not ast.Attribute or \
                type(f.value.value) is not ast.Name or f.value.value.id != "self":
            return []
        cls = self._own_class()
        if cls is None:
            return []
        out = []
        for held in held_classes(self.a, cls, f.value.attr):
            methods = self._method(held, f.attr)[0]
            if not methods or len(methods) != 1:
                return []               # one class we cannot follow: no claim
            out.append(methods[0])
        return out

    def local_methods(self, node: ast.Call) -> list:
        """`ctl = Controller(...)`, then `ctl.propose(err)`: the method of that class of this
        file (exactly that class: the local holds what its constructor built, no subclass), so
        the call binds its arguments like a call of a function of this file does."""
        f = node.func
        if type(f) is not ast.Attribute or type(f.value) is not ast.Name or \
                f.value.id in ("self", "cls") or not self.a.scopes.classes:
            return []
        out = []
        for cls in self._local_instance(f.value.id, node.lineno, self.a.scopes.classes):
            methods = self._method(cls, f.attr)[0]
            if not methods or len(methods) != 1:
                return []               # an attribute, or a method we cannot pick: no claim
            out.append(methods[0])
        return out

    def declared_methods(self, node: ast.Call) -> list:
        """What `x.m(...)` may run where the local or parameter `x` holds an instance of a
        class of this file (`fields.instance_class`: `x: BoxMode`, `x = BoxMode(...)`, or
        `x = get_boxmode(...)` declared `-> BoxMode`): `m` of that class and every override
        of it in its subclasses here (the instance may be of any: a mode picked at run time).
        Only for what the call returns: its site teaches no parameter (a caller's value is
        no evidence against another's claim)."""
        f = node.func
        if type(f) is not ast.Attribute or type(f.value) is not ast.Name or \
                f.value.id in ("self", "cls") or not self.a.scopes.classes:
            return []
        cls = instance_class(self.a, f.value)
        if cls is None:
            return []
        methods = self._method(cls, f.attr)[0]
        if not methods or len(methods) != 1:
            return []
        out = [methods[0]]
        for sub in () if built_here(self.a, f.value) else self.a.scopes.subclasses(cls):
            found = sub.methods.get(f.attr)
            if found and len(found) == 1 and found[0] not in out:
                out.append(found[0])
        return out

    def holds_instance(self, name: str, line: int) -> bool:
        """Whether the local `name` holds, at `line`, an instance of a class of this file or
        an imported one: calling it runs the class's `__call__`."""
        a = self.a
        return bool(self._local_instance(name, line, a.scopes.classes) or
                    self._local_instance(name, line, a.imports))

    def _local_instance(self, name: str, line: int, classes) -> list:
        """What `classes` maps the class of the instance a local `name` holds at `line` to,
        when every value it may hold there is a call of a name in `classes`; else []."""
        func = self.a._function_node()
        if type(func) not in _DEFS:
            return []               # (a lambda's body is one expression: no local binds there)
        # A function whose text names none of `classes` binds no call of one (most do not:
        # then its bindings table, a pass over every statement, is not built for this).
        info = self.a.scopes.functions.get(id(func))
        if info is not None and classes.keys().isdisjoint(info.refs(self.a.lines)[0]):
            return []
        # First, from the function's table, whether any binding of `name` is such a call: most
        # names called are no local (an imported function) or bound to no class (`layer(x)`
        # in a loop over modules); only then the bindings that reach `line`.
        values = bound_values(func, name)
        if not values or not any(type(v) is ast.Call and type(v.func) is ast.Name and
                                 v.func.id in classes for v in values):
            return []
        values = last_values(func, name, line)
        if not values:
            return []
        out = []
        for v in values:
            if type(v) is not ast.Call or type(v.func) is not ast.Name or \
                    v.func.id not in classes:
                return []
            if classes[v.func.id] not in out:
                out.append(classes[v.func.id])
        return out

    def _overrides(self, attr: str) -> list:
        """The overrides of `attr` in the subclasses (in this file) of the caller's class:
        `self.m(...)` in a base's method runs them for a subclass's instance (a template
        method: `integrate` calling `self._advance(t[i])`), so each gets the call's site."""
        cls = self._own_class()
        if cls is None:
            return []
        out = []
        for sub in self.a.scopes.subclasses(cls):
            methods = sub.methods.get(attr)
            if methods and len(methods) == 1:
                out.append(methods[0])
        return out

    def _called(self, cls, attr: str) -> list:
        """What calling the instances `cls` holds in `self.attr` runs: each class's
        `__call__`, or `forward` where it has none (an `nn.Module`); [] if one has neither."""
        out = []
        for held in held_classes(self.a, cls, attr):
            methods = self._method(held, "__call__")[0] or self._method(held, "forward")[0]
            if not methods or len(methods) != 1:
                return []
            out.append(methods[0])
        return out

    def _any_result(self, infos):
        """What a call returns when it may run any of `infos`: a tensor if one of them returns
        one there (the line syncs whenever that class is the one held), see `fold`."""
        summaries = [s for s in (self._summary(i) for i in infos) if s is not None]
        if any(type(s) is tuple for s in summaries) and any(type(s) is int for s in summaries) \
                and all(K.level(s) == TENSOR for s in summaries if type(s) is int) \
                and all(type(k) is int for s in summaries if type(s) is tuple for k in s):
            # `boxes.split(1, -1)` in one, `(xmin, ymin, xmax, ymax)` in another: an item of
            # either is a tensor (`split`'s pieces are read as the tensor's rows).
            return _join_any([k for s in summaries for k in (s if type(s) is tuple else (s,))])
        return fold(summaries, any_of=True)

    def external_key(self, node: ast.Call) -> str | None:
        """Absolute name of what a call runs in another file of the project: an imported
        function (`helper(...)`, `module.helper(...)`) or a method `self.m(...)` that the
        caller's class inherits from a class imported from elsewhere."""
        a = self.a
        module = a.module_name
        if module is None:
            return None
        f = node.func
        target = None
        if type(f) is ast.Name:
            target = a.imports.get(f.id)
            if target is None:          # `bm = Interval(...)` of another file, `bm(t0, t1)`
                held = self._local_instance(f.id, node.lineno, a.imports)
                if len(held) == 1:
                    target = held[0] + ".__call__"
        elif type(f) is ast.Attribute and type(f.value) is ast.Name:
            name = f.value.id
            if name == "self":
                cls = self._own_class()
                found, outside = self._method(cls, f.attr) if cls is not None else (None, None)
                held = held_imported(a, cls, f.attr) if cls is not None and not found else ()
                if len(held) == 1:
                    # `self.assigner(...)` holding an instance of a class of another file:
                    # its `__call__` (the index falls back to an `nn.Module`'s `forward`).
                    target = held[0] + ".__call__"
                elif cls is not None and not found and self._declared(cls, f.attr):
                    # `self.bm(t0, t1)` with `self.bm = bm`, `bm: BaseBrownian` imported: the
                    # index runs the `__call__` of that class and of its subclasses.
                    target = f"{module}.{cls.name}.{f.attr}"
                elif outside is not None:       # already resolved by the imports
                    target = outside + "." + f.attr
            elif name in a.imports:
                target = a.imports[name] + "." + f.attr
            else:                       # `ctl = Controller(...)` of another file, `ctl.propose(e)`
                held = self._local_instance(name, node.lineno, a.imports)
                if len(held) == 1:
                    target = held[0] + "." + f.attr
        elif type(f) is ast.Attribute and type(f.value) is ast.Attribute and \
                type(f.value.value) is ast.Name and f.value.value.id == "self":
            cls = self._own_class()
            held = held_imported(a, cls, f.value.attr) if cls is not None else ()
            if len(held) == 1:                  # `self.matcher.assign(...)`
                target = held[0] + "." + f.attr
        elif type(f) is ast.Attribute and type(f.value) is ast.Attribute and \
                type(f.value.value) is ast.Name and f.value.value.id in a.imports:
            # `settings.nan_policy._get_observed(...)`: a static or class method of a class of
            # an imported module (the index answers it as any method of a class)
            target = f"{a.imports[f.value.value.id]}.{f.value.attr}.{f.attr}"
        if target is None or target.startswith(_OUTSIDE) or \
                target.partition(".")[0] in _STDLIB:
            return None
        found = self._keys.get(target)
        if found is None:
            found = self._keys[target] = resolve_import(target, module,
                                                        getattr(a, "is_package", False))
        return found

    def external_item(self, target: str, key: str, field: bool = False):
        """The kind another file of the project declares for item `key` of its TypedDict
        `target` (an import target; typeddicts.py), or with `field`, for the str-keyed items of
        field `key` of its class `target`, as the cross-file step told this walk; None when
        not known (yet)."""
        module = self.a.module_name
        if module is None or target.startswith(_OUTSIDE) or target.partition(".")[0] in _STDLIB:
            return None
        found = self._keys.get(target)
        if found is None:
            found = self._keys[target] = resolve_import(target, module,
                                                        getattr(self.a, "is_package", False))
        name = f"{found}.{key}[str]" if field else f"{found}.[{key}]"
        asking = self._asking()
        if asking != "<module>":
            self.demands.setdefault(name, set()).add(asking)
        summary = self.external.get(name)
        return summary if type(summary) is int else None

    def _declared(self, cls, attr: str) -> bool:
        """Whether `cls` stores in `attr` a parameter declared an imported class."""
        table = self.__dict__.setdefault("_declared_holds", {})
        found = table.get(id(cls))
        if found is None:
            a = self.a
            imports = a.imports

            def imported(node):         # a class imported from elsewhere (not torch's)
                head = node
                while type(head) is ast.Attribute:
                    head = head.value
                return "x" if type(head) is ast.Name and head.id in imports and \
                    not (imports[head.id] + ".").startswith(_OUTSIDE) else None
            found = table[id(cls)] = {
                attr for attr, held in held_attributes(cls, a.lines, imported).items()
                if any(held.values())}
        return attr in found

    def exported(self) -> dict:
        """The return summaries other files may use, of module-level functions and methods of
        module-level classes, by name in the module: what a call in this file would read (see
        `result`), when it says more than an unknown value (a tensor, a bool mask, a host
        value, a tuple holding one)."""
        out = {}
        for fid in self.done:
            returns = self.returns.get(fid)
            info = self.infos.get(fid)
            if not returns or info is None or not _exportable(info):
                continue
            code = fold(returns)
            declared = annotation_kind(info.node.returns) if info.node.returns is not None \
                else UNKNOWN
            if declared & K.SCALAR:
                # `-> int | Tensor`: a 0-d tensor on some path, as `result` reads it here.
                summary = declared
            elif K.level(declared) == TENSOR:
                # `-> Tensor`: the code may say more (a bool mask), as a caller here reads it.
                summary = code if type(code) is int and K.level(code) == TENSOR else declared
            elif declared & K.ARRAY:
                summary = declared          # `-> np.ndarray`, as `result` reads it here
            else:
                summary = code
            if summary is not None and (_strong(summary) or type(summary) is int and (
                    K.level(summary) == TENSOR or summary & K.SCALAR or declared & K.ARRAY)):
                out[info.qualname] = summary
            elif type(summary) is int and not summary & ~K.LEVEL and K.level(summary) <= UNKNOWN:
                # `to_device(x, ...) -> x`: the caller's value keeps its kind
                through = self._through(info)
                if through is not None:
                    out[info.qualname] = through
        # The items the module's TypedDicts declare tensors (`batch["masks"]` elsewhere).
        for cls, items in typeddicts.declared_items(self.a.tree).items():
            for key, kind in items.items():
                out[f"{cls}.[{key}]"] = kind
        # The str-keyed items of the fields its classes declare (`param.data["size"]` elsewhere).
        for cls, fields in typeddicts.declared_fields(self.a.tree).items():
            for name, kind in fields.items():
                out[f"{cls}.{name}[str]"] = kind
        # A function the walk skipped (cold: `evaluate_feasibility`, by its name) or that
        # returned nothing still declares what it returns: a caller in its own file reads the
        # annotation (`result`), so do callers in other files. Only from a file's first walk:
        # a walk again of some functions (`only`) leaves the others' first summaries in place.
        for info in self.a.scopes.functions.values() if self.a.only is None else ():
            if id(info) in self.done or info.node.returns is None or not _exportable(info):
                continue
            declared = annotation_kind(info.node.returns)
            if K.level(declared) == TENSOR or declared & (K.SCALAR | K.ARRAY):
                out.setdefault(info.qualname, declared)
        return out

    def opens(self) -> dict:
        """Functions other files may call whose parameters their callers could still teach
        something worth a finding, as callers in the function's own file do (`upgrade`): a
        parameter not known to be a tensor, or a number declared (`t: int`: a 0-d tensor
        where callers pass one), or one known a tensor but not its dtype that the function
        uses as an index (`x[p]`, `x[:, p]`: a bool mask). qualname -> [[name, position among
        the positional parameters after `self` (-1: keyword-only), kind, numbers declared]]
        (what `upgrade` reads)."""
        used = None
        out = {}
        for fid in self.done:
            info = self.infos.get(fid)
            bound = self.params.get(fid)
            if info is None or not bound or not _exportable(info):
                continue
            if used is None:
                used = _indexed_names("\n".join(self.a.lines))
            over = self.overrides.get(fid, {})
            args = info.node.args
            positional = [a.arg for a in args.posonlyargs + args.args]
            if info.cls is not None and positional and positional[0] in ("self", "cls"):
                positional = positional[1:]
            names = [[p, positional.index(p) if p in positional else -1, over.get(p, k),
                      _declared(args, p)]
                     for p, k in bound.items() if p not in ("self", "cls")
                     and _open(over.get(p, k), p in used, _declared(args, p))]
            if names:
                out[info.qualname] = sorted(names)
        return out

    def _take_incoming(self) -> dict:
        """The sites other files' callers pass (once per walk): qualname -> sites."""
        if self._incoming is not None:
            return {}
        self._incoming = {k[len(CALLERS):]: v for k, v in self.external.items()
                          if k.startswith(CALLERS)}
        return self._incoming

    # -- after the walk ------------------------------------------------------------------------
    def to_revisit(self) -> list:
        """(function, enclosing frame) pairs worth a second walk."""
        todo: dict[int, object] = {}
        incoming = self._take_incoming()
        if incoming:
            # Every caller counts: this file's and the other files'.
            for f in self.a.scopes.order:
                extra = incoming.get(f.qualname)
                if extra and id(f) in self.parents:
                    bound = f.cls is not None and not any(
                        type(d) is ast.Name and d.id == "staticmethod"
                        for d in f.node.decorator_list)
                    self.sites[id(f)] = self.sites.get(id(f), []) + \
                        [local_site(site, bound) for site in extra]
                    self.infos[id(f)] = f
        for callee_id, callers in self.waiting.items():
            summary = fold(self.returns.get(callee_id, []))
            if summary is not None and _has_tensor(summary):
                for c in callers:
                    todo[c] = self.infos[c]
        self.waiting = {}
        for fid, sites in self.sites.items():
            if not self._all_callers_walked(self.infos[fid], self.called_as.get(fid, frozenset())):
                continue
            upgrades = self._upgrades(self.infos[fid], sites)
            if upgrades:
                self.overrides.setdefault(fid, {}).update(upgrades)
                todo[fid] = self.infos[fid]
        self.sites = {}
        return [(i, self.parents[id(i)]) for i in todo.values() if id(i) in self.parents]

    def with_callers(self, only) -> set:
        """`only` (the functions a walk again walks) and the file's functions that call them,
        two calls up at most: what such a function now returns (`(fg_mask, idx), loss =
        self.assigned(...)` after `assigned` learnt the mask another file returns) reaches
        its callers in the same walk. Mentioning the name counts as calling."""
        only = set(only)
        top = [f for f in self.a.scopes.order if f.parent is None]
        lines = self._line_text()
        body: dict = {}             # id -> the names a function's body mentions
        held: dict = {}             # class -> the names its methods mention
        for _ in range(_CALLER_DEPTH):
            names = {f.name for f in top if f.qualname in only}
            # A module's `forward` (or `__call__`) runs when an instance held in `self.x`
            # is called: `self.x(...)` names neither; such a caller's class stores one.
            called = {f.cls.name for f in top if f.qualname in only and f.cls is not None
                      and f.name in _CALLED}
            # (the lines that hold the names as text: only functions there can mention them)
            at, called_at = lines.lines_holding(names), lines.lines_holding(called)
            more = {f.qualname for f in top if f.qualname not in only and (
                _mentions(f, names, at, lines, body) or
                (called_at and f.cls is not None and _holds_one(f.cls, called, called_at, lines, held)))}
            if not more:
                break
            only |= more
        return only

    def _line_text(self) -> LineText:
        """The module's text for word look-ups (`text.LineText`), made once per module."""
        found = self.__dict__.get("_text")
        if found is None or found.lines is not self.a.lines:
            found = self._text = LineText(self.a.lines)
        return found

    def _all_callers_walked(self, info, names) -> bool:
        """Whether every function of the file that may call `info` by one of `names` was
        walked: a walk again walks only some (`only`, crossfile.py), and a parameter's claim
        needs every caller's site. A method of a class where `self.name` runs something else
        is no caller. (Functions of skipped roles never count, in the first walk either.)"""
        a = self.a
        if a.only is None:
            return True
        # (`names` is empty for a function only other files call: no function here names it)
        at = self._line_text().lines_holding(names) if names else None
        if at == []:
            return True             # (no function names them)
        static = info.cls is None or any(type(d) is ast.Name and d.id in ("staticmethod",
                                                                        "classmethod")
                                         for d in info.node.decorator_list)
        for f in a.scopes.order:
            if f.parent is not None or f.qualname in a.only or f is info or \
                    (f.role in a.skip_roles and id(f) not in a._unskipped):
                continue                # (a function's own `def` line names it)
            # (the text first: a walk again has read no function's references yet, and most
            # functions name none of `names`)
            if at is not None and not within(at, f.node.lineno, f.node.end_lineno):
                continue
            mentioned = names & f.refs(a.lines)[0]
            if not mentioned:
                continue
            if static or f.cls is None:
                return False
            for name in mentioned:
                runs = self._method(f.cls, name)[0] or self._called(f.cls, name)
                if info in runs:
                    return False
        return True

    def _upgrades(self, info, sites) -> dict:
        args = info.node.args
        positional = [a.arg for a in args.posonlyargs + args.args]
        if info.cls is not None and positional and positional[0] in ("self", "cls"):
            positional = positional[1:]
        bound = self.params.get(id(info))
        if bound is None and id(info) in self.parents:
            # Not walked yet (a walk again walks only the functions that asked, crossfile.py):
            # its parameters as a walk would bind them.
            frame = SimpleNamespace(env={}, modelish=info.modelish)
            self.a._bind_params(frame, args, is_method=info.cls is not None)
            bound = frame.env
        if not bound:
            return {}
        out = {}
        for name in positional + [a.arg for a in args.kwonlyargs]:
            passed = passed_to(sites, name, positional.index(name) if name in positional else -1)
            if not passed:
                continue
            found = upgrade(passed, bound.get(name, NOT), _declared(args, name))
            if found is not None:
                out[name] = found
        return out


_CALLED = frozenset({"forward", "__call__"})
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_PARTS_TABLE = {**TOKEN_TABLE, ord("."): " "}


def _mentions(info, names: set, at: list, text: LineText, seen: dict) -> bool:
    """Whether `info`'s body (not its `def` line: another class's method of the same name
    calls nothing by being defined) mentions one of `names` (`at`: the lines holding them)."""
    found = seen.get(id(info))
    if found is None:
        node = info.node
        # Most bodies do not hold the names even as text: then no reading of their tokens (a
        # walk again, whose pre-pass is replayed, has read no function's references).
        if not within(at, node.body[0].lineno, node.end_lineno):
            return False
        body = "\n".join(text.lines[node.body[0].lineno - 1:node.end_lineno])
        # (the parts of its dotted names: `.` splits as any other separator; `names` are
        # function names, never the empty part `tok.split(".")` would also give)
        found = seen[id(info)] = set(body.translate(_PARTS_TABLE).split())
    return not names.isdisjoint(found)


def _holds_one(cls, classes: set, at: list, text: LineText, seen: dict) -> bool:
    """Whether a method of `cls` mentions one of `classes` (what storing an instance of it in
    `self.x` takes: attributes.held_classes; `at`: the lines holding them)."""
    found = seen.get(id(cls))
    if found is None:
        methods = [info for infos in cls.methods.values() for info in infos]
        # (the text first, as in `_mentions`, from the first method's line to the last one's,
        # kept per class; the answer is kept only once the tokens are read)
        span = seen.get(("lines", id(cls)))
        if span is None:
            span = seen[("lines", id(cls))] = (min((m.node.lineno for m in methods), default=0),
                                               max((m.node.end_lineno for m in methods), default=-1))
        if not within(at, *span):
            return False
        found = seen[id(cls)] = set().union(*(info.refs(text.lines)[0] for info in methods))
    return not classes.isdisjoint(found)


def passed_to(sites: list, name: str, pos: int):
    """What each call site passes for the parameter `name` (`pos`: its position after
    `self`, -1 if keyword-only), or None where a caller relies on the default. A site is
    (positional kinds, keyword kinds), or 0 for a call into another file passing nothing
    worth telling (`note_call`): an unknown value."""
    passed = []
    for site in sites:
        if site == 0:
            passed.append(UNKNOWN)
            continue
        pos_kinds, kw = site[0], site[1]
        if 0 <= pos < len(pos_kinds):
            passed.append(pos_kinds[pos])
        elif name in kw:
            passed.append(kw[name])
        else:
            return None
    return passed


def upgrade(passed: list, now, numbers):
    """What a parameter bound as `now` (declared `numbers`, see `declared_numbers`) is when
    its callers pass `passed` (one kind per site), or None when they teach nothing new: a
    tensor if every caller passes one (a bool mask, host memory, if all agree), the bool
    dtype an annotated `Tensor` does not say, a host value, a 0-d tensor where a number is
    declared, a tuple's items. The same rule for callers in the function's file and in
    other files (crossfile.settle). A site that only passes on its own caller's unknown
    parameter (FWD) says nothing either way: the others decide, if there are any."""
    passed = [k for k in passed if not forwards(k)] or passed
    if numbers is not None:
        zero_d = _zero_d(passed, numbers)
        if zero_d is not None:
            return zero_d
    if any(type(k) is tuple for k in passed):
        # Tuples passed by every caller, of one length: what each item holds.
        if all(type(k) is tuple for k in passed) and len({len(k) for k in passed}) == 1:
            items = tuple(_join(col) for col in zip(*passed))
            if any(_has_tensor(k) for k in items):
                return items
        return None
    if type(now) is not int:
        return None
    if all(K.level(k) == TENSOR and not k & HOST for k in passed) and \
            K.level(now) < TENSOR and not now & (K.ITEMS | K.ARRAY):
        # (Only where every caller passes one, measured against "some caller does", which
        # found more but flagged helpers other callers use for plain numbers. A parameter
        # annotated a container or an array stays one: `target_scale: dict[str, Tensor]`
        # receiving `x["target_scale"]` is no tensor whatever the subscript suggests.)
        return TENSOR | (BOOL if all(k & BOOL for k in passed) else 0) | \
            (K.CPU if all(k & K.CPU for k in passed) else 0)
    if K.level(now) == TENSOR and not now & (BOOL | HOST) and \
            all(K.level(k) != NOT and k & BOOL and not k & HOST for k in passed):
        # Annotated `Tensor` (or known a tensor otherwise), and every caller passes a
        # bool mask: the dtype the annotation does not say (`masked(x, type == i)`;
        # a comparison is a bool mask if it compares tensors, as the annotation says).
        return now | BOOL
    if all(k & HOST for k in passed) and not now & HOST:
        return NOT | HOST
    return None


def _open(kind, indexed: bool, numbers) -> bool:
    """Whether callers may teach a parameter bound as `kind` something (see `opens`)."""
    if type(kind) is not int or kind & (BOOL | HOST):
        return False
    if numbers is not None:
        return K.level(kind) < TENSOR
    return K.level(kind) == TENSOR and indexed or K.level(kind) in (UNKNOWN, PROBABLE)


def _declared(args: ast.arguments, name: str):
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        if a.arg == name:
            return declared_numbers(a.annotation)
    return None


def _zero_d(passed: list, numbers: int):
    """A parameter declared a number (`timestep: int`) or a tuple of numbers (`pad: tuple[int,
    int]`) where some caller passes a device tensor instead: a 0-d tensor there (probably: the
    line reads it whenever that caller runs, as with `_any_result`). Tensors built in host
    memory from Python numbers (`torch.tensor(0)`) are not worth it; None: nothing learnt."""
    def device_tensor(k):
        # (A probable 0-d tensor passed on, `self._variance(timestep)` in a method whose
        # `timestep` is one, is as likely one here.)
        return type(k) is int and (K.level(k) == TENSOR or K.level(k) == PROBABLE and
                                   k & K.SCALAR) and not k & (HOST | K.CPU | BOOL)

    def column(col):
        if all(type(k) is int and K.level(k) == TENSOR and not k & HOST for k in col):
            return _join(col) | K.SCALAR        # every caller: certainly a tensor
        return PROBABLE | K.SCALAR if any(device_tensor(k) for k in col) else None
    if numbers == 1:
        return column(passed)
    rows = [k for k in passed if type(k) is tuple and len(k) == numbers]
    if len(rows) < len(passed):
        return None                 # (a caller passes a tuple built elsewhere: no claim)
    cols = [column(col) for col in zip(*rows)]
    return tuple(NOT if k is None else k for k in cols) if any(cols) else None


CALLERS = "(callers)"     # prefix of the `external` entries that carry other files' sites
# A name used as an index: `x[p]`, `x[p, ...]`, `x[..., p]` (a cheap text gate for `opens`).
# The pattern starts at the `[` and looks behind for what precedes it: a literal first
# character lets the regex engine skip to each `[` (15 times faster than starting with the
# class `[\w)\]]`, which is tried at every position of the module's text).
_INDEXED = re.compile(r"\[(?<=[\w)\]]\[)(?:\s*(\w+)\s*[\],]|[^\[\]\n]*,\s*(\w+)\s*\])")


def _indexed_names(text: str) -> set:
    """The names `_INDEXED` finds, with the matches `findall` of the pattern that starts one
    character earlier would give: that one consumes the character before the `[`, so a match
    right after another (`a[i][j]`: the `]` ended `a[i]`) does not count. A match holds a
    single `[`, so skipping such an overlapping one skips nothing else."""
    used, end = set(), -1
    for m in _INDEXED.finditer(text):
        if m.start() > end:
            used.update(n for n in m.groups() if n)
            end = m.end()
    return used


def _exportable(info) -> bool:
    """A module-level function or a method of a module-level class: other files can name it."""
    return info.parent is None and (info.cls is None or
                                    "." not in info.qualname[:-len(info.name) - 1])


def teaches(kind) -> bool:
    """Whether an argument of this kind can teach the parameter it binds (see `upgrade`): a
    tensor, a comparison that may be a bool mask; a tuple by its items (a JSON list once
    cached). Sites passing no such argument are recorded as 0: they only say "nothing"."""
    if type(kind) in (tuple, list):
        return any(teaches(k) for k in kind)
    return maybe_mask(kind) or K.level(kind) == TENSOR and not kind & HOST


def forwards(kind) -> bool:
    """An argument that passes on the caller's own unknown parameter (`_forwarded`)."""
    return type(kind) is int and bool(kind & K.FWD)


def maybe_mask(kind) -> bool:
    """A bool mask, or a comparison (a mask if it compares tensors)."""
    return type(kind) is int and K.level(kind) != NOT and bool(kind & BOOL) and not kind & HOST


def _portable(site):
    """A site as JSON keeps it (lists for tuples), so cached and fresh sites compare equal."""
    pos, kw = site
    return [[list(k) if type(k) is tuple else k for k in pos],
            {n: list(k) if type(k) is tuple else k for n, k in sorted(kw.items())}]


def local_site(site, bound: bool):
    """A site as `_upgrades` reads it; for a method (`bound`), a call through its class
    (`Class.method(obj, ...)`, marked by the caller) passes the instance first."""
    if site == 0:
        return 0
    pos, kw = site[0], site[1]
    if bound and len(site) > 2 and pos:
        pos = pos[1:]
    return ([tuple(k) if type(k) is list else k for k in pos],
            {n: tuple(k) if type(k) is list else k for n, k in kw.items()})


def _any_host(summary) -> bool:
    if type(summary) is tuple:
        return any(_any_host(k) for k in summary)
    return bool(summary & HOST)


def _unhosted(summary):
    """A summary with its host values taken as plain (read from no tensor)."""
    if type(summary) is tuple:
        return tuple(_unhosted(k) for k in summary)
    return NOT if summary & HOST and K.level(summary) == NOT else summary


def negative(summary) -> bool:
    """Whether a summary from another file says a call's value is no tensor (a numpy array,
    a Python value; a tuple holding one), where a walk not told would read a possible one."""
    if type(summary) is tuple:
        return any(negative(item) for item in summary)
    return type(summary) is int and K.level(summary) == NOT


def fold(kinds: list, any_of: bool = False):
    """One summary for all of a function's returns: element-wise for same-length tuples.
    With `any_of`, for a call that may run any of several functions (their summaries): per
    item, the highest tensor level any of them reaches, flags only where all of those agree."""
    if not kinds:
        return None
    join = _join_any if any_of else _join
    if not any_of and any(type(k) is tuple for k in kinds):
        # A container of tensors whose items are not tracked (`tuple(x.new_empty(...) for x
        # in result)` on a retry path) makes no claim about the items, as `return None`.
        kinds = [k for k in kinds if type(k) is tuple or not k & K.ITEMS]
    if all(type(k) is tuple for k in kinds) and len({len(k) for k in kinds}) == 1:
        return tuple(_fold_item(col, any_of) for col in zip(*kinds))
    if any(type(k) is tuple for k in kinds):
        return None if any_of else NOT
    return join(kinds)


def _fold_item(col, any_of: bool):
    """One item of same-length tuples: nested tuples item by item; a tuple on some paths
    and something else on others makes no claim."""
    if any(type(k) is tuple for k in col):
        if all(type(k) is tuple for k in col) and len({len(k) for k in col}) == 1:
            return tuple(_fold_item(c, any_of) for c in zip(*col))
        return UNKNOWN
    return _join_any(col) if any_of else _join(col)


def _join_any(values) -> int:
    lv = max(K.level(k) for k in values)
    top = [k for k in values if K.level(k) == lv]
    flags = 0
    for f in (BOOL, K.CPU):
        if all(k & f for k in top):
            flags |= f
    if any(k & HOST for k in values):
        flags |= HOST
    return lv | flags


def _strong(summary) -> bool:
    if type(summary) is tuple:
        # A caller unpacking a tuple (`preds, target = check(preds, target)`) cannot see its
        # items' kinds for itself: a tensor item is worth telling too.
        return any(_strong(k) or type(k) is int and K.level(k) == TENSOR for k in summary)
    return bool(summary & HOST) or (K.level(summary) == TENSOR and bool(summary & BOOL))


_FLAGS = BOOL | HOST
_NESTING = 3            # tuples nested deeper than this make no claim
_CALLER_DEPTH = 2       # how far up a walk again follows the file's callers (`with_callers`)
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
# Imports whose calls kinds.py reads already (or that are no project code).
_OUTSIDE = ("torch.", "numpy.", "np.", "pandas.", "typing.", "math.", "collections.")


def _join(values) -> int:
    lv = min(K.level(k) for k in values)       # certain only if every return is
    flags = 0
    for f in (BOOL, HOST, K.CPU, K.VEC):
        if all(k & f for k in values):
            flags |= f
    return lv | flags


def _has_tensor(summary) -> bool:
    if type(summary) is tuple:
        return any(_has_tensor(k) for k in summary)
    return K.level(summary) == TENSOR or bool(summary & HOST)
