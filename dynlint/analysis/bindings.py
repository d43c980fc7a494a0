"""Which names a statement or a function binds, and the values a local name is bound to:
plain facts of the tree, shared by the analysis (registries), the predicates and the fixes."""
from __future__ import annotations

import ast

from .statements import child_fields, child_nodes, walk

# (the fields of a compound statement that hold blocks; `handlers` hold except clauses)
BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def binding_values(func, name: str):
    """Values bound to local `name` in `func` (not in nested functions), or None when some
    binding has no single value (a parameter, a loop or `with` target, tuple unpacking...)."""
    table = func.__dict__.get("_dl_bindings")
    if table is None:       # every name at once, kept on the node: asked for many names
        table = func._dl_bindings = _binding_table(func)
    found = table.get(name, ())
    return None if found is None else list(found)


def bound_values(func, name: str):
    """Every value bound to local `name` anywhere in `func` (not in nested functions), or None
    when some binding has no single value; read from a table kept on the function's node."""
    return binding_values(func, name)


def _binding_table(func) -> dict:
    """name -> the values `binding_values` gives (None: no claim), for every name `func` binds."""
    args = func.args
    table: dict = {a.arg: None for a in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                                        args.vararg, args.kwarg) if a is not None}
    for st in block_statements(func.body):
        t = type(st)
        if t is ast.Assign:
            for target in st.targets:
                if type(target) is ast.Name:
                    _add(table, target.id, st.value)
                    continue
                pairs = _pairs(target, st.value)
                for other in _bound(target):
                    if other in pairs:
                        _add(table, other, pairs[other])
                    else:
                        table[other] = None
            continue
        if t in (ast.AnnAssign, ast.AugAssign) and type(st.target) is ast.Name:
            own = st.target.id
            if st.value is not None:
                _add(table, own, st.value)
            else:
                table.setdefault(own, [])
        else:
            own = None
        for other in _bound_here_once(st):
            if other != own:
                table[other] = None
    return table


def _pairs(target, value) -> dict:
    """name -> value for the names an unpacking of a literal of the same length binds item by
    item (`a, b = [], []`, `(x, y), z = (0, 1), t`): each holds its own item's value."""
    out: dict = {}
    if type(target) in (ast.Tuple, ast.List) and type(value) in (ast.Tuple, ast.List) and \
            len(target.elts) == len(value.elts) and \
            not any(type(e) is ast.Starred for e in (*target.elts, *value.elts)):
        for e, v in zip(target.elts, value.elts):
            if type(e) is ast.Name:
                out[e.id] = v
            else:
                out.update(_pairs(e, v))
    return out


def _add(table: dict, name: str, value) -> None:
    values = table.get(name, ())
    if values is not None:
        if not values:
            values = table[name] = []
        values.append(value)


def _bound_here_once(st) -> frozenset:
    found = st.__dict__.get("_dl_binds_here")
    if found is None:
        found = st._dl_binds_here = frozenset(_bound_here(st))
    return found


def last_values(func, name: str, line: int):
    """The values bound to local `name` in `func` before `line` that no later plain
    assignment of the same block replaces (`t = sort(t0); t = t.to(dtype)`: only the second
    may still be `t` afterwards), or None where `binding_values` has no claim (a parameter, a loop
    target, unpacking...). Straight-line reasoning inside each block; a branch's last binding
    counts, whichever branch runs."""
    if binding_values(func, name) is None:
        return None
    out = []
    todo = [func.body]
    while todo:
        block = todo.pop()
        for i, st in enumerate(block):
            if st.lineno >= line:
                break
            if type(st) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                continue
            if rebinds(st, name):
                if not any(rebinds(later, name) for later in block[i + 1:]
                           if later.lineno < line):
                    out.append(_value_for(st, name))
                continue
            for field in BLOCK_FIELDS:
                inner = getattr(st, field, None)
                if type(inner) is list:
                    stmts = [x for x in inner if isinstance(x, ast.stmt)]
                    if stmts:
                        todo.append(stmts)
                    todo.extend(h.body for h in inner if type(h) is ast.ExceptHandler)
    return out


def rebinds(st, name: str) -> bool:
    """`name = value` (or `name: T = value`, or `name, other = value, ...`): the statement
    replaces the name's value."""
    if type(st) is ast.Assign:
        return any(type(t) is ast.Name and t.id == name or
                   type(t) is not ast.Name and name in _pairs(t, st.value) for t in st.targets)
    return type(st) is ast.AnnAssign and st.value is not None and \
        type(st.target) is ast.Name and st.target.id == name


def _value_for(st, name: str):
    """The value a statement `rebinds` gives `name`."""
    if type(st) is ast.Assign:
        for t in st.targets:
            if type(t) is ast.Name and t.id == name:
                return st.value
            found = _pairs(t, st.value).get(name) if type(t) is not ast.Name else None
            if found is not None:
                return found
    return st.value


def block_statements(block):
    """Every statement of a block and of the blocks nested in it (not nested functions)."""
    todo = list(block)
    while todo:
        st = todo.pop()
        yield st
        if type(st) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            continue
        for field in (*BLOCK_FIELDS, "handlers"):
            inner = getattr(st, field, None)
            if type(inner) is list:
                todo.extend(x for x in inner if isinstance(x, ast.stmt))
                todo.extend(s for h in inner if type(h) is ast.ExceptHandler for s in h.body)


def binds_name_here(st, name: str) -> bool:
    """The statement itself (not the blocks nested in it) binds `name`."""
    return name in _bound_here_once(st)   # (every name at once, kept on the node)


def _bound_here(st) -> set:
    t = type(st)
    if t in (ast.Assign, ast.AugAssign, ast.AnnAssign):
        targets = st.targets if t is ast.Assign else [st.target]
        return set().union(*map(_bound, targets)) | _walrus_targets(st.value)
    if t in (ast.For, ast.AsyncFor):
        return _bound(st.target) | _walrus_targets(st.iter)
    if t in (ast.With, ast.AsyncWith):
        return set().union(*(_bound(i.optional_vars) for i in st.items if i.optional_vars is not None))
    if t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        return {st.name}
    if t in (ast.Import, ast.ImportFrom):
        return _bound(st)
    if t is ast.ExceptHandler:
        return {st.name} if st.name is not None else set()
    return set().union(*(_walrus_targets(v) for v in child_nodes(st) if isinstance(v, ast.expr)))


def _walrus_targets(expr) -> set:
    if expr is None:
        return set()
    return {n.target.id for n in walk(expr) if type(n) is ast.NamedExpr}


def binds_name(tree, name: str) -> bool:
    """`tree` assigns `name` (assignment, loop or `with` target, walrus, import, def), not
    counting nested functions' own locals."""
    found = tree.__dict__.get("_dl_binds")
    if found is None:      # every name at once, kept on the node: asked again for other names
        found = tree._dl_binds = frozenset(_bound(tree))
    return name in found


def _bound(tree) -> set:
    """The names `binds_name(tree, name)` is true for: the `Name`s stored, defs, classes and
    imports, not entering functions, classes and lambdas. A walk without a list per node and
    without the contexts of names and attributes (asked of every statement of most
    functions, it is a walk of all their code; tests/test_cold_run_shortcuts.py compares it
    with the plain walk)."""
    out = set()
    todo = [tree]
    pop, push, extend, fields = todo.pop, todo.append, todo.extend, _BIND_FIELDS
    Name, Lambda, Store, AST = ast.Name, ast.Lambda, ast.Store, ast.AST
    while todo:
        n = pop()
        t = type(n)
        if t is Name:
            if type(n.ctx) is Store:
                out.add(n.id)
            continue                # (its one child is its context)
        if t in _DEFS:
            out.add(n.name)
            continue
        if t is Lambda:
            continue
        if t is ast.Import or t is ast.ImportFrom:
            out.update(a.asname or a.name.split(".")[0] for a in n.names)
            continue                # (its children, the aliases, hold no node)
        for name in fields[t]:
            v = getattr(n, name, None)
            if type(v) is list:
                if None in v:       # (see statements.child_nodes)
                    extend(x for x in v if isinstance(x, AST))
                else:
                    extend(v)
            elif isinstance(v, AST):
                push(v)
    return out


_DEFS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})


class _BindFields(dict):
    """node type -> `statements.child_fields` without `ctx` (load, store or delete: binds
    nothing), found on first use."""

    def __missing__(self, cls) -> tuple:
        found = self[cls] = tuple(f for f in child_fields(cls) if f != "ctx")
        return found


_BIND_FIELDS = _BindFields()


def int_valued(func, name: str) -> bool:
    """Every binding of local `name` in `func` gives a Python int by its form (`int_form`):
    a loop over `range(...)`, an int literal, arithmetic, `len(...)`, an item; or `name` is a
    parameter declared `int`. (A list of ints indexes a tensor as a gather: `v[idx]` is then
    no single element.) False where some binding has another form, is a loop over anything
    else or an unpacking, or where `func` binds no such name."""
    if func is None or type(func) is ast.Lambda:
        return False
    args = func.args
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        if a.arg == name:
            return type(a.annotation) is ast.Name and a.annotation.id == "int"
    found = False
    for st in block_statements(func.body):
        t = type(st)
        if t in (ast.For, ast.AsyncFor) and binds_name(st.target, name):
            it = st.iter
            if not (type(st.target) is ast.Name and type(it) is ast.Call and
                    type(it.func) is ast.Name and it.func.id == "range"):
                return False
            found = True
        elif t in (ast.Assign, ast.AugAssign, ast.AnnAssign):
            targets = st.targets if t is ast.Assign else [st.target]
            for target in targets:
                if type(target) is ast.Name and target.id == name:
                    if st.value is None or not int_form(st.value):
                        return False
                    found = True
                elif binds_name(target, name):
                    return False
        elif binds_name_here(st, name):
            return False
    return found


_INT_CALLS = frozenset({"len", "int", "round", "abs", "min", "max", "sum"})
_INT_METHODS = frozenset({"item", "size", "numel", "dim", "index", "count"})


def int_form(v) -> bool:
    """An expression of the forms that give a Python int: a literal, a name, an item,
    arithmetic and conditionals of those, `len(...)`, `t.item()`, `t.size(0)`. (Not an
    attribute: `topk(k).indices` is a tensor.)"""
    t = type(v)
    if t is ast.Constant:
        return type(v.value) is int
    if t in (ast.Name, ast.Subscript):
        return True
    if t is ast.UnaryOp:
        return int_form(v.operand)
    if t is ast.BinOp:
        return int_form(v.left) and int_form(v.right)
    if t is ast.IfExp:
        return int_form(v.body) and int_form(v.orelse)
    if t is ast.Call:
        f = v.func
        return (type(f) is ast.Name and f.id in _INT_CALLS) or \
            (type(f) is ast.Attribute and f.attr in _INT_METHODS)
    return False
