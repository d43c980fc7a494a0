"""The package has no import cycles, counting imports inside functions too.

A lazy import inside a function still ties two modules together (the design cannot be read
bottom-up, and a move can turn it into a real cycle), so it counts. Two kinds of edge do not:
a package `__init__` re-exporting on first use (a facade that imports inside its functions),
and importing a name from a package `__init__` (`from .. import __version__`).
"""
import ast
import os

import dynlint

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(dynlint.__file__)))


def _modules() -> dict[str, str]:
    mods = {}
    for dirpath, _dirs, files in os.walk(os.path.join(ROOT, "dynlint")):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                mod = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                mods[mod.removesuffix(".__init__")] = path
    return mods


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    packages = {m for m, p in mods.items() if p.endswith("__init__.py")}
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        package = mod if mod in packages else mod.rsplit(".", 1)[0]
        nodes = tree.body if mod in packages else ast.walk(tree)
        for node in nodes:
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    parts = parts[:len(parts) - node.level + 1]
                    target = ".".join(parts + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in mods]
                targets = subs if len(subs) == len(node.names) else [target, *subs]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            graph[mod].update(t for t in targets if t in mods and t != mod and t not in packages)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_cycle_finder_sees_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_is_read():
    graph = import_graph()
    assert "dynlint.engine.spans" in graph["dynlint.fix.suggest"]
    assert "dynlint.analysis.walker" in graph["dynlint.engine.match"]


def test_no_import_cycles():
    assert cycles(import_graph()) == []
