"""`dynlint check -` (or `--stdin-filename X` alone): the editor path. The text read is checked
as the file it names: its config, per-file-ignores and, for a `.ipynb` name, as a notebook
(the JSON document, findings reported per cell, `--fix` printing the fixed notebook)."""
from __future__ import annotations

import sys

from ..project import notebook, source


def check_stdin(args, plan, analyse_source):
    """(findings, the text read or None when it could not be decoded)."""
    display = args.stdin_filename or "-"
    data = sys.stdin.buffer.read()
    engine = plan.engine_for(display if args.stdin_filename else ".")
    try:
        if display.endswith(notebook.SUFFIX):
            nb = notebook.load(data, display)
            found = notebook.to_cells(analyse_source(engine, nb.text, display)[0], nb)
            text = data.decode("utf-8-sig")
        else:
            text = source.decode(data, display)
            found = analyse_source(engine, text, display)[0]
    except source.SourceError as exc:
        return [f for f in [exc.finding] if plan.keep(f)], None
    return [f for f in found if plan.keep(f)], text
