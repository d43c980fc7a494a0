"""What the cross-file step concluded, kept for the next run over the same, unchanged project.

The step (summaries across files to a fixed point, then the reach of model code across files)
rebuilds the project index from the facts of every file of the project: most of a warm run
over a large package (transformers: 0.7 s of 1.2 s), although nothing changed. What it adds to
the files' own findings depends only on its input, the facts of the files named (as the cache
holds them) and the bytes of the project's other files, on the text of the files it walks
again, on where each file is shown (display paths name the findings) and on the configuration
of each (a cache file's name hashes dynlint's code, the rules, the settings and the mode). So
its additions are kept as one record in the first named file's cache, with a digest of its
input and the content digests of the files it walked again; a run that matches both reads
the record instead of running the step (a warm run, or an edit that leaves the file's facts
as they were), any other run (facts changed, a file added or gone) runs the step and replaces
the record.

The record has the layout of a file's entry (`[findings, facts, lines]`, here with no facts and
no lines of its own, then what only a record has), so whatever reads the cache file sees
entries of one shape, and it is checked field by field like them: a malformed record is
dropped with the cache's one warning and the step runs.
"""
from __future__ import annotations

import hashlib

from .result_json import Malformed, finding_from_json, finding_to_json, lines_from_json, \
    lines_to_json

KEEP = 4                    # records per cache file: runs over different sets of files
_PREFIX = "#cross-file-step:"


def _check(ok: bool) -> None:
    if not ok:
        raise Malformed("unexpected value in a cross-file step record")


class StepRecord:
    """The record of one set of named files (`name`) in `cache`, valid for `digest`."""

    def __init__(self, cache, name: str, digest: str, caches: dict):
        self.cache, self.name, self.digest = cache, name, digest
        self.caches = caches        # path of a named file -> its results cache
        self._kept = self

    def _digest(self, path: str) -> str | None:
        cache = self.caches.get(path)
        entry = cache.fresh_entry(path) if cache is not None else None
        return entry[2] if entry is not None else None

    def load(self):
        """(findings of the walks again, reached findings, lines by display, the functions
        whose findings it drops: runner._in_cold) as the step found them, or None when there
        is no valid record for this digest and the files walked again are not all as they
        were."""
        if self._kept is self:
            kept = self.cache.record(self.name, self.digest, _decode)
            if kept is not None and any(self._digest(path) != digest
                                        for path, digest in kept[3]):
                kept = None
            self._kept = kept and (*kept[:3], kept[4])
        return self._kept

    def store(self, added: list, reached: list, lines: dict, walked, dropped: list) -> None:
        """`walked`: the named files the step walked again (their findings depend on their
        text, not only on their facts); `dropped`: the functions whose findings it drops
        and the findings it withdraws (runner._in_cold)."""
        found = added + reached
        digests = [[path, self._digest(path)] for path in sorted(walked)]
        if any(digest is None for _, digest in digests):
            return
        data = [[finding_to_json(f) for f in found], None, None,
                [len(added), [f.path for f in found],
                 [[display, lines_to_json(kept)] for display, kept in lines.items()], digests,
                 dropped]]
        self.cache.keep_record(self.name, self.digest, data, KEEP)


def _decode(data):
    _check(type(data) is list and len(data) == 4 and type(data[0]) is list
           and data[1] is None and data[2] is None)
    meta = data[3]
    _check(type(meta) is list and len(meta) == 5 and type(meta[0]) is int
           and type(meta[1]) is list and type(meta[2]) is list and type(meta[3]) is list
           and type(meta[4]) is list)
    n_added, paths, kept, walked, dropped = meta
    _check(all(type(d) is list and len(d) in (4, 5) and type(d[0]) is str and type(d[1]) is int
               and type(d[2]) is int and type(d[3]) is list and type(d[-1]) in (int, list)
               for d in dropped))
    _check(all(type(w) is list and len(w) == 2 and type(w[0]) is str and type(w[1]) is str
               for w in walked))
    _check(len(paths) == len(data[0]) and 0 <= n_added <= len(paths)
           and all(type(p) is str for p in paths))
    found = [finding_from_json(f, path) for f, path in zip(data[0], paths)]
    lines = {}
    for item in kept:
        _check(type(item) is list and len(item) == 2 and type(item[0]) is str)
        lines[item[0]] = lines_from_json(item[1])
        _check(lines[item[0]] is not None)
    return found[:n_added], found[n_added:], lines, walked, dropped


def step_record(named: list, others: list):
    """The record for a run over `named` ([(path, display, results cache)] in the run's
    order) in a project whose other files are `others` ([(path, facts cache)]); None when a
    file has no entry this run found current (no cache, an unreadable file): the step then
    runs and is not recorded. The digest covers the named files' cached facts as stored (the
    step's input: facts tampered with in the cache make the step run, decode them and reject
    them, as cache.py guarantees), not their bytes: an edit that leaves a file's facts as they
    were (a comment, a statement no other file sees) reads the record too, unless the step
    walked that file again (the record lists those files with their content digests). The
    other files' facts come from the scopes pre-pass: their bytes count."""
    if not named or named[0][2] is None:
        return None
    # The parts are joined and hashed once: 3,000 files' worth of small updates were a tenth
    # of a warm run.
    parts, names = [], []
    for part, files in (("named\n", named), ("others\n", others)):
        parts.append(part)
        for path, *where, cache in files:
            entry = cache.fresh_entry(path) if cache is not None else None
            if entry is None:
                return None
            where = "\0".join((path, *where, cache.file.name)) + "\n"
            parts.append(where)
            if part == "others\n":
                parts.append(entry[2] + "\n")
            else:
                names.append(where)
                # The facts as stored: flags and the digest of their text (result_json).
                facts = entry[3][1] if type(entry[3]) is list and len(entry[3]) == 3 else None
                if type(facts) is list and len(facts) == 2 and type(facts[1]) is str:
                    parts.append(f"{facts[0]!r}:{len(facts[1])}:{facts[1]}")
                else:
                    parts.append(repr(facts))
    digest = hashlib.blake2b("".join(parts).encode("utf-8", "surrogateescape"),
                             digest_size=16).hexdigest()
    name = hashlib.blake2b("".join(names).encode("utf-8", "surrogateescape"),
                           digest_size=8).hexdigest()
    return StepRecord(named[0][2], _PREFIX + name, digest,
                      {path: cache for path, _, cache in named})
