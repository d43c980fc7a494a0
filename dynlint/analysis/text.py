"""Whether a source text may name an identifier, for gates that skip work on text alone.

Python reads identifiers NFKC-normalised (`ｄistributions` is `distributions`), so outside
ASCII the text is normalised first (about 60 µs per module that needs it).
"""
from __future__ import annotations

import re
import unicodedata

_FINDERS: dict = {}


def mentions(text: str, words) -> bool:
    """Whether one of `words` (ASCII; a tuple or frozenset, the same object each time) occurs
    in `text` as Python would read its identifiers."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return finder(words)(text) is not None


def finder(words):
    """`search(text)` for any of `words`: one regex pass over the text is several times
    cheaper than one `in` per word once there are more than a few."""
    found = _FINDERS.get(words)
    if found is None:
        found = _FINDERS[words] = re.compile("|".join(map(re.escape, sorted(words)))).search
    return found
