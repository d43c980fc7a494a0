"""Where a finding is and whether `--fix` applies to it: shared by every output format."""
from __future__ import annotations


def location(f) -> str:
    """`path:line:col`, or `nb.ipynb:cell 3:line:col` in a notebook (as ruff prints it)."""
    cell = f"cell {f.cell}:" if f.cell is not None else ""
    return f"{f.path}:{cell}{f.line}:{f.column}"


def fixable(f, unsafe: bool = False) -> bool:
    return f.fix is not None and (f.fix.applicability == "safe" or
                                  (unsafe and f.fix.applicability == "unsafe"))
