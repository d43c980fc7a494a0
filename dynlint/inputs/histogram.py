"""Length histograms: what every bucketing method works on.

A histogram is the sorted distinct lengths with a weight each (how many padded items share
that length). Per-sample bucketing weighs each length by its item count; per-batch bucketing
(random batches padded to their longest item) weighs each batch maximum by the batch size,
since every item of the batch is padded to the same bucket.
"""
from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path


class LengthsError(ValueError):
    """A lengths input that cannot be used; the message names the file and line when known."""


@dataclass(frozen=True)
class Histogram:
    values: tuple[int, ...]    # distinct lengths, ascending
    counts: tuple[int, ...]    # weight of each length (items padded to it)

    @classmethod
    def from_lengths(cls, lengths, weights=None) -> Histogram:
        counter: Counter = Counter()
        if weights is None:
            for n in lengths:
                counter[_as_length(n)] += 1
        else:
            for n, w in zip(lengths, weights, strict=True):
                counter[_as_length(n)] += _as_weight(w)
        if not counter:
            raise LengthsError("no lengths: the input is empty")
        values = tuple(sorted(counter))
        return cls(values, tuple(counter[v] for v in values))

    @classmethod
    def from_pairs(cls, pairs) -> Histogram:
        return cls.from_lengths([v for v, _ in pairs], [c for _, c in pairs])

    @property
    def items(self) -> int:
        return sum(self.counts)

    @property
    def tokens(self) -> int:
        return sum(v * c for v, c in zip(self.values, self.counts))

    @property
    def longest(self) -> int:
        return self.values[-1]

    def expand(self) -> list[int]:
        return [v for v, c in zip(self.values, self.counts) for _ in range(c)]

    def key(self, **params) -> str:
        """sha256 of a canonical JSON of the (length, weight) pairs and the solve parameters:
        independent of input order, dtype and container (unlike hashing a raw buffer)."""
        doc = {"histogram": [[v, c] for v, c in zip(self.values, self.counts)], **params}
        text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def to_dict(self) -> dict:
        return {"items": self.items, "distinct": len(self.values), "min": self.values[0],
                "max": self.longest, "tokens": self.tokens}


def _as_length(n) -> int:
    if isinstance(n, bool):
        raise LengthsError(f"not a length: {n!r}")
    try:
        value = int(n)
    except (TypeError, ValueError):
        raise LengthsError(f"not a length: {n!r}") from None
    if value != n or value < 0:
        raise LengthsError(f"not a length (a non-negative integer): {n!r}")
    return value


def _as_weight(w) -> int:
    value = _as_length(w)
    return value


def batch_maxima(lengths, batch_size: int, *, shuffle: bool = True, seed: int = 0,
                 drop_last: bool = False) -> Histogram:
    """The per-batch histogram: lengths split into batches the way a DataLoader with
    `shuffle` would (seeded), each batch weighted by its size at its longest item."""
    if batch_size < 1:
        raise LengthsError(f"batch size must be >= 1, got {batch_size}")
    order = [_as_length(n) for n in lengths]
    if not order:
        raise LengthsError("no lengths: the input is empty")
    if shuffle:
        random.Random(seed).shuffle(order)
    maxima, sizes = [], []
    for start in range(0, len(order), batch_size):
        chunk = order[start:start + batch_size]
        if drop_last and len(chunk) < batch_size:
            break
        maxima.append(max(chunk))
        sizes.append(len(chunk))
    return Histogram.from_lengths(maxima, sizes)


# -- reading lengths files --------------------------------------------------------------

def load_lengths(path) -> Histogram:
    """Read lengths from FILE: `.txt`/`.csv` (one length a line, or `length,count`/`length count`
    pairs; `#` comments and blank lines skipped; a CSV header row is allowed), `.json` (a list
    of lengths, `{"lengths": [...]}` or `{"histogram": {"length": count}}`), `.npy` (an integer
    array, loaded without pickle)."""
    path = Path(path)
    if path.suffix == ".npy":
        return _load_npy(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LengthsError(f"{path}: cannot read lengths: {exc}") from None
    if path.suffix == ".json":
        return _load_json(path, text)
    return _load_lines(path, text)


def _load_lines(path: Path, text: str) -> Histogram:
    pairs = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.replace(",", " ").replace("\t", " ").split()
        if lineno == 1 and not fields[0].lstrip("-").isdigit():
            continue   # a CSV header such as `length,count`
        try:
            if len(fields) > 2:
                raise LengthsError(f"expected `length` or `length count`, got {len(fields)} fields")
            pairs.append((_parse_int(fields[0]), _parse_int(fields[1]) if len(fields) == 2 else 1))
        except LengthsError as exc:
            raise LengthsError(f"{path}:{lineno}: {exc}") from None
    if not pairs:
        raise LengthsError(f"{path}: no lengths in the file")
    return Histogram.from_pairs(pairs)


def _parse_int(field: str) -> int:
    try:
        value = int(field)
    except ValueError:
        raise LengthsError(f"not an integer length: {field!r}") from None
    if value < 0:
        raise LengthsError(f"negative value: {value}")
    return value


def _load_json(path: Path, text: str) -> Histogram:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LengthsError(f"{path}:{exc.lineno}: malformed JSON: {exc.msg}") from None
    try:
        if isinstance(doc, dict) and "histogram" in doc:
            hist = doc["histogram"]
            pairs = hist.items() if isinstance(hist, dict) else hist
            return Histogram.from_pairs([(_parse_int(str(k)), v) for k, v in pairs])
        if isinstance(doc, dict) and "lengths" in doc:
            doc = doc["lengths"]
        if not isinstance(doc, list):
            raise LengthsError("expected a list of lengths, {\"lengths\": [...]} or {\"histogram\": {...}}")
        return Histogram.from_lengths(doc)
    except (LengthsError, TypeError, ValueError) as exc:
        raise LengthsError(f"{path}: {exc}") from None


def _load_npy(path: Path) -> Histogram:
    try:
        import numpy as np
    except ImportError:
        raise LengthsError(f"{path}: reading .npy needs numpy (pip install 'dynlint[buckets]')") from None
    try:
        array = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise LengthsError(f"{path}: cannot read lengths: {exc}") from None
    if array.dtype.kind not in "iu":
        raise LengthsError(f"{path}: expected an integer array, got dtype {array.dtype}")
    try:
        return Histogram.from_lengths(array.ravel().tolist())
    except LengthsError as exc:
        raise LengthsError(f"{path}: {exc}") from None
