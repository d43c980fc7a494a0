"""Reporting code, told from what a function does: it draws a figure, or hands back numbers.

Both are facts of the code, not of names: a `log_prediction` that a Lightning step calls every
N batches and the `plot_prediction` it calls are reached from model code, yet what they read
from tensors is what they render or return for a person to look at, after the step.

* A function that draws with a plotting library (`plt.subplots`, `ax.plot`, after `from
  matplotlib import pyplot as plt` in its body or module) renders on the host: cold, and model
  reachability stops there (the figure is the same whoever asks for it).
* A function whose every `return` converts tensor data to Python floats (`float(t)`,
  `t.mean().item()`, a tuple of those or a dict of them by name; `t.tolist()` on another path)
  computes a statistic or metric for a report, like one declared `-> float`: soft cold,
  reported only when model code of another file reaches it. A module's `forward` that does so
  is a metric module (asteroid's `F1Tracker`): no entry point, as nothing differentiable
  comes out of it. Not `int(t)` nor `.item()` of anything but a mean, deviation or
  norm: an int is often a size or a position the step goes on with.
"""
from __future__ import annotations

import ast

from .statements import child_nodes

# Libraries that render figures on the host (seaborn and plotly draw through their own API).
PLOTTING = frozenset({"matplotlib", "seaborn", "plotly"})


def imports_plotting(imports: dict[str, str]) -> bool:
    """Whether the module imports a plotting library anywhere (a cheap gate for `draws`)."""
    return any(q.lstrip(".").split(".", 1)[0] in PLOTTING for q in imports.values())


def draws(names, imports: dict[str, str]) -> bool:
    """Whether a function whose text mentions `names` uses a name imported from a plotting
    library (`plt`, `sns`, `matplotlib`)."""
    return any(imports[n].split(".", 1)[0] in PLOTTING for n in names if n in imports)


# Reductions whose value is a statistic, not a position or a count (`.item()` of an index,
# `indices[pos].item()`, is a step's next position: diffusers' `index_for_timestep`).
_STATISTICS = frozenset({"mean", "nanmean", "std", "var", "norm"})


def _host_value(node) -> str | None:
    """"float" for `float(x)` or `<mean/std/var/norm>(...).item()`, "list" for `x.tolist()`,
    a tuple of them by its items; None for anything else (`int(x)`, `indices[pos].item()`)."""
    t = type(node)
    if t is ast.Tuple or t is ast.Dict:     # (a dict by its values: `{"f1": float(f1), ...}`)
        kinds = {_host_value(e) for e in (node.elts if t is ast.Tuple else node.values)}
        return None if not kinds or None in kinds else ("float" if "float" in kinds else "list")
    if t is not ast.Call or node.keywords:
        return None
    func = node.func
    if type(func) is ast.Name:
        return "float" if func.id == "float" and len(node.args) == 1 else None
    if type(func) is not ast.Attribute or node.args:
        return None
    if func.attr == "tolist":
        return "list"
    inner = func.value
    if func.attr == "item" and type(inner) is ast.Call and type(inner.func) is ast.Attribute and \
            inner.func.attr in _STATISTICS:
        return "float"
    return None


def returns_host_numbers(fnode) -> bool:
    """Every `return` of the function itself (not of nested functions) hands back tensor data
    converted to Python floats (or lists, next to a float on another path), and there is one."""
    kinds = set()
    todo = list(fnode.body)
    while todo:
        n = todo.pop()
        t = type(n)
        if t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda):
            continue
        if t is ast.Return:
            kind = _host_value(n.value) if n.value is not None else None
            if kind is None:
                return False
            kinds.add(kind)
        elif t in (ast.Yield, ast.YieldFrom):
            return False
        todo += child_nodes(n)
    return "float" in kinds
