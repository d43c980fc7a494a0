"""One file's analysis result `(findings, facts)` as plain JSON data, for the cache.

Explicit, positional encodings (lists, not dicts: the cache of a 3,000-file tree stays small
and fast to parse). Decoding checks every type, because the cache file lives in the checkout
and may have been written by anyone: anything unexpected raises `Malformed`, never builds an
object the encoder could not have produced. The path is not stored; the cache entry's own
path is passed back in.
"""
from __future__ import annotations

import json
from dataclasses import fields
from itertools import chain

from ..engine.match import FileFacts
from ..finding import Edit, Finding, Fix
from ..project.cache import Absent
from ..report.snippets import Lines


class Malformed(ValueError):
    """Cached data that this code did not write."""


def _check(ok: bool) -> None:
    if not ok:
        raise Malformed("unexpected value in cache entry")


_STR = {str}


def _strs(value) -> list:
    # set(map(type, ...)) runs in C: a warm run decodes tens of thousands of names.
    _check(type(value) is list and (not value or set(map(type, value)) == _STR))
    return value


# -- Edit / Fix / Finding -----------------------------------------------------------------------
def edit_to_json(e: Edit) -> list:
    return [e.line, e.column, e.end_line, e.end_column, e.content]


def edit_from_json(data) -> Edit:
    _check(type(data) is list and len(data) == 5 and all(type(v) is int for v in data[:4])
           and type(data[4]) is str)
    return Edit(*data)


def fix_to_json(fix: Fix) -> list:
    return [fix.applicability, fix.description, [edit_to_json(e) for e in fix.edits], list(fix.imports)]


def fix_from_json(data) -> Fix:
    _check(type(data) is list and len(data) == 4 and type(data[0]) is str and type(data[1]) is str
           and type(data[2]) is list)
    return Fix(data[0], data[1], tuple(edit_from_json(e) for e in data[2]), tuple(_strs(data[3])))


def finding_to_json(f: Finding) -> list:
    return [f.line, f.column, f.end_line, f.end_column, f.code, f.name, f.message, f.severity,
            f.scope, None if f.fix is None else fix_to_json(f.fix), f.confidence]


_FINDING_FIELDS = tuple(f.name for f in fields(Finding))
_CONFIDENCES = frozenset({"certain", "likely"})


def finding_from_json(data, path: str) -> Finding:
    _check(type(data) is list and len(data) == 11)
    line, column, end_line, end_column, code, name, message, severity, scope, fix, confidence = data
    _check(type(line) is int and type(column) is int and type(end_line) is int
           and type(end_column) is int and type(code) is str and type(name) is str
           and type(message) is str and type(severity) is str and type(scope) is str
           and confidence in _CONFIDENCES)
    # As pickle does: fill the frozen dataclass without its __init__ (a third of the cost).
    f = object.__new__(Finding)
    f.__dict__.update(zip(_FINDING_FIELDS, (path, line, column, end_line, end_column, code, name,
                                            message, severity, scope,
                                            None if fix is None else fix_from_json(fix),
                                            None, confidence)))
    return f


# -- cross-file facts ---------------------------------------------------------------------------
def facts_to_json(facts: FileFacts) -> list:
    # Sets sorted: the same facts give the same text in any process (see _facts_field).
    exports = {name: [is_model, sorted(refs)] for name, (is_model, refs) in facts.exports.items()}
    out = [facts.module, exports, sorted(facts.model_refs),
           [[func, finding_to_json(f)] for func, f in facts.conditional]]
    if facts.summarises():
        out += [dict(facts.returns),                # tuples (nested too) become lists
                facts.demands, facts.classes, facts.aliases, facts.calls, facts.opens,
                facts.imports, facts.neutral]
        if facts.negated:
            out.append(facts.negated)
    return out


def facts_from_json(data, path: str) -> FileFacts:
    """The names come back as the lists JSON gives (the cross-file step only iterates them):
    building 50,000 frozensets would be most of a warm run's decoding."""
    _check(type(data) is list and len(data) in (4, 12, 13) and type(data[0]) is str
           and type(data[1]) is dict and type(data[3]) is list)
    exports = data[1]
    _check(all(type(v) is list and len(v) == 2 and type(v[0]) is bool and type(v[1]) is list
               for v in exports.values()))
    # One type check over every name of the file.
    _check(set(map(type, chain.from_iterable(v[1] for v in exports.values()))) <= _STR)
    conditional = []
    for item in data[3]:
        _check(type(item) is list and len(item) == 2 and type(item[0]) is str)
        conditional.append((item[0], finding_from_json(item[1], path)))
    facts = FileFacts(data[0], exports, _strs(data[2]), conditional)
    if len(data) >= 12:
        returns, demands, classes, aliases, calls, opens, imports, neutral = data[4:12]
        _check(type(returns) is dict and type(demands) is dict and type(classes) is dict
               and type(aliases) is dict and type(calls) is dict and type(opens) is dict
               and type(imports) is list and type(neutral) is dict)
        _check(all(type(v) is list and len(v) == 3 and type(v[0]) is int and type(v[1]) is int
                   and type(v[2]) is list for v in neutral.values()))
        facts.neutral = neutral
        _check(all(type(v) is dict for v in calls.values()))
        facts.calls, facts.opens, facts.imports = calls, opens, imports
        _check(all(type(v) is list for v in demands.values()))
        facts.returns = {k: _summary(v) for k, v in returns.items()}
        facts.demands, facts.classes, facts.aliases = demands, classes, aliases
    if len(data) == 13:
        negated = data[12]
        _check(type(negated) is dict and all(
            type(v) is list and len(v) == 2 and type(v[0]) is int and type(v[1]) is int
            for v in negated.values()))
        facts.negated = negated
    return facts


def _summary(v):
    """A return summary as JSON keeps it: an int, or a list for a tuple (nested ones too)."""
    if type(v) is list:
        return tuple(_summary(i) for i in v)
    _check(type(v) is int)
    return v


# -- one file's result --------------------------------------------------------------------------
_NOTHING = [[], None]


def result_to_json(result) -> list:
    findings, facts = result
    return [[finding_to_json(f) for f in findings], None if facts is None else facts_to_json(facts)]


def result_from_json(data, path: str):
    if data == _NOTHING:                    # most files of a tree
        return [], None
    _check(type(data) is list and len(data) == 2 and type(data[0]) is list)
    findings = [finding_from_json(f, path) for f in data[0]]
    return findings, None if data[1] is None else facts_from_json(data[1], path)


# -- a file's facts beside its entry: read and decoded only when the cross-file step runs -------
# Facts are nine tenths of a project's cached bytes (names, calls, imports of every file) and a
# run whose cross-file step is read from its record (steprecord.py) needs none of them. So the
# entry keeps the digest of the facts' JSON text, the text lives in the cache's blobs
# (project/cache.Blobs: another file, read on first need), and beside the digest what a run
# must know without the text (which files take part).
IN_STEP, STARTS_STEP = 1, 2


class Missing(Malformed, Absent):
    """Facts whose text the cache's blobs no longer hold (a crash or a concurrent run between
    the writes of the two files): computed again, no warning."""


def facts_flags(facts: FileFacts) -> int:
    """IN_STEP: the file takes part in the cross-file step; STARTS_STEP: the step must run."""
    flags = IN_STEP if (facts.exports or facts.model_refs or facts.conditional
                        or facts.summarises()) else 0
    if facts.conditional or facts.demands or facts.opens or facts.neutral:
        flags |= STARTS_STEP
    return flags


class LazyFacts:
    """A file's cached facts, still a digest of their text (`decode` reads and builds them)."""
    __slots__ = ("flags", "digest", "path", "blobs")

    def __init__(self, flags: int, digest: str, path: str, blobs):
        self.flags, self.digest, self.path, self.blobs = flags, digest, path, blobs

    def decode(self) -> FileFacts:
        """Raises Malformed for anything the encoder could not have written, Missing when the
        text is not in the blobs."""
        try:
            text = self.blobs.get(self.digest)
        except ValueError as exc:
            raise Malformed(str(exc)) from None
        if text is None:
            raise Missing("facts not in the cache's blobs")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise Malformed(f"facts are not JSON ({type(exc).__name__})") from None
        facts = facts_from_json(data, self.path)
        _check(facts_flags(facts) == self.flags)
        return facts


def _facts_field(facts, blobs) -> list | None:
    if facts is None:
        return None
    # Keys sorted (a summary's dict is filled in set order): the same facts give the same
    # text, so the same digest, in any process, as the cross-file step's record needs
    # (steprecord.py: an edit that leaves a file's facts as they were reads the record).
    return [facts_flags(facts), blobs.put(json.dumps(facts_to_json(facts), separators=(",", ":"),
                                                     sort_keys=True))]


def _facts_from_field(data, path: str, blobs) -> LazyFacts | None:
    if data is None:
        return None
    _check(type(data) is list and len(data) == 2 and type(data[0]) is int
           and 0 <= data[0] <= IN_STEP | STARTS_STEP and type(data[1]) is str)
    return LazyFacts(data[0], data[1], path, blobs)


def blob_refs(data) -> tuple:
    """The digests of blobs an entry's data (`entry_to_json`, or a record) refers to: what the
    cache keeps of its blobs. Anything unexpected refers to none."""
    if type(data) is list and len(data) >= 2 and type(data[1]) is list and len(data[1]) == 2 \
            and type(data[1][1]) is str:
        return (data[1][1],)
    return ()


# -- a cache entry: the result and the source lines its report shows ----------------------------
def lines_to_json(lines) -> list | None:
    return None if lines is None else [lines.count, [[n, t] for n, t in lines.kept.items()]]


def lines_from_json(data) -> Lines | None:
    if data is None:
        return None
    _check(type(data) is list and len(data) == 2 and type(data[0]) is int and type(data[1]) is list)
    kept = {}
    for item in data[1]:
        _check(type(item) is list and len(item) == 2 and type(item[0]) is int and type(item[1]) is str)
        kept[item[0]] = item[1]
    return Lines(data[0], kept)


def entry_to_json(entry, blobs) -> list:
    """`[findings, facts, lines]`: a result's findings (as `result_to_json`), its facts as
    `[flags, digest of their JSON text]` (the text put in `blobs`, see LazyFacts) and the
    lines its report shows."""
    (findings, facts), lines = entry
    return [[finding_to_json(f) for f in findings], _facts_field(facts, blobs),
            lines_to_json(lines)]


_NO_ENTRY = _NOTHING + [None]


def entry_from_json(data, path: str, blobs, lazy: bool = False):
    """(result, lines) of `entry_to_json`; with `lazy`, the result's facts are a LazyFacts."""
    if data == _NO_ENTRY:                   # most files of a tree
        return ([], None), None
    _check(type(data) is list and len(data) == 3 and type(data[0]) is list)
    facts = _facts_from_field(data[1], path, blobs)
    if facts is not None and not lazy:
        facts = facts.decode()
    return ([finding_from_json(f, path) for f in data[0]], facts), lines_from_json(data[2])


def lazy_entry_from_json(data, path: str, blobs):
    return entry_from_json(data, path, blobs, lazy=True)
