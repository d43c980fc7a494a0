"""Whether a source text may name an identifier, for gates that skip work on text alone.

Python reads identifiers NFKC-normalised (`ｄistributions` is `distributions`), so outside
ASCII the text is normalised first (about 60 µs per module that needs it).
"""
from __future__ import annotations

import unicodedata


def mentions(text: str, words) -> bool:
    """Whether one of `words` (ASCII) occurs in `text` as Python would read its identifiers."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return any(w in text for w in words)
