"""The table of predicates (`REGISTRY`) and the decorator that fills it.

Each module of this package registers its predicates on import; `__init__` imports them all,
so importing the package gives the full table."""
from __future__ import annotations

from dataclasses import dataclass


REGISTRY: dict[str, "Predicate"] = {}


@dataclass(frozen=True)
class Predicate:
    name: str
    fn: object
    arity: int              # number of rule-supplied arguments; -1: any
    doc: str
    # For a predicate about where the code is (not what it is): `scope(analyzer, info, *args)`
    # says whether it may hold anywhere inside function `info` (a scopes.FunctionInfo; None:
    # code outside any `def`). False lets the walker skip a body no other rule needs.
    scope: object = None
    # For a predicate that can only hold in a module whose text contains one of these strings
    # (an identifier it resolves to): the engine tries its rules' patterns only there.
    text: tuple | None = None


def predicate(arity: int = 0, scope=None, text=None):
    def register(fn):
        name = fn.__name__.rstrip("_")
        REGISTRY[name] = Predicate(name, fn, arity, (fn.__doc__ or "").strip(), scope,
                                   tuple(text) if text else None)
        return fn
    return register
