"""The cross-file step: model code followed into module-level functions of other files.

Each file checked reports FileFacts: which names its model code references, what each of its
module-level functions references, and, aside, what model-code rules would flag inside its
neutral functions (`conditional`). After all files, those functions that model code reaches
get their findings reported.

The project is the repository, not the list of files named (project/scope.py finds it): when
the files checked are part of a bigger project, the facts of its other files come from the
scopes pre-pass alone (parse, roles, references; never the walk, never findings), cached by
content in `.dynlint_cache` like results are. So a file checked alone (pre-commit passes only
the changed ones) gets the findings it gets when its whole project is checked. Nothing is
done unless a file checked has a conditional finding, the only thing the step can report.
"""
from __future__ import annotations

import dataclasses
import gc
import json
import os
import sys

from ..project import source
from ..project.cache import Configurations, content_hash
from ..analysis.kinds import SCALAR, TENSOR
from ..analysis.summaries import CALLERS, local_site, passed_to, upgrade
from ..project.index import Index, canonical, direct_subclasses, reexported
from ..project.scope import module_name, unnamed_files
from .result_json import facts_from_json, facts_to_json
from ..engine.match import FileFacts

_DEVICE_SCALAR = TENSOR | SCALAR   # what a sibling's `int | Tensor` parameter may receive
PARALLEL_THRESHOLD = 64         # files whose facts are missing, before processes pay off
_GATES: list = []               # (engine, max file size) per configuration, for the workers
_EMPTY = FileFacts("")
_PROFILE_OF: dict = {}          # path of a file not checked -> its profile
_FACTS_CONFIGS: list = []       # the facts caches of the last project_facts (for settle)


def resolve(all_facts, why: dict | None = None) -> list:
    """Findings inside functions that model code in *other* files calls (transitively).

    Each file says which names its model code references and what its module-level functions
    and methods reference; a function becomes model code once a model-code reference reaches
    it. With `why`, each name reached records what reached it (see `_reach`).
    """
    return resolve_both(all_facts, why)[0]


def resolve_both(all_facts, why: dict | None = None) -> tuple:
    """(resolve's findings, the functions and methods neutral in their files whose every
    caller in the project is cold: `cold_called`)."""
    model = _reach(all_facts, why)
    return [finding for facts in all_facts for func, finding in facts.conditional
            if f"{facts.module}.{func}" in model], cold_called(all_facts, model)


def cold_called(all_facts, model: set) -> set:
    """The functions (absolute names) neutral in their file, reached by no model code, whose
    every caller in the project is cold, to a fixed point: the rule that makes a function
    cold in its file when only cold code there calls it (scopes.cold._spread_cold), across
    files. A call counts when a cold function's tree calls the function (`<cold>`: not a
    test, not a name that is weak evidence, see scopes.cold.cold_caller) or when a neutral
    function that is itself cold-called does (its `~name` export); any other mention (model
    code, library code in scope, a callback handed on: `<live>`, a registry: `<module>`)
    keeps it in scope, and so does having no caller at all (public API). A method neutral in
    its file (`^Class.m`) is called by attribute on an object of any class: every `.m(...)`
    of the project counts as its call, every other mention of `.m` in code not cold keeps it
    (nerfstudio's `populate_modules` overrides, which only `Model.__init__` calls)."""
    aliases = _aliases(all_facts)

    def names(ref):                 # a name and what the re-exports it goes through stand for
        hops, out = {}, [ref]
        while (ref := _reexported(ref, aliases, hops)) is not None:
            out.append(ref)
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
        # (not a dunder nor `forward`: Python and torch call those, no text of the project)
        if attr in called and attr not in live and name not in model and \
                not attr.startswith((".__", ".forward")):
            candidates.append(name)
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
                rest = {c for c in called[attr] if type(c) is not tuple and
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


def _package(name: str) -> str:
    return name.partition(".")[0]


MAX_ROUNDS = 6      # rounds of the summaries' fixed point (chains of helpers are short)


def settle(named: list, others: list, recheck, use_cache: bool = True) -> None:
    """Function summaries across files, to a fixed point (in place).

    `named` are the facts of the files checked, `others` those of the project's other files
    (from the scopes pre-pass: classes and re-exports, no summaries). Each round builds the
    index, walks the other files whose summaries some demand needs (once, without findings),
    and walks again the functions whose demands the index now answers differently
    (`recheck(first facts, external, functions)` -> facts; the caller adds the findings to
    the first walk's). Each such walk starts from the file's first walk, never from an earlier
    round's, and it stops when nothing changes: the same fixed point whether the project's
    files are all named or one is, so a file checked alone gets the findings it gets with its
    project.
    """
    memo = Memo(_FACTS_CONFIGS[0] if use_cache and _FACTS_CONFIGS else None, "#summaries",
                facts_to_json, facts_from_json)
    first: dict = {}
    applied: dict = {}
    unwalked = {f.module: i for i, f in enumerate(others)}
    walked: list[int] = []
    index = Index([*named, *others])
    for _ in range(MAX_ROUNDS):
        want: set = set()
        if unwalked:            # (all files named: nothing more to walk)
            asked: set = set()
            for facts in [*named, *(others[i] for i in walked)]:
                asked.update(facts.demands)
                # The files that may call a function whose parameters callers could teach:
                # all of them are walked, so that every caller counts, named or not.
                for name in first.get(facts.origin, facts).opens:
                    want.update(unwalked.keys() & _callers(index, facts.module, name))
            for key in sorted(asked):
                index.needed(key, unwalked, want)
        for module in sorted(want):
            i = unwalked.pop(module)
            old = others[i]
            others[i] = _summarise(memo, old, {}, None)
            index.replace(old, others[i])
            walked.append(i)
        changed = bool(want)
        answers: dict = {}      # the index's answers this round, by name
        updates: list = []
        todo: list = []         # (group, i, facts, base, external, only, again)
        walking = [*named, *(others[i] for i in walked)]
        incoming = _incoming(index, walking, first)
        for group, again in ((named, recheck), (others, None)):
            for i, facts in enumerate(group):
                if not (facts.demands or facts.opens) or (group is others and i not in walked):
                    continue
                base = first.setdefault(facts.origin, facts)
                external, asking = {}, set()
                for key, functions in base.demands.items():
                    kind = answers.get(key, answers)
                    if kind is answers:
                        kind = answers[key] = index.lookup(key)
                    if kind is not None:
                        external[key] = kind
                        asking.update(functions)
                only = sorted(asking)
                for name in base.opens:
                    sites = incoming.get(f"{base.module}.{name}")
                    if sites:
                        external[CALLERS + name] = sites
                        only = None     # every caller in the file must be walked again too
                if external == applied.get(facts.origin, {}):
                    continue
                applied[facts.origin] = external
                todo.append((group, i, facts, base, external, only, again))
        # Every walk of a round asks the same index: the caller may run them all at once.
        prefetch = getattr(recheck, "prefetch", None)
        if prefetch is not None:
            prefetch([(base, external, only) for _, _, _, base, external, only, again in todo
                      if again is not None and external])
        for group, i, facts, base, external, only, again in todo:
            if again is None:
                new = _summarise(memo, base, external, only) if external else base
            else:
                new = again(base, external, only)
            group[i] = merged(base, new) if external else base
            updates.append((facts, group[i]))
            changed = True
        for old, new in updates:    # after the round: every file asked the same index
            index.replace(old, new)
        if not changed:
            break
    memo.save()


def _incoming(index, walking: list, first: dict) -> dict:
    """What the callers in other files pass to the functions whose parameters they could
    teach (`opens`), by absolute name: every site of every walked file that may name the
    callee, sorted (the same list whichever files were named); only for the functions where
    those sites teach some open parameter something (`upgrade`; else they change nothing:
    the file is not walked again for them)."""
    opens = {}
    for facts in walking:
        for name, params in first.get(facts.origin, facts).opens.items():
            opens[f"{facts.module}.{name}"] = (facts.module, name, params)
    if not opens:
        return {}
    passed: dict = {}       # callee -> [(calling module, {function: sites})]
    for facts in walking:
        for key, per_function in facts.calls.items():
            callee = index.definition(key)
            if callee in opens:     # (a file's own sites: `_callers` leaves it out)
                passed.setdefault(callee, []).append((facts.module, per_function))
    out = {}
    for callee, entries in passed.items():
        if all(site == 0 for _, per in entries for sites in per.values() for site in sites):
            continue            # no caller passes anything to learn from (the common case)
        module, name, params = opens[callee]
        callers = _callers(index, module, name)
        unique = {json.dumps(site, sort_keys=True): site for caller, per in entries
                  if caller in callers for sites in per.values() for site in sites}
        ordered = [unique[k] for k in sorted(unique)]
        if ordered and any(_teaches(ordered, entry, "." in name) for entry in params):
            out[callee] = ordered
    for callee, sites in _sibling_sites(index, opens).items():
        # (Only where no caller in another file is known: those say what it receives, and
        # a site naming one parameter would void every other's claim, see `passed_to`.)
        if callee not in passed and any(_teaches(sites, entry, True) for entry in opens[callee][2]):
            out[callee] = sites
    return out


def _sibling_sites(index, opens: dict) -> dict:
    """Sites for methods whose parameter is declared a number (`step(self, x, timestep:
    int)`) where a sibling class (one sharing a base of the project with it) implements the
    same method with that parameter declared a number or a tensor (`timestep: int | Tensor`):
    the implementations of one interface are called through the same sites with the same
    values (a pipeline's `self.scheduler.step(out, t, x)` holds any of them), so the
    parameter may be the 0-d tensor the sibling declares. A site passing a device tensor
    beside an unknown one: `probably` a 0-d tensor (`summaries._zero_d`), as for any
    caller passing one. callee -> sites."""
    if not index.zero_d:
        return {}
    children = index.children
    out = {}
    for callee, (_, name, params) in opens.items():
        if "." not in name:
            continue
        owner, _, method = callee.rpartition(".")
        entry = index.classes.get(owner)
        wanted = [e[0] for e in params if len(e) >= 4 and e[3] == 1]
        if entry is None or not wanted:
            continue
        siblings = {c for b in entry[0] if type(b) is str
                    for c in children.get(canonical(b, index.aliases), ())
                    if c != owner}
        declared = set()
        for sibling in siblings:
            declared |= index.zero_d.get(f"{sibling}.{method}", frozenset())
        taught = sorted(p for p in wanted if p in declared)
        if taught:
            out[callee] = [[[], {p: _DEVICE_SCALAR for p in taught}], 0]
    return out


MAX_CALLER_FILES = 16   # a function more files may call gets no claim from their sites


def _callers(index, module: str, name: str) -> frozenset:
    """The modules whose call sites count for `module`'s function `name`: those importing
    the module or the name (of a method: its class). A function more than MAX_CALLER_FILES
    files may call (a library's API) gets none: agreement among so many is unlikely, and
    walking them all for one file checked alone would cost what checking them does."""
    owner, dot, _ = name.partition(".")
    found = index.importers(module, owner)
    if dot and len(found) <= MAX_CALLER_FILES:
        # A method runs for the subclasses' instances too (built elsewhere, through a
        # registry: registries.py); their importers count while the total stays small.
        more = found | index.subclass_importers(f"{module}.{owner}")
        if len(more) <= MAX_CALLER_FILES:
            found = more
    return found if len(found) <= MAX_CALLER_FILES else frozenset()


def _teaches(sites: list, entry: list, method: bool) -> bool:
    """Whether the call sites (as `_incoming` gathers them) teach the open parameter `entry`
    ([name, position, kind, numbers declared], `opens`) something, as the callee's walk
    would read them (`to_revisit`)."""
    if len(entry) < 4:
        return False            # (an entry of an older layout)
    param, pos, now, numbers = entry[:4]
    passed = passed_to([local_site(site, method) for site in sites], param, pos)
    return bool(passed) and upgrade(passed, now, numbers) is not None


def merged(base, new):
    """The facts of a file's first walk with what a walk of some of its functions again
    added: their return summaries, findings they would give if reached (`conditional`), the
    sites of the calls they make into other files (a function walked again replaces its),
    the codes of what they find in neutral functions (`neutral`)."""
    if new is base:
        return base
    calls = {key: dict(per) for key, per in base.calls.items()}
    for key, per in new.calls.items():
        calls.setdefault(key, {}).update(per)
    neutral = dict(base.neutral)
    for name, (start, end, codes) in new.neutral.items():      # (what a walk again adds)
        neutral[name] = [start, end, sorted({*neutral.get(name, (0, 0, ()))[2], *codes})]
    out = dataclasses.replace(base, returns={**base.returns, **new.returns}, calls=calls,
                              neutral=neutral)
    seen = {(name, f.code, f.line, f.column) for name, f in base.conditional}
    out.conditional = base.conditional + [(name, f) for name, f in new.conditional
                                          if (name, f.code, f.line, f.column) not in seen]
    return out


def _summarise(memo, facts, external, only):
    """A file not checked, walked for its summaries only (its findings are not reported)."""
    path = facts.origin
    profile = _PROFILE_OF.get(path)
    key = external_key(external, only)
    found = memo.get(profile, path, key)
    if found is not None:
        found.origin = path
        return found
    try:
        engine, max_bytes = profile.engine, profile.settings.max_file_size
        data, stat = source.read_bytes(path, path, max_bytes)
        text = source.decode(data, path)
        module, is_package = module_name(path)
        _, new = engine.check_module(text, path, source.parse(text, path), module=module,
                                     is_package=is_package, external=external, only=only)
    except Exception:           # unreadable now, or a bug in dynlint: keep what we had
        return facts
    if new is None:
        return facts
    new.conditional, new.origin = [], path
    memo.put(profile, path, stat, content_hash(data), key, new)
    return new


def external_key(external: dict, only) -> str:
    """What a walk's result depends on besides the file: the summaries and functions given."""
    return json.dumps([sorted((k, list(v) if type(v) is tuple else v)
                              for k, v in external.items()), only], separators=(",", ":"))


class Memo:
    """Walks that depend on other files' summaries too, cached beside the file's own entry
    (`tag`) in `configs`' caches, by the file's content and `external_key` (one entry per
    file: the last one asked)."""

    def __init__(self, configs, tag: str, encode, decode):
        # The entry is the file's own kind of entry (`encode` gives a list) with the key
        # appended: whatever reads the cache file sees entries of one layout.
        def enc(value, *blobs):         # (the cache's blobs, when it has some)
            return encode(value[1], *blobs) + [value[0]]

        def dec(data, label, *blobs):
            if type(data) is not list or not data or type(data[-1]) is not str:
                raise ValueError("not a summary entry")
            return data[-1], decode(data[:-1], label, *blobs)
        self.configs, self.tag, self.enc, self.dec = configs, tag, enc, dec

    def _cache(self, profile):
        if self.configs is None or profile is None:
            return None
        return self.configs.cache(self.configs.number(profile))

    def get(self, profile, path: str, key: str, label: str | None = None):
        cache = self._cache(profile)
        found = cache.lookup(path, label or path, self.tag, self.dec) if cache is not None \
            else None
        return found[1] if found is not None and found[0] == key else None

    def put(self, profile, path: str, stat, digest: str, key: str, value) -> None:
        cache = self._cache(profile)
        if cache is not None and stat is not None:
            cache.store(path, stat, digest, (key, value), self.tag, self.enc)

    def save(self) -> None:
        if self.configs is not None:
            self.configs.save()


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
        if classes.children:
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
        # class -> direct subclasses (bases are canonical already: the map adds no hop)
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
        if entry is not None and attr not in entry[1]:
            todo.extend((f"{base}.{attr}", name, True) for base in entry[0])
        if not inherited and owner in self.children:
            for sub in self._overrides(owner).get(attr, ()):
                todo.append((f"{sub}.{attr}", ("override of", name)))

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


def _encode(facts):
    return None if facts is None else facts_to_json(facts)


def _decode(data, path):
    return _EMPTY if data is None else facts_from_json(data, path)


def project_facts(paths, named, plan, use_cache=True, jobs=None, files=None) -> list:
    """FileFacts of the files of the projects of `paths` that are not in `named` (absolute),
    or of the `files` given (the server's workspace folder, when it is no project's)."""
    _FACTS_CONFIGS.clear()
    if files is None:
        files = unnamed_files(paths, set(named), plan.resolver)
    if not files:
        return []
    # Decoding thousands of cached facts builds many small acyclic objects: the cyclic GC
    # would re-scan them again and again; reference counting frees them.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _project_facts(files, plan, use_cache, jobs)
    finally:
        if enabled:
            gc.enable()


def _project_facts(files, plan, use_cache, jobs) -> list:
    global _GATES
    configs = Configurations(use_cache, ("facts",), _encode, _decode)
    _GATES = configs.gates
    _FACTS_CONFIGS[:] = [configs]
    out, todo = [], []
    by_dir: dict = {}
    for path in files:
        if path.endswith(".ipynb"):
            continue                    # notebooks take no part in the cross-file step
        directory = os.path.dirname(path)
        profile = by_dir.get(directory)
        if profile is None:
            profile = by_dir[directory] = plan.profile(plan.resolver.settings_for_dir(directory))
        index = configs.number(profile)
        cache = configs.cache(index)
        _PROFILE_OF[path] = profile
        facts = cache.lookup(path, path) if cache is not None else None
        if facts is None:
            todo.append((path, index))
        else:
            if facts is not _EMPTY:
                facts.origin = path
            out.append(facts)
    for path, index, stat, digest, facts in _map(todo, jobs):
        cache = configs.cache(index)
        if cache is not None and stat is not None:
            cache.store(path, stat, digest, facts)
        if facts is not None:
            facts.origin = path
        out.append(facts)
    configs.save()
    # Every module counts: one with nothing to tell yet may be walked for its summaries.
    return [f for f in out if f is not None and f.module]


def cached_files(others: list) -> list:
    """[(path, the facts cache holding it)] of `others` (project_facts' answer), for the key
    of what the cross-file step concluded (steprecord.py)."""
    configs = _FACTS_CONFIGS[0] if _FACTS_CONFIGS else None
    return [(f.origin, configs.cache(configs.number(_PROFILE_OF[f.origin])) if configs else None)
            for f in others]


def _facts_job(job):
    path, index = job
    engine, max_bytes = _GATES[index]
    try:
        data, stat = source.read_bytes(path, path, max_bytes)
    except source.SourceError:
        return path, index, None, None, None        # reported when the file itself is checked
    facts = None
    try:
        text = source.decode(data, path)
        module, is_package = module_name(path)
        facts = engine.facts_only(text, source.parse(text, path), module, is_package)
    except source.SourceError:
        pass                    # no facts, as when the file is checked (DYN9xx there)
    except Exception:           # a bug in dynlint must not stop the run
        return path, index, None, None, None
    return path, index, stat, content_hash(data), facts


def _map(todo, jobs):
    jobs = jobs or os.cpu_count() or 1
    enabled = gc.isenabled()
    gc.disable()            # parsed trees are acyclic: reference counting frees them
    try:
        if jobs <= 1 or len(todo) < PARALLEL_THRESHOLD or not sys.platform.startswith("linux"):
            yield from map(_facts_job, todo)
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        # Fork shares the compiled rules with the workers.
        ctx = multiprocessing.get_context("fork")
        chunk = max(1, min(16, len(todo) // (jobs * 8)))
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as executor:
            yield from executor.map(_facts_job, todo, chunksize=chunk)
    finally:
        if enabled:
            gc.enable()
