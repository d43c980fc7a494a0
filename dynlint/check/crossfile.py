"""The cross-file step: the facts of every file of the project and the summaries across files.
reach.py then follows model code into the functions of other files with these facts.

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
from ..analysis.kinds import PROBABLE, SCALAR, TENSOR
from ..analysis.attributes import BUFFERS
from ..analysis.summaries import CALLERS, local_site, negative, passed_to, upgrade
from ..analysis.scopes.naming import modelish_name
from ..project.index import Index, canonical
from ..project.scope import module_name, unnamed_files
from .result_json import facts_from_json, facts_to_json
from ..engine.match import FileFacts

_DEVICE_SCALAR = TENSOR | SCALAR   # what a sibling's `int | Tensor` parameter may receive
PARALLEL_THRESHOLD = 64         # files whose facts are missing, before processes pay off
_GATES: list = []               # (engine, max file size) per configuration, for the workers
_EMPTY = FileFacts("")
_PROFILE_OF: dict = {}          # path of a file not checked -> its profile
_FACTS_CONFIGS: list = []       # the facts caches of the last project_facts (for settle)


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
                external, asking, whole = {}, set(), False
                for key, functions in base.demands.items():
                    kind = answers.get(key, answers)
                    if kind is answers:
                        kind = answers[key] = index.lookup(key)
                    if kind is None:
                        # `self.distance(emb, ref)`: a module's attribute, no method (a
                        # submodule a base of another file stores): probably a tensor, as a
                        # submodule's output is in a module's own file, where the walk
                        # already reads it so (only classes that are modules through another
                        # file's base learn something: no walk again for the others)
                        functions = _not_modules_here(index, base.module, functions)
                        if functions and index.module_attribute(key):
                            kind = PROBABLE
                    if kind is not None:
                        external[key] = kind
                        asking.update(functions)
                        # An answer that takes a finding back (`-> np.ndarray`): the whole file
                        # is walked, so that this walk knows all the first one knew (what the
                        # file's other functions return), and only what the answer changes
                        # differs (see `merged`).
                        whole = whole or negative(kind)
                only = None if whole else sorted(asking)
                for name in facts.classes or ():
                    wrappers = index.buffer_wrappers(f"{base.module}.{name}")
                    if wrappers:
                        external[BUFFERS + name] = wrappers
                        only = None     # any method may read the attribute
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


def _not_modules_here(index, module: str, functions) -> list:
    """The asking functions (qualnames) whose walk does not read `self.x(...)` as a
    submodule's output already: not of a class its own file knows to be an `nn.Module`, not
    model code by name (`forward`, a loss; scopes.reach's `modelish`)."""
    flags = index.module_flags
    return [f for f in functions if flags.get(f"{module}.{f.partition('.')[0]}") != 1 and
            not modelish_name(f.rpartition(".")[2])]


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
            # (`self.bm(t0, t1)`, `bm` stored by the class or a base: each `__call__` it may run;
            # "^": `self.step(...)` in a plain class's method, the overrides of its subclasses)
            callee = index.definition(key) if key[0] != "^" else None
            if callee is not None and callee not in opens and callee + ".__init__" in opens:
                callee += ".__init__"       # `Interval(ts[0], ts[-1])`: its constructor
            for callee in (callee,) if callee is not None else \
                    index.held_calls(key) if key[0] != "^" else index.overrides(key[1:]):
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
    by_method = index.zero_d_by_method
    kids: dict = {}         # base -> its direct subclasses, as a set
    out = {}
    for callee, (_, name, params) in opens.items():
        if "." not in name:
            continue
        owner, _, method = callee.rpartition(".")
        declaring = by_method.get(method)     # (no class declares it: no sibling does)
        entry = index.classes.get(owner) if declaring else None
        if entry is None:
            continue
        wanted = [e[0] for e in params if len(e) >= 4 and e[3] == 1]
        if not wanted:
            continue
        # (a base such as nn.Module has thousands of subclasses: only the classes declaring
        # the method are looked at)
        declared = set()
        for b in entry[0]:
            if type(b) is str:
                base = canonical(b, index.aliases)
                below = kids.get(base)
                if below is None:
                    below = kids[base] = frozenset(children.get(base, ()))
                for c, declares in declaring.items():
                    if c != owner and c in below:
                        declared |= declares
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
        # An instance held in an attribute is called by the holder's methods (`self.bm(t0,
        # t1)`), in its module and in those of its subclasses (torchsde's solvers).
        for holder, _ in index.holders(f"{module}.{owner}") if index.held else ():
            hm = index.module_of(holder, index.modules)
            if hm is not None:
                more = more | ({hm} - {module}) | index.importers(hm, holder[len(hm) + 1:]) | \
                    index.subclass_importers(holder)
        # A base's method calls the override through `self` (`self.step(...)`): its module.
        more = more | (index.base_modules(f"{module}.{owner}") - {module})
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
    kept = base.conditional
    if new.negated:
        # What a function told a value is no tensor no longer finds is withdrawn.
        now = {(name, f.code, f.line, f.column) for name, f in new.conditional}
        kept = [(name, f) for name, f in kept if (name, f.code, f.line, f.column) in now
                or not withdrawn(f, new.negated)]
    out.conditional = kept + [(name, f) for name, f in new.conditional
                              if (name, f.code, f.line, f.column) not in seen]
    return out


def withdrawn(f, negated: dict) -> bool:
    """Whether finding `f` lies in a function a walk again told that a value is no tensor
    (`negated`, FileFacts): if that walk does not find it, the first walk's is withdrawn."""
    return any(start <= f.line <= end for start, end in negated.values())


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
