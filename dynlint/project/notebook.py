"""Jupyter notebooks (`.ipynb`) as one Python module, like ruff lints them.

The code cells are joined, each followed by a boundary comment line, into one module the
engine analyses as usual. IPython syntax (`%magic`, `%%cell magic`, `!shell`, `obj?`) is masked
line by line with `pass` at the same indentation, so every line keeps its number and the
module parses. Findings are mapped back to `cell N` (1-based over all cells, as in Jupyter and
ruff) and the line within that cell. Writing (`--fix`, `--add-noqa`) changes only the `source`
of code cells and re-serialises the JSON with the notebook's own indentation, key order, and
final newline, so the diff is the edited lines and nothing else.
"""
from __future__ import annotations

import bisect
import dataclasses
import json
import re

from ..finding import INVALID_NOTEBOOK, file_diagnostic
from .source import SourceError

SUFFIX = ".ipynb"
_BOUNDARY = "# dynlint: cell boundary {}"
_BOUNDARY_RE = re.compile(r"^# dynlint: cell boundary (\d+)$")
_MAGIC_RE = re.compile(r"^(pass  # dynlint: magic (\d+))$")
# Cell magics whose body is Python: only their first line is masked.
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug", "memit", "snakeviz"}
_ASSIGNED_MAGIC = re.compile(r"^[\w.,\s\[\]()*]+=\s*[!%]")


@dataclasses.dataclass
class Notebook:
    raw: dict                       # the JSON document, key order kept
    text: str                       # the joined, masked module
    starts: list                    # joined line where each code cell starts (1-based)
    cells: list                     # their 1-based cell numbers
    magics: list                    # original text of each masked line
    indent: int | None
    final_newline: bool

    def locate(self, line: int) -> tuple[int, int]:
        """(cell number, line within the cell) of a line of the joined module."""
        i = max(bisect.bisect_right(self.starts, line) - 1, 0)
        return self.cells[i], line - self.starts[i] + 1


def _invalid(display, message, line=1, column=1):
    return SourceError(file_diagnostic(INVALID_NOTEBOOK, display, message, line, column))


def load(data: bytes, display: str) -> Notebook:
    """Parse and validate; every failure is a DYN906 naming the file (and the JSON line)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _invalid(display, f"not UTF-8 JSON: byte 0x{data[exc.start]:02x}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _invalid(display, f"invalid notebook JSON: {exc.msg}", exc.lineno, exc.colno) from None
    _validate(raw, text, display)
    magics: list[str] = []
    parts, starts, cells = [], [], []
    line = 1
    for number, cell in enumerate(raw.get("cells", []), 1):
        if cell.get("cell_type") != "code":
            continue
        source = _source(cell)
        if parts:
            parts.append(_BOUNDARY.format(number - 1))
            line += 1
        masked = mask(source, magics)
        starts.append(line)
        cells.append(number)
        parts.append(masked)
        line += masked.count("\n") + 1
    m = re.match(r"\{\s*?\n([ \t]+)\S", text)
    return Notebook(raw, "\n".join(parts) + "\n" if parts else "", starts, cells, magics,
                    len(m.group(1)) if m else None, text.endswith("\n"))


def _validate(raw, text, display):
    if not isinstance(raw, dict) or not isinstance(raw.get("cells"), list):
        raise _invalid(display, "not a notebook: no `cells` list")
    try:
        import nbformat
    except ImportError:                          # nbformat is optional: structural check only
        nbformat = None
    if nbformat is not None and raw.get("nbformat", 0) >= 4:
        try:
            nbformat.validate(nbformat.from_dict(raw), version=raw["nbformat"])
        except Exception as exc:                  # ValidationError and friends
            msg = str(getattr(exc, "message", exc)).splitlines()[0]
            raise _invalid(display, f"invalid notebook: {msg}") from None
    for cell in raw["cells"]:
        src = cell.get("source", "") if isinstance(cell, dict) else None
        if not (isinstance(src, str) or (isinstance(src, list) and all(isinstance(s, str) for s in src))):
            raise _invalid(display, "invalid notebook: a cell's `source` is not text")


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def mask(source: str, magics: list) -> str:
    """`source` with IPython-only lines replaced by `pass` (same indentation, same count)."""
    lines = source.split("\n")
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    whole_cell = first.startswith("%%") and first[2:].split(" ")[0] not in PYTHON_CELL_MAGICS
    out, continued = [], False
    for ln in lines:
        s = ln.strip()
        magic = whole_cell or continued or s.startswith(("%", "!", "?")) or \
            (s.endswith("?") and "#" not in s) or bool(_ASSIGNED_MAGIC.match(s))
        if magic and s:
            continued = s.endswith("\\")
            indent = ln[:len(ln) - len(ln.lstrip())] if not whole_cell else ""
            out.append(f"{indent}pass  # dynlint: magic {len(magics)}")
            magics.append(ln)
        else:
            continued = False
            out.append(ln)
    return "\n".join(out)


def unmask(text: str, magics: list) -> str:
    out = []
    for ln in text.split("\n"):
        m = re.search(r"pass  # dynlint: magic (\d+)$", ln)
        out.append(magics[int(m.group(1))] if m else ln)
    return "\n".join(out)


def to_cells(findings, nb: Notebook) -> list:
    """Findings on the joined module, moved to (cell, line in cell)."""
    out = []
    for f in findings:
        if f.cell is not None or f.code.startswith("DYN9") and f.line == 1 and not nb.starts:
            out.append(f)
            continue
        cell, line = nb.locate(f.line)
        end_cell, end_line = nb.locate(f.end_line)
        fix = f.fix
        if fix is not None:
            edits = tuple(dataclasses.replace(e, line=nb.locate(e.line)[1],
                                              end_line=nb.locate(e.end_line)[1]) for e in fix.edits)
            fix = dataclasses.replace(fix, edits=edits)
        out.append(dataclasses.replace(f, cell=cell, line=line,
                                       end_line=end_line if end_cell == cell else line, fix=fix))
    return out


def split(text: str, nb: Notebook) -> dict:
    """{cell number: new source} from an edited joined module."""
    pieces, current, buf = {}, nb.cells[0] if nb.cells else None, []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for ln in lines:
        m = _BOUNDARY_RE.match(ln)
        if m and int(m.group(1)) + 1 in nb.cells and int(m.group(1)) + 1 > current:
            pieces[current] = buf
            current, buf = int(m.group(1)) + 1, []
            continue
        buf.append(ln)
    if current is not None:
        pieces[current] = buf
    return {n: unmask("\n".join(b), nb.magics) for n, b in pieces.items()}


def dumps(nb: Notebook, sources: dict) -> bytes:
    """The notebook with new cell sources, serialised the way it was read."""
    for number, cell in enumerate(nb.raw["cells"], 1):
        if number not in sources:
            continue
        old = cell.get("source", "")
        new = sources[number]
        if isinstance(old, list):
            cell["source"] = new.splitlines(keepends=True)
        else:
            cell["source"] = new
    text = json.dumps(nb.raw, indent=nb.indent, ensure_ascii=False)
    return (text + ("\n" if nb.final_newline else "")).encode("utf-8")


def edit_joined(data: bytes, display: str, edit) -> tuple[bytes, object]:
    """Apply `edit(joined text) -> (new text, result)` to the code cells; (new bytes, result)."""
    nb = load(data, display)
    new_text, result = edit(nb.text)
    if new_text == nb.text:
        return data, result
    sources = split(new_text, nb)
    old = {n: _source(c) for n, c in enumerate(nb.raw["cells"], 1)}
    for n, src in list(sources.items()):
        if old[n].endswith("\n") and not src.endswith("\n"):
            sources[n] = src + "\n"
    return dumps(nb, {n: s for n, s in sources.items() if s != old[n]}), result


def edit_cells(data: bytes, display: str, edit) -> tuple[bytes, int, list]:
    """Apply `edit(cell number, masked cell text) -> (new text, count, skipped lines)` to each
    code cell (line numbers are the cell's own); (new bytes, total count, skipped)."""
    nb = load(data, display)
    sources, total, skipped = {}, 0, []
    for number, cell in enumerate(nb.raw["cells"], 1):
        if cell.get("cell_type") != "code":
            continue
        magics: list[str] = []
        masked = mask(_source(cell), magics)
        new, n, skip = edit(number, masked)
        total += n
        skipped += [f"cell {number}:{s}" for s in skip]
        if n:
            sources[number] = unmask(new, magics)
    return (dumps(nb, sources) if sources else data), total, skipped
