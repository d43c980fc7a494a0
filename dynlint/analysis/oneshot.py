"""One-shot code: statements of a method that run once per object, not once per step.

A lazy initialisation guarded by a flag the method itself sets (`if self.initted: return`,
then k-means on the first batch, then `self.initted.data.copy_(True)`) runs on the first call
only; what it does is setup, whatever scope the method has. The write must happen whenever
the guarded code runs (a statement of it, not in a branch): a flag set only after N calls
(`if steps >= N: self.frozen = True`) guards code that runs N times.
"""
from __future__ import annotations

import ast


def _self_attr(node) -> str | None:
    """`X` of `self.X` (also `self.X.item()`, `bool(self.X)`), else None."""
    if type(node) is ast.Call and not node.keywords:
        if type(node.func) is ast.Name and node.func.id == "bool" and len(node.args) == 1:
            node = node.args[0]
        elif type(node.func) is ast.Attribute and node.func.attr == "item" and not node.args:
            node = node.func.value
    if type(node) is ast.Attribute and type(node.value) is ast.Name and node.value.id == "self":
        return node.attr
    return None


def _sets_flag(stmts, attr: str) -> bool:
    """Whether one of `stmts` itself (not a branch or loop inside them: the write must happen
    whenever the code runs) writes `self.<attr>`: assigns it (or its `.data`), or calls an
    in-place method on it (`self.initted.data.copy_(...)`, `self.done.fill_(True)`)."""
    for n in stmts:
        t = type(n)
        if t in (ast.Assign, ast.AnnAssign):
            targets = n.targets if t is ast.Assign else [n.target]
            if any(_flag_root(tgt) == attr for tgt in targets):
                return True
        elif t is ast.Expr and type(n.value) is ast.Call:
            func = n.value.func
            if type(func) is ast.Attribute and func.attr.endswith("_") and \
                    not func.attr.startswith("_") and _flag_root(func.value) == attr:
                return True
    return False


def _flag_root(node) -> str | None:
    """`X` of `self.X`, `self.X.data`, `self.X[...]`."""
    while type(node) in (ast.Attribute, ast.Subscript) and not (
            type(node) is ast.Attribute and type(node.value) is ast.Name):
        node = node.value
    return _self_attr(node)


def once_regions(fnode) -> list:
    """(guard, statements) of `fnode` that run once per object: what follows `if self.X:
    return` and the body of `if not self.X:`, when the function itself sets `self.X` there
    (a lazy initialisation on the first call, e.g. k-means init of a codebook)."""
    out = []
    body = fnode.body
    for i, stmt in enumerate(body):
        if type(stmt) is not ast.If or stmt.orelse:
            continue
        test = stmt.test
        negated = type(test) is ast.UnaryOp and type(test.op) is ast.Not
        attr = _self_attr(test.operand if negated else test)
        if attr is None:
            continue
        if not negated and len(stmt.body) == 1 and type(stmt.body[0]) is ast.Return:
            rest = body[i + 1:]
            if rest and _sets_flag(rest, attr):
                out.append((stmt, rest))
        elif negated and _sets_flag(stmt.body, attr):
            out.append((stmt, stmt.body))
    return out
