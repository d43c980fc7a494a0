"""The source lines the `full` format shows, cut when a file is analysed and kept in the cache.

Rendering 2,000 findings used to read and split again every file that has one (a third of a
warm run over transformers). The worker that analysed the file still has its text, so it cuts
the few lines the report can show (each finding's line, the lines its fix edits) and the cache
keeps them next to the findings: their file's content hash guarantees they are current.

Lines are split as Python's tokenizer does (`\\r\\n`, `\\r`, `\\n`), so that line numbers agree
with the `ast` positions of the findings even in files holding form feeds or other characters
`str.splitlines` would also break on.
"""
from __future__ import annotations

import re

_LINE_BREAK = re.compile(r"\r\n|\r|\n")

_KNOWN: dict[str, "Lines"] = {}          # display path -> its lines, for this run's report


class Lines:
    """The lines of a file that a report may show: `len()` is the file's line count and
    `lines[i]` / `lines[a:b]` give those lines (0-based like a list), or raise KeyError for
    one that was not kept."""
    __slots__ = ("count", "kept")

    def __init__(self, count: int, kept: dict[int, str]):
        self.count, self.kept = count, kept          # kept: 1-based line number -> text

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self.kept[i + 1] for i in range(*index.indices(self.count))]
        return self.kept[index + 1]


def wanted(findings) -> set[int]:
    """1-based numbers of the lines the reports show for these findings."""
    out = set()
    for f in findings:
        out.add(f.line)
        if f.fix is not None and f.fix.edits:
            # The diff shows every line from the first edited one to the last.
            out.update(range(min(e.line for e in f.fix.edits),
                             max(e.end_line for e in f.fix.edits) + 1))
    return out


def cut(text: str, findings) -> Lines | None:
    """The lines of `text` the reports need for `findings` (None when there are none)."""
    need = wanted(findings)
    if not need:
        return None
    last = max(need)
    parts = _LINE_BREAK.split(text, maxsplit=last) if last > 0 else []
    count = _count(text)
    return Lines(count, {n: parts[n - 1] for n in sorted(need) if 0 < n <= min(last, count)})


def remember(path: str, lines: Lines | None) -> None:
    """Keeps `lines` for the report; lines cut earlier in this run from the same text (a
    file's first walk, then a walk again of some of its functions that kept only its own
    findings' lines) are kept too, so that no finding sends the report back to the file."""
    if lines is None:
        return
    known = _KNOWN.get(path)
    if known is not None and known.count == lines.count and known.kept is not lines.kept:
        lines = Lines(lines.count, {**known.kept, **lines.kept})
    _KNOWN[path] = lines


def forget_all() -> None:
    _KNOWN.clear()


def known(path: str) -> Lines | None:
    return _KNOWN.get(path)


def split(text: str) -> list[str]:
    """Every line of `text`, split the same way (no empty line after a final line break)."""
    lines = _LINE_BREAK.split(text)
    if lines and not lines[-1]:
        lines.pop()
    return lines


def _count(text: str) -> int:
    """len(split(text)), without building the lines."""
    n = text.count("\n") + text.count("\r") - text.count("\r\n") + 1
    return n - 1 if not text or text.endswith(("\n", "\r")) else n
