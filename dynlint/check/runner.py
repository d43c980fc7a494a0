"""Checking many files: cache lookups, then the misses across processes.

Each file is read, gated, parsed and analysed exactly once, inside one worker. A worker never
raises: anything unexpected becomes a DYN999 diagnostic for that file and the run goes on.
"""
from __future__ import annotations

import dataclasses
import gc
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from ..project import notebook, source
from ..project.cache import Configurations, content_hash
from ..project.discover import discover, display_path
from ..project.scope import module_name  # noqa: F401  (used here and by the server)
from .crossfile import Memo, cached_files, external_key, project_facts, settle, withdrawn as in_negated
from .reach import reach_and_cold, resolve_both
from ..engine.match import Engine
from ..finding import internal_error
from ..report import snippets
from .result_json import STARTS_STEP, LazyFacts, Malformed, Missing, blob_refs, \
    entry_from_json, entry_to_json, facts_flags, lazy_entry_from_json
from .steprecord import step_record

_ENGINES: list = []              # (engine, max file size) per configuration in this run
# The cyclic garbage collector would re-scan each freshly parsed tree many times (a fifth of
# the run time). Trees are acyclic and freed by reference counting; the analysis leaves a
# little cyclic garbage per file, collected every GC_EVERY files instead.
GC_EVERY = 32
_since_gc = 0
PARALLEL_THRESHOLD = 24         # below this many files, worker start-up costs more than it saves
RECHECK_PARALLEL = 6            # the same for walks again with other files' summaries (_settle)


def analyse_source(engine: Engine, text: str, display: str, module=None, external=None,
                   only=None, roles=None):
    """(findings, facts) for one module's text (used for stdin and by workers); `external`:
    what calls into other files return (crossfile.settle); `roles`: the first walk's
    (FileFacts.roles), for a walk again."""
    try:
        tree = source.parse(text, display)      # every file, so syntax errors always show
        if not engine.may_match(text):
            return [], None
        name, is_package = module if module else (None, False)
        return engine.check_module(text, display, tree=tree, module=name, is_package=is_package,
                                   external=external, only=only, roles=roles)
    except source.SourceError as exc:
        return [exc.finding], None
    except Exception as exc:       # a bug in dynlint must not stop the run
        return [internal_error(exc, display)], None


def _analyse_file(job):
    global _since_gc
    _since_gc += 1
    if _since_gc >= GC_EVERY:
        _since_gc = 0
        gc.collect(1)
    path, display, cross_file, index = job
    engine, max_bytes = _ENGINES[index]
    try:
        data, stat = source.read_bytes(path, display, max_bytes)
        if path.endswith(notebook.SUFFIX):
            nb = notebook.load(data, display)
            found, _ = analyse_source(engine, nb.text, display)
            return path, stat, content_hash(data), ((notebook.to_cells(found, nb), None), None)
        text = source.decode(data, display)
    except source.SourceError as exc:
        return path, None, None, (([exc.finding], None), None)
    module = module_name(path) if cross_file else None
    result = analyse_source(engine, text, display, module)
    return path, stat, content_hash(data), (result, _snippets(text, result))


def _snippets(text, result):
    """The source lines the `full` report shows for this file's findings (kept in the cache,
    so that a warm run need not read the file again)."""
    found, facts = result
    if facts is not None and facts.conditional:
        found = found + [f for _, f in facts.conditional]
    return snippets.cut(text, found) if found else None


def _init_worker(engines):
    global _ENGINES
    gc.disable()
    if engines is not None:
        _ENGINES = engines


def run_check(paths, plan, use_cache=True, jobs=None, force_exclude=False, cross_file=True):
    """(findings, files checked) for `paths`, sorted, each file judged by its own settings
    (see plan.Plan). With `cross_file`, model code is followed into functions defined in the
    other files of their projects (crossfile.py)."""
    global _ENGINES
    cwd = os.getcwd()
    files, findings = discover(paths, plan.resolver, force_exclude)
    # Everything a result depends on besides the file's own bytes (and dynlint's code, which
    # the cache adds itself): rules, size limit (the profile's key), and the mode.
    configs = Configurations(use_cache, (cross_file,), entry_to_json, lazy_entry_from_json,
                             blob_refs)
    _ENGINES = configs.gates
    todo = []
    entries = []                    # (entry, display, path, configuration), as gathered
    all_facts = []
    found_in: dict = {}             # path -> (display, profile, its findings)
    keyed: list = []                # (path, display, cache) of every file, in order
    profiles: dict = {}             # configuration number -> profile

    snippets.forget_all()

    def add(entry, display, path=None, index=None):
        (found, facts), lines = entry
        snippets.remember(display, lines)
        if found and found[0].path != display:
            found = [dataclasses.replace(f, path=display) for f in found]
        findings.extend(found)
        # (facts still lazy: the cross-file step does not run, or is read from its record)
        if type(facts) is not LazyFacts and facts is not None and (
                facts.exports or facts.model_refs or facts.conditional or facts.summarises()):
            if facts.conditional and facts.conditional[0][1].path != display:
                facts.conditional = [(n, dataclasses.replace(f, path=display))
                                     for n, f in facts.conditional]
            facts.origin = path
            found_in[path] = (display, profiles[index], found)
            all_facts.append(facts)

    # Loading the cache builds many small acyclic objects, and so do the workers' results and
    # the cross-file step (facts, the project's index): the cyclic GC would re-scan them
    # again and again (a third of a warm run; a full collection over the facts of a cold
    # one, for nothing). Reference counting frees them.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    named = []                      # the absolute paths of `files`
    try:
        for path in files:
            absolute = os.path.abspath(path)
            named.append(absolute)
            display = display_path(absolute, cwd) if os.path.isabs(path) else path
            profile = plan.profile_for_file(absolute)     # discovery yields files only
            index = configs.number(profile)
            profiles[index] = profile
            cache = configs.cache(index)
            keyed.append((path, display, cache))
            cached = cache.lookup(absolute, display) if cache is not None else None
            if cached is None:
                todo.append((path, display, cross_file, index))
            else:
                entries.append((cached, display, path, index))
        jobs_by_path = {job[0]: job for job in todo}
        # Biggest files first, so that no worker is left alone with a huge file at the end.
        todo.sort(key=_size, reverse=True)
        for path, stat, digest, result in _map(todo, jobs):
            _, display, _, index = jobs_by_path[path]
            cache = configs.cache(index)
            if cache is not None and stat is not None:
                cache.store(path, stat, digest, result)
            entries.append((result, display, path, index))
        step = any(_flags(entry[0][0][1]) & STARTS_STEP for entry in entries)
        if step:
            # The project is the repository: the facts of its files not named here count too.
            others = project_facts(paths, named, plan, use_cache, jobs)
            record = step_record(keyed, cached_files(others))
            if record is None or record.load() is None:
                entries = [_decoded(entry, configs) for entry in entries]
        for entry in entries:
            add(*entry)
        if step:
            findings = cross_file_step(all_facts, others, found_in, findings, configs, jobs=jobs,
                                       record=record)
        configs.save()                  # once, with what the cross-file step kept
        findings = [f for f in findings if plan.keep(f)]
        findings.sort(key=lambda f: f.sort_key)
        return findings, len(files)
    finally:
        if gc_was_enabled:
            gc.enable()


def _flags(facts) -> int:
    if facts is None:
        return 0
    return facts.flags if type(facts) is LazyFacts else facts_flags(facts)


def _decoded(entry, configs):
    """`entry` (see run_check) with its facts decoded; a file whose cached facts are
    malformed is dropped from the cache and analysed again."""
    (found, facts), lines = entry[0]
    if type(facts) is not LazyFacts:
        return entry
    try:
        return ((found, facts.decode()), lines), *entry[1:]
    except Malformed as exc:
        display, path, index = entry[1:]
        cache = configs.cache(index)
        cache.drop(path, str(exc), warn=not isinstance(exc, Missing))
        _, stat, digest, result = _analyse_file((path, display, True, index))
        if stat is not None:
            cache.store(path, stat, digest, result)
        return result, display, path, index


def cross_file_step(named: list, others: list, found_in: dict, findings: list, configs,
                    texts: dict | None = None, jobs=None, record=None) -> list:
    """`findings` of the files `named` (their facts; `found_in`: path -> (display, profile,
    findings)) with what the cross-file step adds: summaries across files to a fixed point,
    then the findings model code in other files reaches. `others`: the facts of the project's
    other files (crossfile.project_facts). The one entry point of `dynlint check` and
    `dynlint server`, which passes `texts` (path -> the editor's unsaved text of a file named).
    `record` (steprecord.py): what the step concluded last time on the same bytes, read
    instead of running it, else kept for next time (the caller saves `configs`)."""
    kept = record.load() if record is not None else None
    if kept is not None:
        added, reached, lines, dropped = kept
        for display, cut in lines.items():
            snippets.remember(display, cut)
    else:
        added, lines, walked = [], {}, set()
        early = None
        if any(facts.demands or facts.opens for facts in named):
            # The reach across files reads only what the first walks said (exports, model
            # references, classes, re-exports), which the walks again leave as they are
            # (crossfile.merged): it runs on a thread while worker processes walk again, on
            # the core the parent leaves idle. (Not with other files of the project: those
            # the step walks get exports from their walk.)
            if not others:
                early = _Background(lambda facts=list(named): reach_and_cold(facts))
            added, lines, walked, withdrawn = _settle(
                named, others, found_in, configs, texts, jobs, save=record is None,
                pooled=early.start if early is not None else None)
        else:
            withdrawn = []
        reached, cold = resolve_both(named + others,
                                     known=early.result() if early is not None else None)
        dropped = sorted([found_in[facts.origin][0], *facts.neutral[name[len(facts.module) + 1:]]]
                         for facts in named if facts.neutral
                         for name in cold.intersection(f"{facts.module}.{q}" for q in facts.neutral))
        dropped += withdrawn
        if record is not None:
            record.store(added, reached, lines, walked, dropped)
    if added:
        have = {(f.path, f.code, f.line, f.column) for f in findings}
        findings = findings + [f for f in added if (f.path, f.code, f.line, f.column) not in have]
    if dropped:
        findings = [f for f in findings if not _in_cold(f, dropped)]
    return _merge_reached(findings, reached)


def _in_cold(f, dropped: list) -> bool:
    """Whether finding `f` lies in a function the cross-file step found called from cold code
    only (`dropped`: [display, first line, last line, codes the function's findings have]), or
    is one the step withdrew ([display, line, line, [code], column], see _settle)."""
    return any(f.path == d[0] and d[1] <= f.line <= d[2] and f.code in d[3]
               and (len(d) == 4 or f.column == d[4]) for d in dropped)


_BUFFER_WALKS: dict = {}        # the server's walks of unsaved text: never in the disk cache
_BUFFER_WALKS_KEPT = 64


def _walk_text(profile, text: str, path: str, display: str, external, only, key: str):
    k = (path, profile.cache_key, key, text)
    entry = _BUFFER_WALKS.get(k)
    if entry is None:
        result = analyse_source(profile.engine, text, display, module_name(path), external, only)
        entry = (result, _snippets(text, result))
        if len(_BUFFER_WALKS) >= _BUFFER_WALKS_KEPT:
            del _BUFFER_WALKS[next(iter(_BUFFER_WALKS))]       # the oldest
        _BUFFER_WALKS[k] = entry
    return entry


def _settle(named: list, others: list, found_in: dict, configs, texts: dict | None = None,
            jobs=None, save: bool = True, pooled=None) -> tuple:
    """Function summaries across files (crossfile.settle): the functions of a file whose
    calls into other files now return something known are walked again; what they find is
    added to the file's first findings (cached by the file's content and what it was told;
    a file's unsaved text, in `texts`, in memory only). Returns (the findings of the walks
    again, the report's lines of the files walked again: display -> snippets.Lines, the paths
    of the files walked again: what else the outcome depends on besides the facts).
    `pooled()` is called when walks again start in worker processes."""
    global _ENGINES
    _ENGINES = configs.gates        # the server's configurations as well as the CLI's
    memo = Memo(configs, "#settled", entry_to_json, entry_from_json)
    added: dict = {}
    withdrawn: dict = {}        # display -> the first walk's findings a walk again takes back
    cuts: dict = {}             # display -> the lines of its latest walk (snippets.remember)
    walked: set = set()

    def recheck(facts, external, only):
        path = facts.origin
        display, profile, _ = found_in[path]
        if not external:
            added.pop(display, None)
            withdrawn.pop(display, None)
            return facts
        key = external_key(external, only)
        walked.add(path)
        text = texts.get(path) if texts else None
        entry = memo.get(profile, path, key, display) if text is None else \
            _walk_text(profile, text, path, display, external, only, key)
        if entry is None:
            found = ready.pop(path, None)
            if found is None or found[0] != key:
                found = _recheck_file((path, display, configs.number(profile), external, only,
                                       key, facts.roles))[1:]
            _, stat, digest, entry = found
            if entry is None:
                return facts            # unreadable now: keep what we had
            memo.put(profile, path, stat, digest, key, entry)
        (found, new), lines = entry
        if new is None:
            return facts
        new.origin = path
        snippets.remember(display, lines)
        if lines is not None:
            cuts[display] = lines
        added[display] = [dataclasses.replace(f, path=display) if f.path != display else f
                          for f in found]
        # A function told that a value is no tensor (`-> np.ndarray` in another file) was
        # walked with all the first walk knew besides (the whole file, crossfile.settle): what
        # the first walk found there and this one does not rested on the unknown value.
        now = {(f.code, f.line, f.column) for f in found}
        withdrawn[display] = [[display, f.line, f.line, [f.code], f.column]
                              for f in found_in[path][2] if new.negated
                              and (f.code, f.line, f.column) not in now
                              and in_negated(f, new.negated)]
        return new

    ready: dict = {}            # path -> (key, stat, digest, entry) walked by prefetch

    def prefetch(asked):
        """The walks a round of `settle` is about to ask for, done across processes."""
        todo = []
        for facts, external, only in asked:
            path = facts.origin
            display, profile, _ = found_in[path]
            key = external_key(external, only)
            if memo.get(profile, path, key, display) is None:
                todo.append((path, display, configs.number(profile), external, only, key,
                             facts.roles))
        if len(todo) < RECHECK_PARALLEL:
            return
        todo.sort(key=_size, reverse=True)
        pool = pooled is not None and (jobs or os.cpu_count() or 1) > 1
        for path, *found in _map(todo, jobs, _recheck_file):
            ready[path] = found
            if pool:            # (once the workers are forked)
                pooled()

    if texts is None:           # not in the server: no process pool under an editor
        recheck.prefetch = prefetch
    settle(named, others, recheck, configs is not None)
    if save:
        memo.save()
    return [f for found in added.values() for f in found], cuts, walked, \
        sorted(d for found in withdrawn.values() for d in found)


class _Background:
    """`fn()` on a thread started on demand (`start`); `result()` waits for it and raises what
    it raised, or calls `fn` here if it never started."""

    def __init__(self, fn):
        self.fn, self.future = fn, None

    def start(self) -> None:
        if self.future is None:
            pool = ThreadPoolExecutor(max_workers=1)
            self.future = pool.submit(self.fn)
            pool.shutdown(wait=False)       # (the task runs on; no other is coming)

    def result(self):
        return self.fn() if self.future is None else self.future.result()


def _recheck_file(job):
    """A worker's walk again of some functions of a file, with what calls into other files
    return (see _settle); entry None if the file cannot be read now."""
    path, display, index, external, only, key, roles = job
    engine, max_bytes = _ENGINES[index]
    try:
        data, stat = source.read_bytes(path, display, max_bytes)
        text = source.decode(data, display)
    except source.SourceError:
        return path, key, None, None, None
    result = analyse_source(engine, text, display, module_name(path), external, only, roles)
    return path, key, stat, content_hash(data), (result, _snippets(text, result))


def _merge_reached(findings: list, reached: list) -> list:
    """Add what the cross-file step reports; a library-scope finding that model code in
    another file turns out to reach is the same finding, now `certain`."""
    at = {(f.path, f.code, f.line, f.column): i for i, f in enumerate(findings)}
    for f in reached:
        i = at.get((f.path, f.code, f.line, f.column))
        if i is None:
            at[(f.path, f.code, f.line, f.column)] = len(findings)
            findings.append(f)
        elif findings[i].confidence == "likely" and f.confidence == "certain":
            findings[i] = f
    return findings


def _size(job) -> int:
    try:
        return os.stat(job[0]).st_size
    except OSError:
        return 0


def _map(todo, jobs, work=None):
    work = work or _analyse_file
    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1 or len(todo) < (PARALLEL_THRESHOLD if work is _analyse_file else RECHECK_PARALLEL):
        return _sequential(todo, work)
    # Imported here: ~30 ms that a warm run (no file to analyse) does not need.
    from concurrent.futures import ProcessPoolExecutor
    # Fork shares the compiled rules with the workers for free; elsewhere they are pickled.
    ctx = None
    if sys.platform.startswith("linux"):
        import multiprocessing
        ctx = multiprocessing.get_context("fork")
    chunk = max(1, min(8, len(todo) // (jobs * 16)))
    executor = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_worker,
                                   initargs=(None if ctx else _ENGINES,))
    return _drain(executor, todo, chunk, work)


def _sequential(todo, work):
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield from map(work, todo)
    finally:
        if enabled:
            gc.enable()


def _drain(executor, todo, chunk, work):
    with executor:
        yield from executor.map(work, todo, chunksize=chunk)
