"""Per-file results cache in `.dynlint_cache/`.

One JSON file per rule configuration (package version, the bytes of every enabled rule
file, the selected codes, the file size limit). Entries are keyed by absolute path and
validated by (mtime, size) first, then by a content hash, so a warm run reads no unchanged
file. Values are whatever JSON the caller stores (runner stores results_json's form). JSON,
never pickle: loading a cache must not be able to run code.
"""
from __future__ import annotations

import hashlib
import os
import json
import tempfile
from pathlib import Path

from .. import __version__

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


class Cache:
    def __init__(self, directory: Path, key_parts: tuple):
        key = (__version__, code_fingerprint()) + tuple(key_parts)
        h = hashlib.blake2b(repr(key).encode(), digest_size=12)
        self.directory = Path(directory)
        self.file = self.directory / __version__ / f"{h.hexdigest()}.json"
        self.entries: dict[str, tuple] = {}
        self.dirty = False
        try:
            with open(self.file, encoding="utf-8") as fh:
                loaded = json.load(fh)
            if isinstance(loaded, dict):
                self.entries = {k: v for k, v in loaded.items()
                                if isinstance(v, list) and len(v) == 4}
        except (OSError, ValueError, TypeError, RecursionError):
            self.entries = {}

    def lookup(self, path: str):
        """Cached findings if the file is unchanged, else None."""
        entry = self.entries.get(os.path.abspath(path))
        if entry is None:
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        mtime, size, digest, findings = entry
        if st.st_mtime_ns == mtime and st.st_size == size:
            return findings
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        if content_hash(data) == digest:
            self.entries[os.path.abspath(path)] = [st.st_mtime_ns, st.st_size, digest, findings]
            self.dirty = True
            return findings
        return None

    def store(self, path: str, stat: os.stat_result, digest: str, findings) -> None:
        self.entries[os.path.abspath(path)] = [stat.st_mtime_ns, stat.st_size, digest, findings]
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            tag = self.directory / "CACHEDIR.TAG"
            if not tag.exists():
                tag.write_text(_TAG)
                (self.directory / ".gitignore").write_text("# Created by dynlint\n*\n")
            fd, tmp = tempfile.mkstemp(dir=self.file.parent, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(self.entries, fh, separators=(",", ":"))
            os.replace(tmp, self.file)
        except OSError:
            pass                 # a read-only tree simply runs without a cache
