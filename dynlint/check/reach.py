"""The reach of model code across files: which functions and methods of the project model code
reaches (calls followed through imports, re-exports, bases, overrides in subclasses and
module-level registries), and which neutral ones only cold code calls.

`resolve` reports the findings each file set aside for its neutral functions (`conditional`)
that model code in other files reaches; `cold_called` drops the functions whose every caller in
the project is cold. Both read the FileFacts of every file of the project (crossfile.py
gathers them) and nothing else.
"""
from __future__ import annotations

from ..project.index import canonical, direct_subclasses, held_along_bases, reexported


def resolve(all_facts, why: dict | None = None) -> list:
    """Findings inside functions that model code in *other* files calls (transitively).

    Each file says which names its model code references and what its module-level functions
    and methods reference; a function becomes model code once a model-code reference reaches
    it. With `why`, each name reached records what reached it (see `_reach`).
    """
    return resolve_both(all_facts, why)[0]


def resolve_both(all_facts, why: dict | None = None, known: tuple | None = None) -> tuple:
    """(resolve's findings, the functions and methods neutral in their files whose every
    caller in the project is cold: `cold_called`). `known`: `reach_and_cold` of facts with the
    same exports, references, classes and re-exports, computed earlier."""
    model, cold = known if known is not None else reach_and_cold(all_facts, why)
    return [finding for facts in all_facts for func, finding in facts.conditional
            if f"{facts.module}.{func}" in model], cold


def reach_and_cold(all_facts, why: dict | None = None) -> tuple:
    """(the names model code reaches, `cold_called`): what the files' exports, model
    references, classes and re-exports say, nothing else (not their summaries, sites or
    conditional findings, which the cross-file step's walks again change)."""
    model = _reach(all_facts, why)
    return model, cold_called(all_facts, model)


def cold_called(all_facts, model: set) -> set:
    """The functions (absolute names) neutral in their file, reached by no model code, whose
    every caller in the project is cold, to a fixed point: the rule that makes a function
    cold in its file when only cold code there calls it (scopes.cold.spread_cold), across
    files. A call counts when a cold function's tree calls the function (`<cold>`: not a
    test, not a name that is weak evidence, see scopes.cold.cold_caller) or when a neutral
    function that is itself cold-called does (its `~name` export); any other mention (model
    code, library code in scope, a callback handed on: `<live>`, a registry: `<module>`)
    keeps it in scope, and so does having no caller at all (public API). A method neutral in
    its file (`^Class.m`) is called by attribute on an object of any class: every `.m(...)`
    of the project counts as its call, every other mention of `.m` in code not cold keeps it
    (nerfstudio's `populate_modules` overrides, which only `Model.__init__` calls)."""
    aliases = _aliases(all_facts)

    chains: dict = {}               # (most references recur across files)

    def names(ref):                 # a name and what the re-exports it goes through stand for
        out = chains.get(ref)
        if out is None:
            hops, out = {}, [ref]
            name = ref
            while (name := _reexported(name, aliases, hops)) is not None:
                out.append(name)
            chains[ref] = out
        return out
    neutral: dict = {}              # name -> what it calls
    methods: set = set()            # the neutral methods (`module.Class.m`)
    mentioned: dict = {}            # name -> the neutral functions that mention it
    called: dict = {}               # name -> the cold callers and neutral functions calling it
    live: set = set()

    def add_calls(caller, refs, module):
        for ref in refs:
            if ref[0] == ".":
                # (".m": a method `m` called by attribute, on an object of any class; a cold
                # call is known by the package it is made from)
                called.setdefault(ref, set()).add(caller or ("<cold>", _package(module)))
                continue
            for target in names(ref):
                called.setdefault(target, set()).add(caller)
    for facts in all_facts:
        module = facts.module
        for name, (is_model, refs) in facts.exports.items():
            if name[0] == "~" or name[0] == "^":
                caller = f"{module}.{name[1:]}"
                neutral[caller] = refs
                if name[0] == "^":
                    methods.add(caller)
                add_calls(caller, refs, module)
            elif name == "<cold>":
                add_calls(None, refs, module)
            elif name in ("<live>", "<module>"):
                for ref in refs:
                    if ref[0] == ".":
                        live.add(ref)
                    else:
                        live.update(names(ref))
            else:
                caller = f"{module}.{name}"
                for ref in refs:
                    for target in names(ref):
                        mentioned.setdefault(target, set()).add(caller)
    cold: set = set()
    candidates = [n for n in neutral if n not in methods and n in called and n not in model
                  and n not in live]
    for name in sorted(methods):
        attr = "." + name.rpartition(".")[2]
        # (not `forward` nor a dunder Python, torch or numpy call without any text of the
        # project: `__getitem__`, `__torch_function__`; a library's own dunder, torch_geometric's
        # `Data.__inc__`, is called by text only, as any method)
        if attr in called and attr not in live and name not in model and \
                not attr.startswith(".forward") and attr[1:] not in _IMPLICIT_DUNDERS:
            candidates.append(name)
    others: dict = {}               # method -> the non-cold-code callers of its attribute
    changed = True
    while changed:
        changed = False
        for name in candidates:
            if name in cold:
                continue
            if name in methods:
                # Every call of a method `m` anywhere in the project (the receiver unknown),
                # but those from within a method `m` (`super().m()`, a recursion): they run
                # only once some `m` is called.
                # Only the cold code of the method's own top-level package says so: a script
                # or library beside it (`bench/`, `examples/`) may call a method of that name
                # on objects of other classes; what it calls without being cold still counts.
                attr = "." + name.rpartition(".")[2]
                package = _package(name)
                own = ("<cold>", package)
                rest = others.get(name)
                if rest is None:
                    rest = others[name] = {c for c in called[attr] if type(c) is not tuple and
                                           not (c in methods and c.endswith(attr))}
                if (own in called[attr] or rest) and \
                        all(c in cold and _package(c) == package for c in rest):
                    cold.add(name)
                    changed = True
                continue
            callers = called[name] - {name}
            if callers and all(c is None or c in cold for c in callers) and \
                    all(c in cold or c == name for c in mentioned.get(name, ())):
                cold.add(name)
                changed = True
    return cold


# Dunders that Python, torch or numpy call with no text of the project naming them: those of
# the builtin types (operators, containers, attribute access, copying, pickling), and the
# protocols below. Any other dunder is a library's own name (torch_geometric's `__inc__`,
# `__cat_dim__`), called by text like any method.
_IMPLICIT_DUNDERS = frozenset(
    n for t in (object, type, int, float, complex, bool, str, bytes, list, tuple, dict, set,
                frozenset, slice, range, property, staticmethod, classmethod, BaseException)
    for n in dir(t) if n.startswith("__")) | frozenset("""
__call__ __enter__ __exit__ __aenter__ __aexit__ __aiter__ __anext__ __await__ __iter__
__next__ __len__ __length_hint__ __contains__ __getitem__ __setitem__ __delitem__ __missing__
__reversed__ __get__ __set__ __delete__ __set_name__ __getattr__ __del__ __index__ __bool__
__copy__ __deepcopy__ __getstate__ __setstate__ __getnewargs__ __getnewargs_ex__ __reduce__
__reduce_ex__ __post_init__ __class_getitem__ __init_subclass__ __fspath__ __matmul__
__rmatmul__ __imatmul__ __iadd__ __isub__ __imul__ __itruediv__ __ifloordiv__ __imod__
__ipow__ __ilshift__ __irshift__ __iand__ __ixor__ __ior__ __round__ __trunc__ __floor__
__ceil__ __instancecheck__ __subclasscheck__ __prepare__ __mro_entries__ __buffer__
__torch_function__ __torch_dispatch__ __tensor_flatten__ __tensor_unflatten__ __array__
__array_function__ __array_ufunc__ __array_wrap__ __array_finalize__ __array_priority__
__dlpack__ __dlpack_device__ __cuda_array_interface__ __array_interface__ __jax_array__
__rich_repr__ __html__ __repr_html__ __signature__ __wrapped__
""".split())


def _package(name: str) -> str:
    return name.partition(".")[0]


def _aliases(all_facts) -> dict:
    return {facts.module: facts.aliases for facts in all_facts if facts.aliases}


_REEXPORT_HOPS = 12     # re-exports followed in a row (a package importing from itself loops)


def _reexported(name: str, aliases: dict, hops: dict) -> str | None:
    """`pkg.utils.f` where `pkg/utils/__init__.py` imports `f` from `pkg.utils.helpers`: the
    name it stands for (`pkg.utils.helpers.f`), else None. `hops` counts the re-exports that
    led to each name, so a chain that grows the name (`pkg.x` -> `pkg.x.y`) ends."""
    n = hops.get(name, 0)
    if n >= _REEXPORT_HOPS:
        return None
    out = reexported(name, aliases)
    if out is not None:
        hops[out] = n + 1
    return out


def _reach(all_facts, why: dict | None) -> set:
    """The names model code reaches across files. With `why`, each name records its
    predecessor: the name that references it, ("model code of", module) for a reference read
    from a file's model code, ("override of", name) for a subclass's override of a method
    `self.m(...)` reached in its base, or ("entry point", why) for an entry point that
    depends on other files (Hierarchy.entry_points). Only `--explain` pays for the record.

    A method is reached as a call through `self` (`self.m(...)` in a method of `C` names
    `C.m`: `m` of `C`, of its bases, and its overrides in `C`'s subclasses), or statically
    (`Base.m(self)`, a held instance's `self.x.m(...)` of a class of another module, what a
    class inherits from its bases): then `m` of that class or its bases only, not the
    overrides in their other subclasses."""
    index = {}
    todo: list = []         # (name, predecessor[, static])
    for facts in all_facts:
        module = facts.module
        todo.extend((ref, ("model code of", module), not _own(ref, module))
                    for ref in facts.model_refs)
        for name, (is_model, refs) in facts.exports.items():
            index[f"{module}.{name}"] = (module, refs)
            if is_model:
                todo.append((f"{module}.{name}", None))
    aliases = _aliases(all_facts)
    classes = Hierarchy(all_facts, aliases)
    todo.extend(classes.entry_points())
    model = set()
    dispatched = set()      # names reached as a call through `self`, not only statically
    hops: dict = {}
    while todo:
        item = todo.pop()
        name, pred = item[0], item[1]
        static = len(item) > 2 and item[2]
        if name in dispatched or (static and name in model):
            continue
        if name.endswith(".__init__") and classes.is_module(name[:-9]) is not False and \
                name[:-9] in classes.classes:
            continue        # a module is built once, at setup: only a plain object's runs here
        model.add(name)
        if not static:
            dispatched.add(name)
        if why is not None and pred is not None:
            why.setdefault(name, pred)
        found = index.get(name)
        if found is not None:
            todo.extend((ref, name, not _own(ref, found[0])) for ref in found[1])
        # Using anything from a module reaches what its module-level registries name.
        todo.append((name.rpartition(".")[0] + ".<module>", name))
        target = _reexported(name, aliases, hops)
        if target is not None:
            todo.append((target, name, static))
        if classes.children or classes.held:
            classes.methods_of(name, todo, static)
    return model


def _own(ref: str, module: str) -> bool:
    """Whether `ref` names a method of a class of `module` (`module.C.m`: what `self.m(...)`
    names in `C`'s methods), which runs the overrides of `C`'s subclasses too."""
    return ref.startswith(module) and ref.count(".", len(module)) == 2 and \
        ref[len(module):len(module) + 1] == "."


class Hierarchy:
    """The project's classes across files, for `self.m(...)` reached in class `C`: `m` is `C`'s
    own, one it inherits (its bases'), or an override in any subclass of `C` (a template
    method: torchmetrics' `Metric.forward` calls `self.update()`, defined by each metric in
    its own file). Subclasses are listed once per class, so a name overridden by hundreds of
    classes costs one pass over them."""

    def __init__(self, all_facts, aliases: dict):
        self.classes: dict = {}     # class -> (bases, method names)
        self.own: dict = {}         # class -> 1: an nn.Module by its own bases, 0: if a base
                                    # is, -1: unknown (scopes.class_facts)
        self.deferred: list = []    # (class, module, {method qualname: also when unknown})
        self.held: dict = {}        # class -> {attribute: [[class held, any subclass's], ...]}
        for facts in all_facts:
            for name, entry in facts.classes.items():
                if type(entry) is not list or len(entry) < 2:
                    continue
                full = f"{facts.module}.{name}"
                bases = [canonical(b, aliases) for b in entry[0] if type(b) is str]
                self.classes[full] = (bases, frozenset(entry[1]))
                if len(entry) >= 4 and entry[2] in (1, 0, -1) and type(entry[3]) is dict:
                    self.own[full] = entry[2]
                    if entry[3]:
                        self.deferred.append((full, facts.module, entry[3]))
                if len(entry) >= 6 and type(entry[5]) is dict:
                    self.held[full] = entry[5]
        # class -> direct subclasses (bases are canonical already: the map adds no hop)
        self.aliases = aliases
        self.children: dict = direct_subclasses(
            ((name, bases) for name, (bases, _) in self.classes.items()), aliases)
        self._below: dict = {}
        self._by_name: dict = {}    # class -> {method name: subclasses defining it}
        self._module: dict = {}

    def is_module(self, cls: str, depth: int = 0):
        """Whether the project's class `cls` is an nn.Module, directly or through its bases in
        other files: True, False (every base known, none a module), or None (a base the
        project cannot tell about)."""
        if cls in self._module:
            return self._module[cls]
        own = self.own.get(cls)
        if own is None or depth > _REEXPORT_HOPS:
            return None
        self._module[cls] = None            # (a cycle in broken code: unknown)
        found = True if own == 1 else (None if own == -1 else False)
        if found is not True:
            for base in self.classes[cls][0]:
                state = self.is_module(base, depth + 1)
                if state is True:
                    found = True
                    break
                if state is None:
                    found = None
        self._module[cls] = found
        return found

    def entry_points(self) -> list:
        """The entry points the scopes pre-pass left to this step (ClassInfo.deferred): of a
        class that is a module through a base in another file, its `forward`, `__call__`,
        `forward_*`, step methods; of one whose bases stay unknown, its `forward` (as a
        file alone judges it); of one known to be no module, none: its `forward` is model
        code only if something reachable calls it."""
        out = []
        for cls, module, methods in self.deferred:
            state = self.is_module(cls)
            for qualname, when_unknown in methods.items():
                if state is True or (state is None and when_unknown):
                    why = "an nn.Module through its bases" if state else "its bases are unknown"
                    out.append((f"{module}.{qualname}", ("entry point", why)))
        return out

    def _descendants(self, cls: str) -> list:
        out = self._below.get(cls)
        if out is None:
            out, seen, todo = [], {cls}, [cls]
            while todo:
                for child in self.children.get(todo.pop(), ()):
                    if child not in seen:
                        seen.add(child)
                        out.append(child)
                        todo.append(child)
            self._below[cls] = out
        return out

    def methods_of(self, name: str, todo: list, inherited: bool = False) -> None:
        """Adds to `todo` what reaching `Class.m` also reaches: the base's `m` when the class
        does not define it, and each subclass's override. A base's `m` reached only as what
        `Class` inherits (`inherited`) runs for `Class` and its subclasses, not for the base's
        other subclasses: their overrides are not reached through it (a model's `__call__`
        found in a mixin it shares with pipelines does not reach the pipelines' `__call__`)."""
        owner, _, attr = name.rpartition(".")
        entry = self.classes.get(owner)
        if entry is None and attr == "__call__" and self.held:
            self._held_call(owner, name, todo)
            return
        if entry is not None and attr not in entry[1]:
            todo.extend((f"{base}.{attr}", name, True) for base in entry[0])
        if not inherited and owner in self.children:
            for sub in self._overrides(owner).get(attr, ()):
                todo.append((f"{sub}.{attr}", ("override of", name)))

    def _held_call(self, owner: str, name: str, todo: list) -> None:
        """`Class.attr.__call__` (`self.bm(t0, t1)` in a method of `Class`): the `__call__` of
        what `Class` or its bases store in `attr`; of a class declared (`bm: BaseBrownian`),
        every override in its subclasses too, as any of their instances may be held."""
        cls, _, attr = owner.rpartition(".")
        for target, dispatch in held_along_bases(self.held, self.classes, cls, attr, self.aliases):
            todo.append((f"{target}.__call__", name) if dispatch else
                        (f"{target}.__call__", name, True))

    def _overrides(self, cls: str) -> dict:
        """Method name -> the subclasses of `cls` that define it: built once per class, as a
        base such as a library's `PreTrainedModel` has thousands of subclasses and many of
        its methods are reached."""
        out = self._by_name.get(cls)
        if out is None:
            out = self._by_name[cls] = {}
            for sub in self._descendants(cls):
                for attr in self.classes[sub][1]:
                    out.setdefault(attr, []).append(sub)
        return out
