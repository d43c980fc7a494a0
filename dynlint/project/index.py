"""The project index of function summaries: what functions and methods of each module return,
by absolute name, and how to find a method a class inherits from a class of another module.

Each file's walk exports the return summaries worth telling other files (a tensor, a bool mask,
a host value, a tuple holding one: `LocalCalls.exported`) and the absolute names of the calls it could
not follow (`demands`: `pkg.box_utils.clip_boxes`, `pkg.aug._2d.base.Rigid2D._gate` for a
`self._gate(...)` inherited through `Rigid2D`). The index answers a demand by name; a method
not found on its class is looked up along the class's bases (`classes`, read by the scopes
pre-pass of every file of the project) and through a package's re-exports (`aliases`).
Kinds are opaque here: the index only stores and moves them.
"""
from __future__ import annotations

_DEPTH = 12         # bases and re-exports followed, at most (cycles in broken code end here)
# torch.nn.Module's own methods (and the usual ones of torch.nn's layers): calling one of these
# through `self` runs torch's code, not an attribute the object holds.
_MODULE_API = frozenset("""
add_module apply bfloat16 buffers children compile cpu cuda double eval extra_repr float forward
get_buffer get_extra_state get_parameter get_submodule half ipu load_state_dict modules mtia
named_buffers named_children named_modules named_parameters parameters register_backward_hook
register_buffer register_forward_hook register_forward_pre_hook register_full_backward_hook
register_full_backward_pre_hook register_load_state_dict_post_hook register_module
register_parameter register_state_dict_pre_hook requires_grad_ set_extra_state set_submodule
share_memory state_dict to to_empty train type xpu zero_grad reset_parameters _apply _get_name
_named_members _load_from_state_dict _save_to_state_dict _call_impl _wrapped_call_impl
_conv_forward _check_input_dim _register_state_dict_hook _register_load_state_dict_pre_hook
""".split())


class Index:
    def __init__(self, all_facts):
        self.returns: dict = {}
        self.classes: dict = {}
        self.zero_d: dict = {}      # `module.Class.method` -> parameters declared `int | Tensor`
        self.aliases: dict = {}
        self.held: dict = {}        # class -> {attribute: [[class held, any subclass's], ...]}
        self.wrappers: dict = {}    # class -> {method registering a buffer: [name at, value at]}
        self.module_flags: dict = {}  # class -> 1 an nn.Module by its own bases, -1 unknown, 0
        self.modules: set = set()
        self._answers: dict = {}    # lookup's answers until a file's summaries change
        self._all = list(all_facts)  # every file of the project (their imports do not change)
        self._importers = None
        self._defined: dict = {}    # definition's and importers' answers (they never change)
        for facts in self._all:
            module = facts.module
            self.modules.add(module)
            for name, kind in facts.returns.items():
                self.returns[f"{module}.{name}"] = kind
            for name, entry in facts.classes.items():
                if type(entry) is list and len(entry) >= 2:
                    # A set: `attr in methods` runs for every base of every lookup.
                    self.classes[f"{module}.{name}"] = (entry[0], frozenset(entry[1]))
                if type(entry) is list and len(entry) >= 3 and type(entry[2]) is int:
                    self.module_flags[f"{module}.{name}"] = entry[2]
                if type(entry) is list and len(entry) >= 5 and type(entry[4]) is dict:
                    for method, params in entry[4].items():
                        self.zero_d[f"{module}.{name}.{method}"] = frozenset(params)
                if type(entry) is list and len(entry) >= 6 and type(entry[5]) is dict and entry[5]:
                    self.held[f"{module}.{name}"] = entry[5]
                if type(entry) is list and len(entry) >= 7 and type(entry[6]) is dict:
                    self.wrappers[f"{module}.{name}"] = entry[6]
            if facts.aliases:
                self.aliases[module] = facts.aliases

    def replace(self, old, new) -> None:
        """A file walked again: its return summaries are now `new`'s."""
        for name in old.returns:
            self.returns.pop(f"{old.module}.{name}", None)
        for name, kind in new.returns.items():
            self.returns[f"{new.module}.{name}"] = kind
        self._answers.clear()

    def lookup(self, key: str):
        """The summary of what `key` returns, or None."""
        # Many keys share the bases they are looked up along (every model's `PreTrainedModel`).
        if key in self._answers:
            return self._answers[key]
        found = self._answers[key] = self._lookup(key)
        return found

    def _lookup(self, key: str):
        # The summary kept under the name of what `key` runs (see `definition`): the walk
        # along bases and re-exports is the same, only the summaries change between rounds.
        found = self.returns.get(key)
        if found is not None:
            return found
        where = self.definition(key)
        return None if where is None else self.returns.get(where)

    def _defines(self, owner: str, attr: str, depth: int = 0) -> bool:
        """Whether class `owner` or one of its bases of the project defines `attr`."""
        entry = self.classes.get(owner)
        if entry is None or depth > _DEPTH:
            return False
        return attr in entry[1] or any(type(b) is str and self._defines(b, attr, depth + 1)
                                       for b in entry[0])

    def buffer_wrappers(self, owner: str) -> dict:
        """The buffer-registering methods (attributes.buffer_wrapper) that class `owner` has
        from its bases of other modules: method -> [name position, value position]."""
        out: dict = {}
        if not self.wrappers:
            return out
        todo, seen = [owner], set()
        while todo and len(seen) < _DEPTH:
            c = canonical(todo.pop(0), self.aliases)
            entry = self.classes.get(c)
            if c in seen or entry is None:
                continue
            seen.add(c)
            if c != owner:
                for method, at in self.wrappers.get(c, {}).items():
                    out.setdefault(method, at)
            todo += [b for b in entry[0] if type(b) is str]
        return out

    def definition(self, key: str) -> str | None:
        """Where what `key` names is defined: `module.function` or `module.Class.method`
        (along a class's bases, through re-exports, a module's `__call__` to its `forward`),
        or None where the project does not say. (Classes and re-exports never change.)"""
        found = self._defined.get(key, self._defined)
        if found is self._defined:
            found = self._defined[key] = self._definition(key, 0)
        return found

    def _definition(self, key: str, depth: int) -> str | None:
        if depth > _DEPTH:
            return None
        owner, _, attr = key.rpartition(".")
        if attr == "__call__" and not self._defines(owner, attr):
            return self._definition(owner + ".forward", depth + 1)
        entry = self.classes.get(owner)
        if entry is not None:
            if attr in entry[1]:
                return key
            for base in entry[0]:
                if type(base) is str:
                    found = self._definition(f"{base}.{attr}", depth + 1)
                    if found is not None:
                        return found
            return None
        target = reexported(key, self.aliases)
        if target is not None:
            return self._definition(target, depth + 1)
        return key if self.module_of(key, self.modules) is not None else None

    def module_attribute(self, key: str) -> bool:
        """Whether `module.Class.x`, called as `self.x(...)`, is an attribute of an `nn.Module`
        and no method: every class along `Class`'s bases is of the project (their methods are
        all known), none defines `x`, and one is a module by its own bases (torch's
        `nn.Module`, whose own API is left out). What a module holds and calls is a submodule
        or a tensor function (pytorch-metric-learning's `self.distance(emb, ref)`, stored by a
        base of another file)."""
        found = self._defined.get(("attribute", key))
        if found is None:
            found = self._defined[("attribute", key)] = self._module_attribute(key)
        return found

    def _module_attribute(self, key: str) -> bool:
        owner, _, attr = key.rpartition(".")
        if not owner or attr.startswith("__") or attr in _MODULE_API:
            return False
        module, seen, todo = False, set(), [canonical(owner, self.aliases)]
        while todo:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            entry = self.classes.get(c)
            flag = self.module_flags.get(c, -1)
            if entry is None or flag < 0 or attr in entry[1] or len(seen) > _DEPTH:
                return False
            module = module or flag == 1
            todo.extend(canonical(b, self.aliases) if type(b) is str else "" for b in entry[0])
        return module

    def held_calls(self, key: str) -> tuple:
        """What a call of an attribute runs (`self.bm(t0, t1)`: `module.Class.bm`, as the
        caller names it): the `__call__` (a module's `forward`) of each class that `Class` or
        its bases store in `bm`, and for a class declared (`bm: BaseBrownian`) the override in
        each of its subclasses too (any of their instances may be held). () when none."""
        found = self._defined.get(("held", key))
        if found is None:
            found = self._defined[("held", key)] = self._held_calls(key) if self.held else ()
        return found

    def _held_calls(self, key: str) -> tuple:
        owner, _, attr = key.rpartition(".")
        out = []
        for target, dispatch in held_along_bases(self.held, self.classes, owner, attr,
                                                 self.aliases):
            for c in [target, *(self._descendants(target) if dispatch else ())]:
                where = self.definition(f"{c}.__call__") if c == target or \
                    "__call__" in self.classes.get(c, ((), ()))[1] else None
                if where is not None and where not in out:
                    out.append(where)
        return tuple(out)

    def overrides(self, key: str) -> tuple:
        """`module.Class.m` called through `self` in `Class`: the `m` of each subclass of
        `Class` that defines one (its own: a template method's hooks)."""
        found = self._defined.get(("overrides", key))
        if found is None:
            owner, _, attr = key.rpartition(".")
            owner = canonical(owner, self.aliases)
            # (and a method a subclass stores under the name: `self.step = self.additive_step`)
            found = self._defined[("overrides", key)] = tuple(
                f"{c}.{m}" for c in self._descendants(owner)
                for m in [attr, *(t[1:] for t, _ in self.held.get(c, {}).get(attr, ())
                                  if t[0] == ".")]
                if m in self.classes.get(c, ((), ()))[1])
        return found

    def base_modules(self, cls: str) -> set:
        """The modules defining the project's bases of `cls` (at any depth)."""
        found = self._defined.get(("bases", cls))
        if found is None:
            found, seen, todo = set(), {cls}, [(cls, 0)]
            while todo:
                c, depth = todo.pop()
                for b in self.classes.get(c, ((), ()))[0]:
                    b = canonical(b, self.aliases) if type(b) is str else None
                    if b is not None and b not in seen and depth <= _DEPTH:
                        seen.add(b)
                        todo.append((b, depth + 1))
                        m = self.module_of(b, self.modules)
                        if m is not None:
                            found.add(m)
            self._defined[("bases", cls)] = found
        return found

    def holders(self, cls: str) -> list:
        """The classes whose attributes may hold an instance of the project's class `cls`
        (exactly, or as a subclass of a class declared there): `(holder, attribute)`."""
        table = self._defined.get("holders")
        if table is None:
            table = self._defined["holders"] = {}
            for holder, attrs in self.held.items():
                for attr, found in attrs.items():
                    for target, dispatch in found:
                        if target[0] == ".":
                            continue
                        target = canonical(target, self.aliases)
                        for c in [target, *(self._descendants(target) if dispatch else ())]:
                            table.setdefault(c, []).append((holder, attr))
        return table.get(cls, [])

    def _descendants(self, cls: str) -> list:
        children = self.children
        out, seen, todo = [], {cls}, [(cls, 0)]
        while todo:
            c, depth = todo.pop()
            for sub in children.get(c, ()):
                if sub not in seen and depth <= _DEPTH:
                    seen.add(sub)
                    out.append(sub)
                    todo.append((sub, depth + 1))
        return out

    def importers(self, module: str, name: str) -> frozenset:
        """The modules of the project that import `module` or its `name` (directly or
        through re-exports): those that can call what `module` defines under `name`."""
        if self._importers is None:
            self._importers = {}
            aliases = self.aliases
            for facts in self._all:
                for imported in facts.imports:
                    for _ in range(_DEPTH):
                        self._importers.setdefault(imported, set()).add(facts.module)
                        # (an import names a package's re-export by its last part)
                        imported = reexported(imported, aliases) \
                            if imported.rpartition(".")[0] in aliases else None
                        if imported is None:
                            break
        found = self._defined.get((module, name))
        if found is None:
            found = self._defined[(module, name)] = frozenset(
                (self._importers.get(module, set()) |
                 self._importers.get(f"{module}.{name}", set())) - {module})
        return found

    @property
    def zero_d_by_method(self) -> dict:
        """`zero_d` by method name: `method` -> {class: parameters} (never changes)."""
        found = self._defined.get("zero_d by method")
        if found is None:
            found = self._defined["zero_d by method"] = {}
            for key, params in self.zero_d.items():
                cls, _, method = key.rpartition(".")
                found.setdefault(method, {})[cls] = params
        return found

    @property
    def children(self) -> dict:
        """Class -> its direct subclasses in the project (`direct_subclasses`)."""
        found = self._defined.get("children")
        if found is None:
            found = self._defined["children"] = direct_subclasses(
                ((name, bases) for name, (bases, _) in self.classes.items()), self.aliases)
        return found

    def subclass_importers(self, cls: str) -> frozenset:
        """The modules that import a subclass of the project's class `cls` (at any depth):
        a method `cls` defines runs for instances of its subclasses too, which such a module
        may build and call (`SOLVERS[method](...).integrate(t)` with `Dopri5Solver`, whose
        `integrate` a base of another module defines)."""
        key = ("subclasses", cls)
        found = self._defined.get(key)
        if found is not None:
            return found
        out: set = set()
        for sub in self._descendants(cls):
            module = self.module_of(sub, self.modules)
            if module is not None:
                out |= self.importers(module, sub[len(module) + 1:])
        found = self._defined[key] = frozenset(out)
        return found

    def module_of(self, key: str, candidates) -> str | None:
        """The longest prefix of `key` that names a module among `candidates`."""
        parts = key.split(".")
        for i in range(len(parts) - 1, 0, -1):
            name = ".".join(parts[:i])
            if name in candidates:
                return name
        return None

    def needed(self, key: str, candidates, out: set, depth: int = 0) -> None:
        """Modules among `candidates` whose summaries a lookup of `key` would read: the module
        that defines it, those along its class's bases, and through re-exports."""
        if depth > _DEPTH:
            return
        module = self.module_of(key, candidates)
        if module is not None:
            out.add(module)
        owner, _, attr = key.rpartition(".")
        if attr == "__call__" and not self._defines(owner, attr):
            self.needed(owner + ".forward", candidates, out, depth + 1)
        entry = self.classes.get(owner)
        if entry is not None and attr not in entry[1]:
            for base in entry[0]:
                if type(base) is str:
                    self.needed(f"{base}.{attr}", candidates, out, depth + 1)
        target = reexported(key, self.aliases)
        if target is not None:
            self.needed(target, candidates, out, depth + 1)


def held_along_bases(held: dict, classes: dict, cls: str, attr: str, aliases: dict) -> list:
    """[(class, any subclass's)] that the project's class `cls` or its bases store in `attr`
    (the class facts' held map, `scopes/held.py`; a method stored there, `.m`, left out)."""
    out, seen, todo = [], set(), [canonical(cls, aliases)]
    while todo and len(seen) <= _DEPTH:
        c = todo.pop()
        if c in seen:
            continue
        seen.add(c)
        for target, dispatch in held.get(c, {}).get(attr, ()):
            if target[0] != ".":
                out.append((canonical(target, aliases), dispatch))
        entry = classes.get(c)
        if entry is not None:
            todo.extend(canonical(b, aliases) for b in entry[0] if type(b) is str)
    return out


def canonical(name: str, aliases: dict) -> str:
    """A class named through a package's re-exports (`pkg.Metric`): where it is defined."""
    for _ in range(_DEPTH):
        target = reexported(name, aliases)
        if target is None:
            break
        name = target
    return name


def direct_subclasses(classes, aliases: dict) -> dict:
    """Class -> its direct subclasses, from `(class, bases)` pairs of the project (absolute
    names; bases that are not names are skipped), each base taken where it is defined. The
    one map the cross-file step reads subclasses from: overrides reached through a base, the
    importers of subclasses, sibling classes."""
    out: dict = {}
    where: dict = {}        # base as named -> where it is defined (most bases recur)
    for name, bases in classes:
        for base in bases:
            if type(base) is str:
                defined = where.get(base)
                if defined is None:
                    defined = where[base] = canonical(base, aliases)
                out.setdefault(defined, []).append(name)
    return out


def reexported(name: str, aliases: dict) -> str | None:
    """`pkg.utils.f` where `pkg/utils/__init__.py` imports `f` from `pkg.utils.helpers` (by
    module, `aliases` maps a package's names to what they stand for): `pkg.utils.helpers.f`,
    else None."""
    end = len(name)        # name[:end] is `package.attr`, name[end:] what follows it
    while True:
        dot = name.rfind(".", 0, end)
        if dot <= 0:
            return None
        table = aliases.get(name[:dot])
        if table:
            target = table.get(name[dot + 1:end])
            if type(target) is str and target != name[:end]:
                return target + name[end:]
        end = dot
