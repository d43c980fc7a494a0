"""Per-file results cache in `.dynlint_cache/`: JSON data only, never code.

The cache directory usually lives inside the checkout being linted, so its files are input
from whoever controls that checkout. They are therefore parsed with `json` only (no pickle:
loading a planted pickle would run the planter's code) and checked before use:

* one file per configuration, `<dir>/<dynlint version>/<key>.json`, whose header repeats the
  format version, dynlint's version, a fingerprint of dynlint's code and a hash of the
  rules and settings; any difference and the whole file is ignored and rebuilt;
* each entry is `path -> [mtime_ns, size, content digest, result]`. The (mtime, size) pair
  was taken *before* the bytes that gave the digest were read, so it is only a shortcut to
  the content check: when it differs the file is read and hashed, and the entry is used only
  if the digest matches;
* results are decoded by a caller-supplied `decode` that checks every type; a malformed
  entry is dropped and recomputed;
* a result that is no one file's (the cross-file step's record, check/steprecord.py) is an
  entry named `#...`, never an absolute path, with the digest of everything it depends on in
  place of the content digest, checked the same way;
* large texts only some runs need (a file's cross-file facts: most of the bytes, needed only
  when the cross-file step runs) live beside the cache file, in `<key>.blobs` (`Blobs`), with
  the same header, keyed by the digest of their content; an entry holds the digest, and a
  text is used only if its digest matches. A run that needs none never reads that file.

Anything rejected gives at most one warning per run, naming the cache file.

Writes go to a temporary file in the same directory, then `os.replace`: a reader sees the
old file or the new one, never half of one, and a truncated file (a crash, a full disk)
fails to parse and is rebuilt. Concurrent runs each write a complete file; the last one
wins (entries only the other run computed are recomputed next time), which costs a little
work but never serves a wrong result.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat as stat_module
import sys
import tempfile
from pathlib import Path

from .. import __version__

FORMAT = 3                       # 1 was the pickle format, never read again; 3 adds confidence
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# dynlint cache; see https://bford.info/cachedir/\n"


def code_fingerprint() -> str:
    """Changes whenever dynlint's own code does, so an upgrade (or a checkout being edited)
    never serves findings computed by older code."""
    here = Path(__file__).resolve().parent.parent      # the dynlint package
    h = hashlib.blake2b(digest_size=12)
    for p in sorted(here.rglob("*.py")):
        st = p.stat()
        h.update(f"{p.relative_to(here)}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _read_json(file: Path):
    """(data, None) or (None, why it cannot be used) for a cache file; (None, None) if absent.
    Opened without following a symlink and read only if it is a regular file."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) \
        | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(file, flags)
    except FileNotFoundError:
        return None, None
    except OSError as exc:          # a symlink (O_NOFOLLOW), no permission...
        return None, f"cannot open it ({exc.strerror or exc})"
    try:
        with os.fdopen(fd, "rb") as fh:
            # Not a FIFO or a device a planted symlink could point at: reads must end.
            if not stat_module.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None, "not a regular file"
            return json.loads(fh.read()), None
    except (OSError, ValueError, RecursionError) as exc:   # truncated, garbage, bad UTF-8
        return None, f"not valid JSON ({type(exc).__name__})"


def _write_atomic(file: Path, text: str) -> None:
    """Through a temporary file in the same directory and `os.replace`: a reader sees the old
    file or the new one, never half of one. Raises OSError."""
    fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, file)
        tmp = None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


class Absent(ValueError):
    """Raised by a `decode` for data the cache no longer holds (a blob gone): a plain miss,
    computed again without a warning."""


def text_digest(text: str) -> str:
    return content_hash(text.encode("utf-8", "surrogatepass"))


class Blobs:
    """Texts kept beside a cache file (`<key>.blobs`), by the digest of their content, read
    from disk only when a run first asks for one: a warm run, whose cross-file step is read
    from its record, never decodes the facts of 3,000 files, nor even scans their text.

    The two files are written one after the other (the texts first), so a crash or a
    concurrent run may leave an entry whose text is not there: `get` then answers None and
    the caller computes it again, as for any missing entry. A text whose digest does not
    match is rejected (`Malformed`-style ValueError from `get`)."""

    def __init__(self, file: Path, header: dict, warn):
        self.file, self.header, self._warn = file, header, warn
        self.texts: dict | None = None      # as read from disk, on first need
        self.added: dict = {}               # digest -> text put this run
        self.stored: set = set()            # digests the cache file's entries referred to

    def put(self, text: str) -> str:
        digest = text_digest(text)
        self.added[digest] = text
        return digest

    def get(self, digest: str) -> str | None:
        text = self.added.get(digest)
        if text is not None:
            return text
        if self.texts is None:
            self._load()
        text = self.texts.get(digest)
        if text is None:
            self.stored.discard(digest)     # written again at the next save
            return None
        if type(text) is not str or text_digest(text) != digest:
            raise ValueError("a text does not match its digest")
        return text

    def _load(self) -> None:
        self.texts = {}
        data, why = _read_json(self.file)
        if data is None:
            if why is not None:
                self._warn(why, self.file)
            return
        if type(data) is not dict or type(data.get("blobs")) is not dict:
            self._warn("not a dynlint cache", self.file)
            return
        for field, expected in self.header.items():
            if data.get(field) != expected:
                self._warn(f"written for another {field} ({data.get(field)!r:.40})", self.file)
                return
        self.texts = data["blobs"]          # each checked against its digest by `get`

    def save(self, live: set) -> None:
        """Writes the texts of the digests in `live` (those the entries about to be saved refer
        to) unless the file already holds them all; texts no entry refers to are dropped then.
        Raises OSError."""
        if self.texts is None:
            if live <= self.stored:
                return                      # (the file may hold texts no one needs: harmless)
            self._load()
        keep = {}
        for digest in live:
            text = self.added.get(digest)
            if text is None:
                text = self.texts.get(digest)
            if type(text) is str:
                keep[digest] = text
        if keep.keys() == self.texts.keys():
            return
        _write_atomic(self.file, json.dumps({**self.header, "blobs": keep}, separators=(",", ":")))
        self.texts, self.added, self.stored = keep, {}, set(keep)


def _as_stored(data):
    """`data` as the cache file will hold it, so as the next run reads it: through JSON (a
    tuple becomes a list), copied now. A lookup later in the same process (crossfile.Memo
    asks for a file again in a later round; the server runs for hours) then decodes exactly
    what the next run will, not the encoder's tuples, which the decoder rightly rejects as
    malformed, nor a caller's dict changed since the store (encoders hand over live ones)."""
    return json.loads(json.dumps(data, separators=(",", ":")))


def _is_entry(e) -> bool:
    return (type(e) is list and len(e) == 4 and type(e[0]) is int and type(e[1]) is int
            and type(e[2]) is str)


class Cache:
    """`encode(result)` -> JSON-able data; `decode(data, path)` -> result, raising ValueError
    on anything it did not write. With `refs` (data -> the digests of the `Blobs` it refers
    to), both are given the cache's `blobs` as a last argument (and so are the `encode` and
    `decode` passed to `store` and `lookup`)."""

    def __init__(self, directory: Path, key_parts: tuple, encode, decode, refs=None):
        self.encode, self.decode, self.refs = encode, decode, refs
        self.header = {"format": FORMAT, "dynlint": __version__, "code": code_fingerprint(),
                       "key": hashlib.blake2b(repr(tuple(key_parts)).encode(), digest_size=16).hexdigest()}
        name = hashlib.blake2b(repr(sorted(self.header.items())).encode(), digest_size=12).hexdigest()
        self.directory = Path(directory)
        self.file = self.directory / __version__ / f"{name}.json"
        self.blobs = Blobs(self.file.with_suffix(".blobs"), self.header, self._warn) \
            if refs is not None else None
        self.entries: dict[str, list] = {}
        self.fresh: set = set()         # entries this run found current or wrote
        self.dirty = False
        self.warned = False
        self._load()

    def _warn(self, reason: str, file: Path | None = None) -> None:
        if not self.warned:
            self.warned = True
            print(f"dynlint: warning: ignoring cache file {file or self.file}: {reason}; it will "
                  "be rebuilt", file=sys.stderr)

    def _args(self) -> tuple:
        return () if self.blobs is None else (self.blobs,)

    def _load(self) -> None:
        data, why = _read_json(self.file)
        if data is None:
            if why is not None:
                self._warn(why)
            return
        if type(data) is not dict or type(data.get("entries")) is not dict:
            self._warn("not a dynlint cache")
            return
        for field, expected in self.header.items():
            if data.get(field) != expected:
                self._warn(f"written for another {field} ({data.get(field)!r:.40})")
                return
        entries = data["entries"]
        bad = [path for path, entry in entries.items() if not _is_entry(entry)]
        if bad:
            self._warn(f"malformed entry for {bad[0]}")
            for path in bad:
                del entries[path]
            self.dirty = True
        self.entries = entries
        if self.blobs is not None:
            self.blobs.stored = self._live()

    def _live(self) -> set:
        """The digests of the blobs the entries refer to."""
        live: set = set()
        for entry in self.entries.values():
            live.update(self.refs(entry[3]))
        return live

    def lookup(self, path: str, label: str | None = None, tag: str = "", decode=None):
        """The cached result if the file's content is unchanged, else None. `label` (default:
        the absolute path) is the path the decoded result names, e.g. the display path.
        `tag` names another result kept for the same file, read with its own `decode` (a
        walk told other files' summaries: crossfile.Memo), in the same cache file."""
        key = os.path.abspath(path)
        label = label or key
        key += tag
        entry = self.entries.get(key)
        if entry is None:
            return None
        try:
            st = os.stat(path)              # before reading, like the entry's own stat
        except OSError:
            return None
        mtime, size, digest, payload = entry
        if st.st_mtime_ns != mtime or st.st_size != size:
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError:
                return None
            if content_hash(data) != digest:
                return None
            entry[0], entry[1] = st.st_mtime_ns, st.st_size
            self.dirty = True
        try:
            found = (decode or self.decode)(payload, label, *self._args())
            self.fresh.add(key)
            return found
        except Absent:
            del self.entries[key]
            self.dirty = True
            return None
        except (ValueError, TypeError, AttributeError) as exc:
            self._warn(f"malformed entry for {key} ({exc})")
            del self.entries[key]
            self.dirty = True
            return None

    def fresh_entry(self, path: str) -> list | None:
        """`path`'s entry `[mtime, size, digest, data]` if this run's `lookup` found it
        current or `store` wrote it, else None (an entry of a file unreadable now is no
        evidence). Read only: the data is as stored, unchecked."""
        key = os.path.abspath(path)
        return self.entries[key] if key in self.fresh else None

    def drop(self, path: str, reason: str, warn: bool = True) -> None:
        """Forget `path`'s entry, found malformed after `lookup` (the usual warning) or
        absent (`warn` false)."""
        key = os.path.abspath(path)
        if warn:
            self._warn(f"malformed entry for {key} ({reason})")
        self.entries.pop(key, None)
        self.fresh.discard(key)
        self.dirty = True

    def record(self, name: str, digest: str, decode):
        """A result that is no one file's (`name` starts with `#`, never an absolute path),
        kept with the `digest` of everything it depends on: decoded if the digest matches,
        else None. A malformed one is dropped with the usual warning, as a file's entry is."""
        entry = self.entries.get(name)
        if entry is None or entry[2] != digest:
            return None
        try:
            return decode(entry[3])
        except (ValueError, TypeError, AttributeError) as exc:
            self._warn(f"malformed entry for {name} ({exc})")
            del self.entries[name]
            self.dirty = True
            return None

    def keep_record(self, name: str, digest: str, data, limit: int) -> None:
        """Stores a `record` (JSON data); of the records whose name shares `name`'s part
        before its last `:`, only the `limit` last stored are kept."""
        self.entries.pop(name, None)
        self.entries[name] = [0, 0, digest, _as_stored(data)]
        prefix = name.rpartition(":")[0] + ":"
        kin = [k for k in self.entries if k.startswith(prefix)]
        for k in kin[:-limit]:
            del self.entries[k]
        self.dirty = True

    def store(self, path: str, stat: os.stat_result, digest: str, result, tag: str = "",
              encode=None) -> None:
        """`stat` must have been taken before reading the bytes whose hash is `digest`."""
        key = os.path.abspath(path) + tag
        self.entries[key] = [stat.st_mtime_ns, stat.st_size, digest,
                             _as_stored((encode or self.encode)(result, *self._args()))]
        self.fresh.add(key)
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        text = json.dumps({**self.header, "entries": self.entries}, separators=(",", ":"))
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            if not (self.directory / "CACHEDIR.TAG").exists():
                # "x": never write through a planted symlink or over a user's own file.
                for name, content in (("CACHEDIR.TAG", _TAG), (".gitignore", "# Created by dynlint\n*\n")):
                    try:
                        with open(self.directory / name, "x", encoding="utf-8") as fh:
                            fh.write(content)
                    except FileExistsError:
                        pass
            if self.blobs is not None:
                self.blobs.save(self._live())       # first: entries never outlive their texts
            _write_atomic(self.file, text)          # readers never see a partial file
            self.dirty = False              # a long-lived process (the server) saves often
        except OSError:
            pass                            # a read-only tree simply runs without a cache


class Configurations:
    """The configurations met in one run, numbered in order of first use, each with its cache.

    Worker processes get a configuration's number, not the profile object: `gates` (engine
    and size limit by number) is the list a worker initialiser hands them. `suffix` is what
    the results depend on besides the profile's own key (the run's mode, or the pass)."""

    def __init__(self, use_cache: bool, suffix: tuple, encode, decode, refs=None):
        self.gates: list = []                     # (engine, max file size) by number
        self._numbers: dict[int, int] = {}        # id(profile) -> number
        self._caches: dict[int, Cache] = {}
        self._args = (use_cache, suffix, encode, decode, refs)

    def number(self, profile) -> int:
        n = self._numbers.get(id(profile))
        if n is None:
            n = self._numbers[id(profile)] = len(self.gates)
            self.gates.append((profile.engine, profile.settings.max_file_size))
            use_cache, suffix, encode, decode, refs = self._args
            if use_cache:
                self._caches[n] = Cache(profile.settings.cache_path(),
                                        profile.cache_key + suffix, encode, decode, refs)
        return n

    def cache(self, n: int) -> Cache | None:
        return self._caches.get(n)

    def save(self) -> None:
        for cache in self._caches.values():
            cache.save()
