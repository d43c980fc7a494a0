"""Across files: resolving relative imports, what a module exports to the cross-file step
(what its functions refer to, what its classes hold) and the project modules it imports."""
from __future__ import annotations

import ast
import re

from ..annotations import annotation_kind
from ..kinds import SCALAR
from ..roles import Role
from ..statements import child_nodes
from .cold import cold_caller
from .info import TOKEN_TABLE, ClassInfo, FunctionInfo, Scopes
from .held import held_attributes
from .naming import STDLIB, called_instances, constructed


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


def cross_file_facts(scopes: Scopes, lines: list[str], module: str, is_package: bool,
                     tree: ast.Module | None = None):
    """What other files need to follow calls into and out of this one.

    Returns (exports, model_refs): for each module-level function, whether it is model code
    here and the absolute names it references; and the absolute names referenced from this
    file's model code. Names are read from function text, like in-file reachability. Aside,
    for `cold_called` (check/crossfile.py), from the `tree`: what each neutral function calls
    (`~name`), what cold code and import-time code call (`<cold>`), and what they name
    without calling (`<live>`).
    """
    aliases = {a: resolve_import(t, module, is_package) for a, t in scopes.imports.items()}
    local = {f.name for f in scopes.order if f.cls is None and f.parent is None}
    if not aliases and not local:
        return {}, frozenset()
    wanted = frozenset(aliases) | local
    # names that may stand for a class whose instance a function calls (`bm(t0, t1)`): the
    # imported ones, and this file's classes with a `__call__`
    # (an alias of torch, numpy or the standard library names no class of the project)
    callable_here = frozenset(a for a, t in aliases.items() if _project(t) is not None) | \
        {n for n, c in scopes.classes.items() if "__call__" in c.methods}

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
        mentioned = callable_here & names
        if mentioned:
            # `bm = Interval(...)`, then `bm(t0, t1)`: the class's `__call__` runs here.
            node = f.node
            text = "\n".join(lines[node.lineno - 1:node.end_lineno])
            for name in called_instances(text, callable_here, mentioned):
                out.add((aliases[name] if name in aliases else f"{module}.{name}") + ".__call__")
            # `Interval(ts[0], ts[-1])`: its `__init__` runs here, if the project's class is no
            # nn.Module (reach.Hierarchy decides; an imported function has no `__init__`)
            for name in constructed(text, callable_here.intersection(aliases, names)):
                out.add(aliases[name] + ".__init__")
                out.add(aliases[name] + ".__post_init__")   # (a dataclass's: naming.constructed_classes)
        return out

    exports = {}
    # Module-level code (registries such as {"sdpa": sdpa_mask}, class-level tables) counts
    # as a function "<module>": once model code uses the module, what it names is reachable.
    # Docstrings of the module and its classes are prose: a class documenting
    # ":meth:`~Data.__inc__`" hands no method on; their doctests (`>>> optimizer.step()`)
    # are code, the calls a user of the API makes.
    prose = _docstring_prose(tree, lines)
    pieces, next_line = [], 1
    for start, end in sorted((f.node.lineno, f.node.end_lineno) for f in scopes.order
                             if f.parent is None):
        pieces += [lines[i] for i in range(next_line - 1, start - 1) if i not in prose]
        next_line = max(next_line, end + 1)
    pieces += [lines[i] for i in range(next_line - 1, len(lines)) if i not in prose]
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
    calls = _CallRefs(module, aliases, local, lines)
    cold_calls: set = set()
    # Methods are called by attribute (`self.m()`, `super().m()`, `x.m()`) on objects of
    # any class: ".m" stands for every method `m` of the project. Cold callers give the
    # attributes they call; any other code, what its text names after a dot (`<live>`).
    live_attrs = {"." + a for a in _dotted_attrs(
        "\n".join(ln.partition("#")[0] for ln in outside.splitlines()) if "#" in outside else outside)}
    for f in scopes.order:
        unit = f.parent is None         # a module-level function or a method
        if not unit:
            pass
        elif f.role == Role.NEUTRAL or id(f) in soft:
            # (what cold_called may drop; a soft-cold function, cold here only for want of a
            # caller that is not cold, is one link of a chain: cold_called decides it as it
            # decides a neutral one, so what only it calls is cold through it, `_collate` ->
            # `get_incs` -> `Data.__inc__`, and in scope when another file's code calls it)
            exports[("~" if f.cls is None else "^") + f.qualname] = (
                False, frozenset(calls.of(f) | _attr_refs(f, lines)))
        elif f.role == Role.COLD and id(f) not in soft and cold_caller(f, scopes):
            cold_calls |= calls.of(f) | calls.attr_calls(f)
        else:
            live_attrs |= _attr_refs(f, lines)
        if f.steps:         # a training step is an end: what it calls is no model code for it
            if unit:
                exports[f.qualname] = (True, frozenset())
        elif f.role == Role.MODEL and (f.parent is None or f.parent.role != Role.MODEL):
            refs = refs_of(f) | _self_refs(f, lines, module, stored, aliases, scopes.classes)
            model_refs |= refs
            if unit:
                exports[f.qualname] = (True, frozenset(refs))
        elif unit and (f.role == Role.NEUTRAL or id(f) in soft):
            exports[f.qualname] = (False, frozenset(refs_of(f) | _self_refs(f, lines, module, stored, aliases, scopes.classes)))
    for f in scopes.order:
        # (an evaluation step is in scope whoever calls it: its inference loop, cold, runs
        # it on every batch; `scopes.reach._evaluation_steps`)
        if id(f) in scopes.eval_steps:
            if f.cls is not None:
                live_attrs.add("." + f.name)
            else:
                calls.live.add(module + "." + f.name)
    if tree is not None and scopes.test_module is None:
        cold_calls |= calls.at_import(tree.body)
    if cold_calls:
        exports["<cold>"] = (False, frozenset(cold_calls))
    if calls.live or live_attrs:
        exports["<live>"] = (False, frozenset(calls.live | live_attrs))
    return exports, frozenset(model_refs)


# `.m(` (a call by attribute) and `.m` not followed by `(` (named: stored, handed on, read).
_ATTR_CALLED = re.compile(r"\.\s*([A-Za-z_]\w*)\s*\(")
_ATTR_NAMED = re.compile(r"\.\s*([A-Za-z_]\w*)\b(?!\s*\()")


def _code_text(f: FunctionInfo, lines: list[str]) -> str:
    """A function's text without its comments."""
    return "\n".join(ln.partition("#")[0] if "#" in ln else ln
                     for ln in lines[f.node.lineno - 1:f.node.end_lineno])


def _attr_refs(f: FunctionInfo, lines: list[str]) -> set:
    """".m" for each attribute a function's code names (`self.m`, `x.y.m`, `super().m`):
    the methods it may call or hand on. Not in comments (`# call super().populate()`)."""
    attrs = f.refs(lines)[1] | f.members(lines)
    if not attrs:
        return set()
    notes = [ln[ln.index("#"):] for ln in lines[f.node.lineno - 1:f.node.end_lineno] if "#" in ln]
    if notes and not _dotted_attrs("\n".join(notes)).isdisjoint(attrs):
        attrs = _dotted_attrs(_code_text(f, lines))
    return {"." + a for a in attrs if a}


def _docstring_prose(tree, lines: list[str]) -> set:
    """The indexes in `lines` of the string statements of the module and its class bodies, at
    any depth of classes, but their doctest lines (`>>>`, `...`)."""
    out, todo = set(), list(tree.body) if tree is not None else []
    while todo:
        n = todo.pop()
        if type(n) is ast.ClassDef:
            todo.extend(n.body)
        elif type(n) is ast.Expr and type(n.value) is ast.Constant and type(n.value.value) is str:
            out.update(i for i in range(n.lineno - 1, min(n.end_lineno, len(lines)))
                       if not lines[i].lstrip().startswith((">>>", "...")))
    return out


def _dotted_attrs(text: str) -> set:
    """The attribute names of dotted names in `text` (module-level code, class bodies)."""
    out = set()
    for tok in set(text.translate(TOKEN_TABLE).split()):
        if "." in tok:
            out.update(tok.split(".")[1:])
    out.discard("")
    return out


# Statements whose children are statements run at import when they are at module level.
_BLOCKS = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
                     getattr(ast, "TryStar", ast.Try)})


class _CallRefs:
    """What a function calls (absolute names), read from its tree, not its text: a name in a
    comment or docstring calls nothing. What it names without calling (a callback handed on,
    `self.act = gelu`, a decorator) may run anywhere: gathered in `live`."""

    def __init__(self, module: str, aliases: dict, local: set, lines: list[str]):
        self.module, self.aliases, self.local, self.lines = module, aliases, local, lines
        # (an alias of torch, numpy or the standard library never names a project function,
        # nor does any attribute of it: `_project`)
        self.wanted = frozenset(a for a, t in aliases.items() if _project(t) is not None) | local
        self.live: set = set()

    def _name(self, node):
        if type(node) is ast.Name:
            if node.id in self.aliases:
                return _project(self.aliases[node.id])
            if node.id in self.local:
                return f"{self.module}.{node.id}"
        elif type(node) is ast.Attribute and type(node.value) is ast.Name and \
                node.value.id in self.aliases:
            return _project(f"{self.aliases[node.value.id]}.{node.attr}")
        return None

    def at_import(self, body) -> set:
        """What module-level code and class bodies call (a constant built at import, a
        script's `main()`, a registration), and the defaults and decorators of functions:
        once, at import."""
        roots, todo = [], list(body)
        while todo:
            n = todo.pop()
            t = type(n)
            if t is ast.FunctionDef or t is ast.AsyncFunctionDef:
                roots += [p for p in (*n.decorator_list, *n.args.defaults, *n.args.kw_defaults)
                          if p is not None]
            elif t is ast.ClassDef:
                roots += (*n.decorator_list, *n.bases, *n.keywords)
                todo.extend(n.body)
            elif t in _BLOCKS or t is ast.ExceptHandler:
                todo.extend(child_nodes(n))
            else:
                roots.append(n)
        return self._calls(roots)

    def attr_calls(self, f: FunctionInfo) -> set:
        """".m" for each method a cold function calls by attribute (`self.populate()`,
        `x.m()`); an attribute it names without calling (`self.cb = self.m`, a hook handed
        on) may run anywhere: `live`. Read from the code's text, comments aside (a regex
        is several times faster than walking the tree of every cold function)."""
        code = _code_text(f, self.lines)
        for name in _ATTR_NAMED.findall(code):
            self.live.add("." + name)
        return {"." + name for name in _ATTR_CALLED.findall(code)}

    def of(self, f: FunctionInfo) -> set:
        # Only names of `wanted` give anything (`_name`): a function whose text names none of
        # them (its decorators, above its text, aside) needs no walk of its tree.
        if not f.node.decorator_list and self.wanted.isdisjoint(f.refs(self.lines)[0]):
            return set()
        return self._calls([f.node])

    def _calls(self, roots: list) -> set:
        """What the trees under `roots` call (`_name` of each call's callee); the names and
        attributes they mention without calling (neither a call's callee nor an attribute's
        object, `_name` of them) go to `live`. One pass down the trees: a callee or an
        attribute's object is left out by its parent (a node has one), so the chain below
        is only searched for the calls and names inside it (`f(x).y`, `a[i].m()`)."""
        out, live = set(), self.live
        name_of = self._name
        Name, Attribute, Call = ast.Name, ast.Attribute, ast.Call
        todo = list(roots)
        pop, push = todo.pop, todo.append
        while todo:
            n = pop()
            t = type(n)
            if t is Call:
                f = n.func
                name = name_of(f)
                if name is not None:
                    out.add(name)
                if type(f) is Attribute:
                    while type(f) is Attribute:
                        f = f.value
                    if type(f) is not Name:
                        push(f)
                elif type(f) is not Name:
                    push(f)
                todo += n.args
                todo += n.keywords
            elif t is Name:
                name = name_of(n)
                if name is not None:
                    live.add(name)
            elif t is Attribute:
                v = n.value
                if type(v) is Name:
                    name = name_of(n)
                    if name is not None:
                        live.add(name)
                else:
                    while type(v) is Attribute:
                        v = v.value
                    if type(v) is not Name:
                        push(v)
            else:
                todo += child_nodes(n)
        return out


def _project(name: str) -> str | None:
    """`name`, unless it is surely of a library the project uses (torch, numpy, the standard
    library): nothing there is dropped, so the facts need not carry it."""
    return None if (name + ".").startswith(_NOT_PROJECT) or name.partition(".")[0] in STDLIB \
        else name


# `self.x = ...` / `self.x: T = ...`: an attribute the class stores, no method it calls.
_STORED_ATTR = re.compile(r"self\.(\w+)\s*(?::[^=\n]*)?=(?!=)")


def _self_refs(f: FunctionInfo, lines: list[str], module: str, stored: dict,
               aliases: dict, classes: dict) -> set:
    """`module.Class.m` for each `self.m` a method names that its class does not store: the
    cross-file step follows it to `m` of the class, of its bases, and to the overrides of `m`
    in subclasses in other files (reach.Hierarchy)."""
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
    out = {f"{owner}.{a}" for a in attrs if a not in held and not a.startswith("__")}
    holds = stored.get((id(cls), "held"))
    if holds is None:
        holds = stored[(id(cls), "held")] = _held_classes(cls, lines, module, aliases, classes)
    if not holds.keys().isdisjoint(attrs) or not held.issuperset(attrs):
        text = "\n".join(lines[f.node.lineno - 1:f.node.end_lineno])
        for attr, method in _HELD_CALL.findall(text):
            targets = holds.get(attr, {})
            if not method and attr not in cls.methods and (
                    attr not in held or any(d and t[0] != "." for t, d in targets.items())):
                # `self.bm(t0, t1)` where a base stores `self.bm` (in another file), or where
                # `bm: BaseBrownian` is stored: the cross-file step reads what the class or its
                # bases hold there (`class_facts`), any subclass's `__call__` for a declared one.
                out.add(f"{owner}.{attr}.__call__")
            for target, dispatch in targets.items():
                if target[0] == ".":
                    continue
                # `self.selector.select(...)`, `self.metric(...)` where `self.selector =
                # Selector(...)` holds an instance of a class of this or another file: its
                # method runs here.
                if not dispatch:
                    out.add(f"{target}.{method or '__call__'}")
    return out


# `self.x.m(` or `self.x(`: a call of what the attribute holds.
_HELD_CALL = re.compile(r"self\.(\w+)(?:\.(\w+))?\s*\(")


def _held_classes(cls: ClassInfo, lines: list[str], module: str, aliases: dict,
                  classes: dict) -> dict:
    """attribute -> {absolute name of a class (of this file, or imported) whose instances the
    class's methods store in it: whether any subclass's may be held (see held.py)}."""
    out: dict = {}

    def qualname(node):
        parts = []
        while type(node) is ast.Attribute:
            parts.append(node.attr)
            node = node.value
        if type(node) is not ast.Name or node.id not in aliases and node.id not in classes:
            return None
        return ".".join([node.id, *reversed(parts)])
    for attr, found in held_attributes(cls, lines, qualname).items():
        for name, dispatch in found.items():
            if name[0] == ".":          # a method of the class stored under `attr`
                out.setdefault(attr, {})[name] = True
                continue
            head, dot, rest = name.partition(".")
            target = aliases[head] + dot + rest if head in aliases else (
                f"{module}.{name}" if name in classes else None)
            if target is not None and _project(target) is not None:
                held = out.setdefault(attr, {})
                held[target] = held.get(target, False) or dispatch
    return out


def class_facts(scopes: Scopes, module: str, is_package: bool, source: list | None = None):
    """(classes, aliases) for method lookups across files (project/index.py): each class
    deriving from a class of another module, with its absolute bases and the names of its
    methods; and, for a package's `__init__`, what it re-exports (name -> absolute name)."""
    classes = {}
    imported = {a: resolve_import(t, module, is_package) for a, t in scopes.imports.items()}
    for name, cls in scopes.classes.items():
        bases = [f"{module}.{b}" if b in scopes.classes else resolve_import(b, module, is_package)
                 for b in cls.bases if b and not b.startswith(_NOT_PROJECT) and b != "object"]
        # [bases, methods, whether an nn.Module by its own bases (1), or not (0: then it is
        # one if a base is), entry points that depend on it (ClassInfo.deferred)]: every
        # class, so that a base-less one is known to be no module (reach.Hierarchy).
        # (-1: a base none of the project's files can tell about: a call, numpy's...)
        unlisted = cls.module_state is None and any(
            not b or b.startswith(_NOT_PROJECT) for b in cls.bases)
        classes[name] = [bases, sorted(cls.methods),
                         1 if cls.is_module else (-1 if unlisted else 0),
                         dict(sorted(cls.deferred.items())), _zero_d_params(cls)]
        if source is not None and cls.methods:
            # what its attributes hold (`self.bm = bm`, `bm: BaseBrownian`): a subclass in
            # another file calling `self.bm(...)` runs their `__call__` (reach.Hierarchy)
            held = _held_classes(cls, source, module, imported, scopes.classes)
            if held:
                classes[name].append({attr: sorted([t, int(d)] for t, d in found.items())
                                      for attr, found in sorted(held.items())})
            # methods registering a buffer under a name their caller gives (attributes.py):
            # a subclass in another file calling `self.register_coeff_buffer("c", v)` holds a tensor
            wrappers = _buffer_wrappers(cls, source)
            if wrappers:
                classes[name] += [{}] * (6 - len(classes[name])) + [wrappers]
    aliases = {}
    if is_package:
        aliases = {a: resolve_import(t, module, is_package) for a, t in scopes.imports.items()
                   if not t.startswith(_NOT_PROJECT)}
    return classes, aliases


def _buffer_wrappers(cls: ClassInfo, source: list) -> dict:
    from ..attributes import buffer_wrapper     # (attributes imports scopes)
    out = {}
    for name, infos in sorted(cls.methods.items()):
        at = buffer_wrapper(infos[0].node, source) if len(infos) == 1 else None
        if at is not None:
            out[name] = list(at)
    return out


_NOT_PROJECT = ("torch.", "typing.", "abc.", "enum.", "collections.", "numpy.", "dataclasses.")


def _zero_d_params(cls: ClassInfo) -> dict:
    """method -> the parameters its signature declares a number or a tensor (`timestep: int |
    Tensor`: a 0-d tensor where one is passed). Sibling classes implementing the same method
    are called through the same sites with the same values (crossfile.sibling_sites)."""
    out = {}
    for name, infos in cls.methods.items():
        if len(infos) != 1:
            continue
        args = infos[0].node.args
        found = sorted(a.arg for a in args.posonlyargs + args.args + args.kwonlyargs
                       if a.annotation is not None and annotation_kind(a.annotation) & SCALAR)
        if found:
            out[name] = found
    return dict(sorted(out.items()))


def project_imports(scopes: Scopes, module: str, is_package: bool) -> list:
    """The absolute names the module imports (the libraries it surely uses left out): which
    files may call into which (crossfile.settle gathers parameters' call sites by them)."""
    return sorted({resolve_import(t, module, is_package) for t in scopes.imports.values()
                   if not (t + ".").startswith(_NOT_PROJECT) and
                   t.partition(".")[0] not in STDLIB})
