"""Whether a source text may name an identifier, for gates that skip work on text alone.

Python reads identifiers NFKC-normalised (`ｄistributions` is `distributions`), so outside
ASCII the text is normalised first (about 60 µs per module that needs it).
"""
from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from itertools import accumulate
from operator import add

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


class LineText:
    """A module's lines as one text: which lines hold a word, found once per set of words, so
    that whether a function's lines hold one is a binary search, not a join and a split of
    its text. A word a range of lines does not hold is no token of it either
    (`FunctionInfo.refs` and the like split the same text): a look here spares tokenising
    the many functions that cannot name the word."""

    __slots__ = ("_found", "lines", "starts", "text")

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.text = "\n".join(lines)
        # where line k + 1 starts: the lengths before it, and a newline after each
        self.starts = list(map(add, accumulate(map(len, lines), initial=0), range(len(lines) + 1)))
        self._found: dict = {}

    def lines_holding(self, words) -> list[int]:
        """The sorted numbers (1-based) of the lines that hold one of `words` as text."""
        key = frozenset(words)
        found = self._found.get(key)
        if found is None:
            text, starts, at = self.text, self.starts, set()
            for w in key:
                i = text.find(w)
                while i != -1:
                    at.add(bisect_right(starts, i))
                    i = text.find(w, i + 1)
            found = self._found[key] = sorted(at)
        return found

    def holds(self, words, first: int, last: int) -> bool:
        """Whether lines `first`..`last` (1-based, inclusive) hold one of `words` as text."""
        return within(self.lines_holding(words), first, last)


def within(at: list[int], first: int, last: int) -> bool:
    """Whether sorted `at` (`LineText.lines_holding`) has a number in `first`..`last`."""
    i = bisect_left(at, first)
    return i < len(at) and at[i] <= last
