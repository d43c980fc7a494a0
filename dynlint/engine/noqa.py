"""`# noqa` comments, read from the tokenizer: a `# noqa` inside a string literal is not a comment.

Line directives (flake8's syntax, ruff's strictness):
  `# noqa`                 suppresses every finding on the line (blanket);
  `# noqa: DYN101, DYN2`   suppresses those codes (a code also works as a prefix, as in flake8);
                           any spacing after the colon, comma or space separated;
  `# noqa: DYN1O1`         a misspelled code suppresses nothing (reported by DYN100), it is
                           never read as the prefix `DYN1`.
A file directive `# dynlint: noqa` (or `# dynlint: noqa: CODES`) on a line of its own covers the
whole file.

The same parse serves the unused-noqa check (DYN100), its fix, and `--add-noqa`.
"""
from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

_DIRECTIVE = re.compile(r"#\s*noqa(?![\w-])(?P<colon>\s*:)?", re.IGNORECASE)
_FILE = re.compile(r"#\s*dynlint:\s*noqa(?![\w-])(?P<colon>\s*:)?", re.IGNORECASE)
_WORD = re.compile(r"[\s,]*(?P<word>[A-Za-z][A-Za-z0-9]*)")
_CODE_LIKE = re.compile(r"[A-Za-z]+[0-9][A-Za-z0-9]*\Z")
_CODE = re.compile(r"[A-Z]+[0-9]+\Z")


@dataclass
class Directive:
    line: int                       # 1-based
    comment_col: int                # 0-based character column of the comment's `#`
    comment: str                    # the whole comment token
    start: int                      # the directive's span inside `comment`
    end: int
    codes: tuple | None             # None: blanket
    invalid: tuple = ()             # code-like words that are not codes (`DYN1O1`)
    used: set = field(default_factory=set)

    def suppresses(self, code: str) -> bool:
        if self.codes is None:
            return True
        hit = [c for c in self.codes if code.startswith(c)]
        self.used.update(hit)
        return bool(hit)


def _parse(comment: str, regex, line: int, col: int) -> Directive | None:
    m = regex.search(comment)
    if not m:
        return None
    if not m.group("colon"):
        return Directive(line, col, comment, m.start(), m.end(), None)
    codes, invalid, pos = [], [], m.end()
    while True:
        w = _WORD.match(comment, pos)
        if not w or not _CODE_LIKE.match(w.group("word")):
            break
        word = w.group("word").upper()
        (codes if _CODE.match(word) else invalid).append(word)
        pos = w.end()
    return Directive(line, col, comment, m.start(), pos, tuple(codes), tuple(invalid))


@dataclass
class Noqa:
    lines: dict = field(default_factory=dict)       # line -> Directive
    file: Directive | None = None
    in_string: set = field(default_factory=set)     # lines that end inside a string literal
    continued: set = field(default_factory=set)     # lines ending with a backslash
    comments: dict = field(default_factory=dict)    # line -> (col, comment) of every comment

    def suppressed(self, code: str, line: int, end_line: int | None = None) -> bool:
        if self.file is not None and self.file.suppresses(code):
            return True
        for n in (line, end_line):
            d = self.lines.get(n)
            if d is not None and d.suppresses(code):
                return True
        return False


EMPTY = Noqa()


def scan(source: str, need_layout: bool = False, tree=None) -> Noqa:
    """The directives of one module. Cheap when the text mentions no noqa at all. With the
    module's `tree`, the tokenizer starts at the last top-level statement before the first
    line that mentions noqa (only `file` and `lines` are then complete, not `comments`)."""
    low = source.lower()
    if not need_layout and "noqa" not in low:
        return Noqa()
    out = Noqa()
    lines = source.splitlines()
    text = source
    skipped = 0
    if not need_layout and len(low) == len(source):
        # No comment after the last line that mentions noqa can be a directive: the tokenizer
        # (pure Python, the cost here) stops there. Tokens before a cut come out the same.
        end = source.find("\n", low.rfind("noqa"))
        text = source[:end + 1] if end >= 0 else source
        if tree is not None and "\r" not in text:
            # Nor before: a statement at column 0 of the module starts a line outside any
            # string or bracket, where the tokenizer is in the state it starts in.
            first = low.count("\n", 0, low.find("noqa")) + 1
            start = max((n.lineno for n in tree.body if n.lineno <= first and n.col_offset == 0),
                        default=1)
            if start > 1:
                at = _nth_line_start(text, start)
                text, skipped = text[at:], start - 1
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            kind = tok.type
            if kind == tokenize.COMMENT:
                (row, col), text = tok.start, tok.string
                row += skipped
                out.comments[row] = (col, text)
                if "noqa" not in text.lower():
                    continue
                own_line = not lines[row - 1][:col].strip()
                if own_line and out.file is None:
                    out.file = _parse(text, _FILE, row, col)
                d = _parse(text, _DIRECTIVE, row, col)
                if d is not None and not (own_line and _FILE.search(text)):
                    out.lines[row] = d
            elif need_layout and tok.start[0] != tok.end[0] and kind not in (
                    tokenize.NL, tokenize.NEWLINE):
                out.in_string.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass                        # ast parsed it; keep what the tokenizer gave
    if need_layout:
        out.continued = {i for i, text in enumerate(lines, 1) if text.endswith("\\")}
    return out


def _nth_line_start(text: str, n: int) -> int:
    """Offset of the start of line `n` (1-based; lines end with `\\n`)."""
    at = 0
    for _ in range(n - 1):
        at = text.index("\n", at) + 1
    return at


# -- unused / unknown codes (DYN100) -----------------------------------------------------------
def unused(noqa: Noqa, own_prefixes, known, enabled):
    """[(directive, {"unused": [...], "non-enabled": [...], "unknown": [...]})] for codes of
    this tool (`own_prefixes`) that suppressed nothing. Blanket directives and other tools'
    codes are left alone: they may serve flake8 or ruff."""
    out = []
    for d in noqa.lines.values():
        if d.codes is None:
            continue
        kinds = {"unused": [], "non-enabled": [], "unknown": []}
        for c in d.codes:
            if c in d.used or not c.startswith(own_prefixes):
                continue
            if not any(k.startswith(c) for k in known):
                kinds["unknown"].append(c)
            elif not any(k.startswith(c) for k in enabled):
                kinds["non-enabled"].append(c)
            else:
                kinds["unused"].append(c)
        kinds["unknown"] += [c for c in d.invalid if c.startswith(own_prefixes)]
        if any(kinds.values()):
            out.append((d, kinds))
    return out


def describe(kinds) -> str:
    parts = [f"{k}: " + ", ".join(f"`{c}`" for c in v) for k, v in kinds.items() if v]
    return "Unused `noqa` directive (" + "; ".join(parts) + ")"


def removal(d: Directive, kinds, line_text: str):
    """(start col, end col, replacement), 0-based character columns in the line, of the edit
    that drops the flagged codes, or the whole directive when none is left."""
    bad = {c for v in kinds.values() for c in v}
    keep = [c for c in d.codes if c not in bad] + [c for c in d.invalid if c not in bad]
    base = d.comment_col
    if keep:
        colon = _DIRECTIVE.search(d.comment).end()
        return base + colon, base + d.end, " " + ", ".join(keep)
    rest = d.comment[d.end:]
    if d.start == 0 and not rest.strip():          # the comment is only the directive
        code_end = len(line_text[:base].rstrip())
        return code_end, base + len(d.comment), ""
    if d.start == 0:                               # `# noqa: X # why` -> `# why`
        return base, base + d.end + (len(rest) - len(rest.lstrip())), ""
    before = d.comment[:d.start]                   # `# type: ignore # noqa: X`
    return base + len(before.rstrip()), base + d.end, ""


# -- --add-noqa --------------------------------------------------------------------------------
def add_directives(source: str, codes_by_line: dict) -> tuple[str, int, list]:
    """(new source, directives written or extended, lines skipped) with `# noqa: CODES` on
    each line of `codes_by_line`, merged into an existing directive. Lines that end inside a
    string or with a backslash cannot take a comment: they are skipped and returned."""
    noqa = scan(source, need_layout=True)
    lines = source.splitlines(keepends=True)
    count, skipped = 0, []
    for line, codes in sorted(codes_by_line.items()):
        if line > len(lines) or line in noqa.in_string or line in noqa.continued:
            skipped.append(line)
            continue
        text = lines[line - 1]
        body = text.rstrip("\r\n")
        ending = text[len(body):]
        d = noqa.lines.get(line)
        if d is not None and d.codes is None:
            continue                                   # blanket: already suppressed
        if d is not None:
            new = [c for c in sorted(codes) if not any(c.startswith(x) for x in d.codes)]
            if not new:
                continue
            merged = list(d.codes) + list(d.invalid) + new
            colon = _DIRECTIVE.search(d.comment).end()
            a, b = d.comment_col + colon, d.comment_col + d.end
            body = body[:a] + " " + ", ".join(merged) + body[b:]
        else:
            body = body.rstrip() + "  # noqa: " + ", ".join(sorted(codes))
        lines[line - 1] = body + ending
        count += 1
    return "".join(lines), count, skipped
