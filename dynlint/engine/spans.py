"""Source text and columns of ast nodes (ast gives UTF-8 byte offsets; reports use characters)."""
from __future__ import annotations

import ast


def char_col(lines: list[str], lineno: int, byte_col: int) -> int:
    """ast columns are UTF-8 byte offsets; reports use 1-based character columns."""
    if lineno - 1 >= len(lines):
        return byte_col + 1
    text = lines[lineno - 1]
    if text.isascii():
        return byte_col + 1
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", "ignore")) + 1


def segment(node: ast.AST, lines: list[str]) -> str:
    """Source text of a node, from the split lines (byte offsets, like ast)."""
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return lines[first].encode("utf-8")[node.col_offset:node.end_col_offset].decode("utf-8", "replace")
    parts = [lines[first].encode("utf-8")[node.col_offset:].decode("utf-8", "replace")]
    parts.extend(lines[first + 1:last])
    parts.append(lines[last].encode("utf-8")[:node.end_col_offset].decode("utf-8", "replace"))
    return "\n".join(parts)
