"""Walks over statements only, for passes that look for statements (assignments, loops).

`ast.walk` visits every expression node too: over a whole module it costs about three
quarters of parsing it. Statements are about a tenth of the nodes, and an assignment or a
loop is always a statement, found in a statement list (`body`, `orelse`, `finalbody`, an
`except` handler's or a `case`'s body), never inside an expression.
"""
from __future__ import annotations

import ast
from collections import deque

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


def walk(node):
    """The nodes `ast.walk(node)` gives, in the same order (breadth first, children in field
    order), about twice as fast: its `iter_child_nodes` and `iter_fields` are generators per
    node, and most fields of most nodes are names or numbers, never nodes."""
    todo = deque((node,))
    pop, push, fields = todo.popleft, todo.append, _CHILD_FIELDS
    extend = todo.extend
    while todo:
        node = pop()
        for name in fields[type(node)]:
            v = getattr(node, name, None)
            if type(v) is list:
                if None in v:       # (see child_nodes)
                    for item in v:
                        if isinstance(item, ast.AST):
                            push(item)
                else:
                    extend(v)
            elif isinstance(v, ast.AST):
                push(v)
        yield node


def child_nodes(node) -> list:
    """`list(ast.iter_child_nodes(node))`, faster (see `walk`)."""
    out = []
    for name in _CHILD_FIELDS[type(node)]:
        v = getattr(node, name, None)
        if type(v) is list:
            # A list field of a parsed tree holds nodes, but for the `None`s of a dict's `**`
            # keys and of keyword-only parameters without a default (the fields holding
            # names, `Global.names`, are not in `_CHILD_FIELDS`): most lists are taken whole.
            if None in v:
                out += [item for item in v if isinstance(item, ast.AST)]
            else:
                out += v
        elif isinstance(v, ast.AST):
            out.append(v)
    return out


def own_nodes(function):
    """The nodes of a function's (or lambda's) body, not those of the functions, lambdas and
    classes nested in it: those are given, not entered (their `return`s and bindings are not
    the function's)."""
    todo = list(function.body) if type(function.body) is list else [function.body]
    while todo:
        n = todo.pop()
        yield n
        if type(n) not in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef):
            todo += child_nodes(n)

# Fields of parsed nodes that hold identifiers, numbers, strings or flags, never nodes.
_PLAIN_FIELDS = frozenset({"id", "attr", "arg", "name", "names", "module", "level", "asname",
                           "is_async", "simple", "conversion", "type_comment", "kind",
                           "kwd_attrs", "rest", "tag", "value"})


class _ChildFields(dict):
    """node type -> `_fields` without those that hold no node in a parsed tree (`value` only
    of a constant; `names` of `import`s are nodes, of `global` names), found on first use."""

    def __missing__(self, cls) -> tuple:
        plain = {ast.Constant: {"value", "kind"}, ast.Global: {"names"},
                 ast.Nonlocal: {"names"}, ast.MatchSingleton: {"value"}}.get(cls, set())
        plain |= _PLAIN_FIELDS - {"value", "names"}
        found = self[cls] = tuple(f for f in getattr(cls, "_fields", ()) if f not in plain)
        return found


_CHILD_FIELDS = _ChildFields()


def child_fields(cls) -> tuple:
    """The fields of node type `cls` that may hold nodes (those `child_nodes` reads)."""
    return _CHILD_FIELDS[cls]
