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

from .project import source
from .project.cache import Configurations, content_hash
from .project.index import Index, reexported
from .project.scope import module_name, unnamed_files
from .result_json import facts_from_json, facts_to_json
from .engine.match import FileFacts

PARALLEL_THRESHOLD = 64         # files whose facts are missing, before processes pay off
_GATES: list = []               # (engine, max file size) per configuration, for the workers
_EMPTY = FileFacts("")
_PROFILE_OF: dict = {}          # path of a file not checked -> its profile
_FACTS_CONFIGS: list = []       # the facts caches of the last project_facts (for settle)


def resolve(all_facts, why: dict | None = None) -> list:
    """Findings inside functions that model code in *other* files calls (transitively).

    Each file says which names its model code references and what its module-level functions
    reference; a function becomes model code once a model-code reference reaches it. With
    `why`, each name reached records what reached it (see `_reach_explained`).
    """
    index = {}
    todo = []
    aliases = _aliases(all_facts)
    for facts in all_facts:
        todo.extend(facts.model_refs)
        for name, (is_model, refs) in facts.exports.items():
            index[f"{facts.module}.{name}"] = refs
            if is_model:
                todo.append(f"{facts.module}.{name}")
    if why is not None:
        model = _reach_explained(all_facts, index, aliases, why)
    else:
        model = set()
        hops: dict = {}
        while todo:
            name = todo.pop()
            if name in model:
                continue
            model.add(name)
            todo.extend(index.get(name, ()))
            # Using anything from a module reaches what its module-level registries name.
            todo.append(name.rpartition(".")[0] + ".<module>")
            target = _reexported(name, aliases, hops)
            if target is not None:
                todo.append(target)
    return [finding for facts in all_facts for func, finding in facts.conditional
            if f"{facts.module}.{func}" in model]


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
        for group, again in ((named, recheck), (others, None)):
            for i, facts in enumerate(group):
                if not facts.demands or (group is others and i not in walked):
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
                if external == applied.get(facts.origin, {}):
                    continue
                applied[facts.origin] = external
                if again is None:
                    new = _summarise(memo, base, external, sorted(asking)) if external else base
                else:
                    new = again(base, external, sorted(asking))
                group[i] = merged(base, new) if external else base
                updates.append((facts, group[i]))
                changed = True
        for old, new in updates:    # after the round: every file asked the same index
            index.replace(old, new)
        if not changed:
            break
    memo.save()


def merged(base, new):
    """The facts of a file's first walk with what a walk of some of its functions again
    added: their return summaries, findings they would give if reached (`conditional`)."""
    if new is base:
        return base
    out = dataclasses.replace(base, returns={**base.returns, **new.returns})
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
        def enc(value):
            return encode(value[1]) + [value[0]]

        def dec(data, label):
            if type(data) is not list or not data or type(data[-1]) is not str:
                raise ValueError("not a summary entry")
            return data[-1], decode(data[:-1], label)
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


def _reach_explained(all_facts, index, aliases, why) -> set:
    """The same reachability as `resolve`, recording for each name its predecessor: the
    function (`module.name`) that references it, or ("model code of", module) for a reference
    read from a file's model code. Only `--explain` pays for this."""
    todo = []
    for facts in all_facts:
        todo.extend((ref, ("model code of", facts.module)) for ref in facts.model_refs)
        todo.extend((f"{facts.module}.{name}", None)
                    for name, (is_model, _) in facts.exports.items() if is_model)
    model = set()
    hops: dict = {}
    while todo:
        name, pred = todo.pop()
        if name in model:
            continue
        model.add(name)
        if pred is not None:
            why.setdefault(name, pred)
        todo.extend((ref, name) for ref in index.get(name, ()))
        todo.append((name.rpartition(".")[0] + ".<module>", name))
        target = _reexported(name, aliases, hops)
        if target is not None:
            todo.append((target, name))
    return model


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
