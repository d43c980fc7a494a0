"""Who may call whom inside one module, read from function text (`CallGraph`)."""
from __future__ import annotations

from ..steploops import calls_held
from .held import HELD_NAME, declared_here
from .info import ClassInfo, FunctionInfo, Scopes
from .naming import COLD_FUNC, HELD_INSTANCE, called_instances, constructed, constructed_classes


class CallGraph:
    """Who may call whom inside one module, read from function text: `self.m(...)` reaches
    the class's own `m` (or any class's `m`), a module function's name reaches it, `x.m` or
    `self.x.m` reaches any class's method `m`, and `self.x` where some method stores
    `self.x = C(...)` reaches `C.__call__` and `C.forward` (a loss or scorer held by a model),
    and so does `x = C(...)` then `x(...)` in a function (an object called as a function).
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
        text = "\n".join(lines) if self.methods else ""
        if "self." in text:
            for attr, cls in HELD_INSTANCE.findall(text):
                info = classes.get(cls)
                if info is not None:
                    for name in ("__call__", "forward"):
                        self.held.setdefault(attr, []).extend(info.methods.get(name, ()))
            # (`self.config = config` is in most modules, early: the search first, then a
            # look for each class's name as an annotation over the whole text)
            if HELD_NAME.search(text) and \
                    any(f": {n}" in text or f"[{n}" in text for n in classes):
                # `self.bm = bm`, `bm: BaseBrownian` of this file: the `__call__` of it and of
                # its subclasses here
                for info in classes.values():
                    for attr, held in declared_here(info, lines, scopes).items():
                        for c in held:
                            self.held.setdefault(attr, []).extend(c.methods.get("__call__", ()))
        # classes of this file with a `__call__` (an instance bound to a local and called)
        self.callable_classes = {name: info.methods["__call__"] for name, info in classes.items()
                                 if "__call__" in info.methods}
        # classes of this file known to be no nn.Module, with an `__init__`: built in the step
        # (`Interval(ts[0], ts[-1])` in a `forward`), their constructor runs there (a module is
        # built once, at setup; a data class is cold whoever builds it)
        self.constructed = constructed_classes(classes)
        self._holds: dict[tuple, bool] = {}
        self._callees: dict[int, list[FunctionInfo]] = {}
        self.scopes = scopes

    def callees(self, f: FunctionInfo) -> list[FunctionInfo]:
        out = self._callees.get(id(f))
        if out is not None:
            return out
        out = []
        names_here, attrs, _ = f.refs(self.lines)
        methods = self.methods
        below = self.scopes.subclasses(f.cls) if f.cls is not None else ()
        for attr in attrs:
            own = f.cls.methods.get(attr) if f.cls is not None else None
            out.extend(own if own is not None else methods.get(attr, ()))
            out.extend(self.held.get(attr, ()))
            if own is not None:
                for sub in below:
                    out.extend(sub.methods.get(attr, ()))
        if methods:         # `x.m` may be any class's `m`, but not cold code by its own nature
            for member in f.members(self.lines):
                found = methods.get(member)     # (most members are no method of this file)
                if found is not None and not member.startswith("__"):
                    out.extend(g for g in found if not g.cls.cold and not COLD_FUNC.match(g.name))
        if self.names:
            for name in self.names.intersection(names_here):
                out.extend(self.module_funcs[name])
        mentioned = self.callable_classes.keys() & names_here if self.callable_classes else ()
        if mentioned:
            node = f.node
            text = "\n".join(self.lines[node.lineno - 1:node.end_lineno])
            for name in called_instances(text, self.callable_classes, mentioned):
                out.extend(self.callable_classes[name])
        built = self.constructed.keys() & names_here if self.constructed else ()
        if built:
            node = f.node
            text = "\n".join(self.lines[node.lineno - 1:node.end_lineno])
            for name in constructed(text, built):
                out.extend(self.constructed[name])
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
