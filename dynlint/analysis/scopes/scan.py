"""The statement scan: imports, classes (module or not, cold or not), functions and
`if __name__ == "__main__"` guards, without walking expressions."""
from __future__ import annotations

import ast
import builtins

from .info import ClassInfo, FunctionInfo, Scopes
from .naming import COLD_BASE, COLD_CLASS, MODULE_BASE, STDLIB


# Statements that hold no import, definition or block: most of a module, skipped at once.
_LEAF_STATEMENTS = frozenset({ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return,
                              ast.Raise, ast.Assert, ast.Pass, ast.Break, ast.Continue,
                              ast.Delete, ast.Global, ast.Nonlocal})


def scan_body(body, scopes: Scopes, order, func, cls, prefix, top) -> None:
    for node in body:
        t = type(node)
        if t in _LEAF_STATEMENTS:
            continue
        if t is ast.Import:
            for a in node.names:
                if a.asname:
                    scopes.imports[a.asname] = a.name
                else:
                    top_name = a.name.split(".")[0]
                    scopes.imports[top_name] = top_name
        elif t is ast.ImportFrom:
            base = "." * node.level + (node.module or "")
            for a in node.names:
                if a.name != "*":
                    sep = "" if base.endswith(".") else "."
                    scopes.imports[a.asname or a.name] = base + sep + a.name
        elif t is ast.ClassDef:
            # (`Sampler[tuple[slice, ...]]`, `Dataset[T]`: the generic class, parameterised)
            bases = [scopes.qualname(b.value if type(b) is ast.Subscript else b) or ""
                     for b in node.bases]
            if scopes.why is not None:
                scopes.bases[node.name] = bases
            known = scopes.classes
            is_module = any(MODULE_BASE.search(b) or (b in known and known[b].is_module)
                            for b in bases)
            # A name says "preprocessing" only for classes that are not modules: an
            # `nn.Module` named `...Tokenizer` has a forward that runs in the step.
            cold = (not is_module and bool(COLD_CLASS.search(node.name))) or any(
                COLD_BASE.search(b) or (b in known and known[b].cold) for b in bases)
            autograd = any(b.endswith("autograd.Function") or b.endswith("autograd.function.Function")
                           for b in bases)
            state = True if is_module else _module_state(node.bases, bases, scopes)
            if state is True and not is_module:
                is_module = True        # `nn.Linear` and the like: torch.nn's classes
                cold = any(COLD_BASE.search(b) or (b in known and known[b].cold) for b in bases)
            info = ClassInfo(node.name, is_module, cold, autograd, bases, state)
            known[node.name] = info
            scan_body(node.body, scopes, order, func, info, prefix + node.name + ".", False)
        elif t is ast.FunctionDef or t is ast.AsyncFunctionDef:
            info = FunctionInfo(node.name, prefix + node.name, cls, func, node)
            scopes.functions[id(node)] = info
            order.append(info)
            if cls is not None:
                cls.methods.setdefault(node.name, []).append(info)
            scan_body(node.body, scopes, order, info, None, prefix + node.name + ".", False)
        elif t is ast.If:
            if top and _is_main_guard(node.test):
                scopes.main_guards.add(id(node))
            scan_body(node.body, scopes, order, func, cls, prefix, top)
            scan_body(node.orelse, scopes, order, func, cls, prefix, top)
        elif t in (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith):
            scan_body(node.body, scopes, order, func, cls, prefix, top)
            scan_body(getattr(node, "orelse", ()), scopes, order, func, cls, prefix, top)
        elif t is ast.Try or t.__name__ == "TryStar":
            scan_body(node.body, scopes, order, func, cls, prefix, top)
            for h in node.handlers:
                scan_body(h.body, scopes, order, func, cls, prefix, top)
            scan_body(node.orelse, scopes, order, func, cls, prefix, top)
            scan_body(node.finalbody, scopes, order, func, cls, prefix, top)


# Bases that say "no nn.Module" for sure: builtins and the standard library's classes.
_BUILTIN_NAMES = frozenset(n for n in dir(builtins) if n[:1].isupper() or n in (
    "object", "dict", "list", "tuple", "set", "frozenset", "str", "int", "float", "bytes", "type"))
# torch's classes that are no modules although they live under `torch.nn`.
_NN_NOT_MODULE = frozenset({"Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"})


def _module_state(nodes, bases: list, scopes: Scopes):
    """Whether a class whose bases no name says is a module is one: False when every base is
    known (a class of this file that is none, a builtin or standard-library class, torch's
    other classes), True for a class of `torch.nn`, None when a base is defined elsewhere."""
    out = False
    for node, base in zip(nodes, bases):
        if not base and type(node) is ast.Subscript:        # `Generic[T]`, `Base[Config]`
            base = scopes.qualname(node.value) or ""
        known = scopes.classes.get(base)
        if known is not None:
            state = known.module_state
        elif not base:
            state = None                    # a call or an expression: no way to tell
        elif base.startswith("torch."):
            last = base.rpartition(".")[2]
            state = base.startswith("torch.nn.") and last[:1].isupper() and \
                last not in _NN_NOT_MODULE
        elif "." not in base and base not in scopes.imports:
            state = None if base not in _BUILTIN_NAMES else False
        else:
            state = None if base.partition(".")[0] not in STDLIB else False
        if state is True:
            return True
        if state is None:
            out = None
    return out


def _is_main_guard(test: ast.AST) -> bool:
    return (type(test) is ast.Compare and type(test.left) is ast.Name
            and test.left.id == "__name__" and len(test.comparators) == 1
            and type(test.comparators[0]) is ast.Constant
            and test.comparators[0].value == "__main__")
