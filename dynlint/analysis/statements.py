"""Walks over statements only, for passes that look for statements (assignments, loops).

`ast.walk` visits every expression node too: over a whole module it costs about three
quarters of parsing it. Statements are about a tenth of the nodes, and an assignment or a
loop is always a statement, found in a statement list (`body`, `orelse`, `finalbody`, an
`except` handler's or a `case`'s body), never inside an expression.
"""
from __future__ import annotations

import ast

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def statements(body, enter_defs: bool = True):
    """Every statement of `body` (a list of statements) and of the blocks nested in them,
    in no particular order; the statements of nested functions and classes too unless
    `enter_defs` is false (the `def`/`class` statement itself is always given)."""
    todo = list(body)
    pop, extend = todo.pop, todo.extend
    while todo:
        node = pop()
        yield node
        if not enter_defs and isinstance(node, _DEFS):
            continue
        block = getattr(node, "body", None)
        if block is not None:
            extend(block)
            orelse = getattr(node, "orelse", None)
            if orelse:
                extend(orelse)
            handlers = getattr(node, "handlers", None)
            if handlers is not None:                      # `try`
                for h in handlers:
                    extend(h.body)
                extend(node.finalbody)
        else:
            cases = getattr(node, "cases", None)          # `match`
            if cases:
                for case in cases:
                    extend(case.body)
