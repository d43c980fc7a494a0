"""Probe (measurement only, not used by dynlint): neutral functions whose every call site in
the project sits in cold code, and the findings `dynlint check` reports inside them.

The question it answers: what a "cold by its callers, across files" rule would remove.
Usage, from the directory that holds the packages:
    python bench/coldcall_probe.py ROOT PKG [PKG...] --findings check.json [--callers code|all]
`--callers all` counts every cold caller; `code` (default) ignores callers cold only by
their name (`log_prob`, `__init__`, ...): names are weaker evidence than the code.
"""
from __future__ import annotations

import argparse
import ast
import json
import os

from dynlint.analysis import scopes as S
from dynlint.analysis.scopes import cold as S_cold, crossfile as S_cross
from dynlint.analysis.roles import Role
from dynlint.check import reach as C
from dynlint.engine.match import FileFacts, split_lines
from dynlint.project.scope import module_name


def facts_of(path: str, callers: str):
    with open(path, encoding="utf-8", errors="replace") as fh:
        src = fh.read()
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError):
        return None, None
    module, is_pkg = module_name(path)
    lines = split_lines(src)
    sc = S.index_module(tree, lines, module=module, defer=True)
    facts = FileFacts(module)
    facts.exports, facts.model_refs = S_cross.cross_file_facts(sc, lines, module, is_pkg)
    facts.classes, facts.aliases = S_cross.class_facts(sc, module, is_pkg)
    aliases = {a: S_cross.resolve_import(t, module, is_pkg) for a, t in sc.imports.items()}
    local = {g.name for g in sc.order if g.cls is None and g.parent is None}
    wanted = frozenset(aliases) | local
    info, stored = {}, {}
    for g in sc.order:
        if g.parent is not None:
            continue
        names, _, pairs = g.refs(lines)
        out = {aliases[n] for n in wanted.intersection(names) if n in aliases}
        out |= {f"{module}.{n}" for n in wanted.intersection(names) if n in local}
        out |= {aliases[n] + "." + a for n, a in pairs if n in aliases}
        out |= S_cross._self_refs(g, lines, module, stored, aliases, sc.classes)
        cold = g.role == Role.COLD or id(g) in sc.soft_cold
        if cold and callers == "code" and S_cold.cold_reason(g, sc).startswith("its name"):
            cold = False
        info[g.qualname] = (g.role == Role.NEUTRAL and id(g) not in sc.soft_cold, cold, out,
                            g.node.lineno, g.node.end_lineno)
    return facts, (path, module, info)


def cold_called(root: str, pkgs: list, callers: str) -> dict:
    files = [os.path.join(d, f) for p in pkgs for d, _, fs in os.walk(os.path.join(root, p))
             for f in fs if f.endswith(".py")]
    all_facts, infos = [], []
    for path in sorted(files):
        facts, info = facts_of(path, callers)
        if facts is not None:
            all_facts.append(facts)
            infos.append(info)
    model = C._reach(all_facts, None)
    aliases = C._aliases(all_facts)

    def names(ref):
        hops, out = {}, [ref]
        while (ref := C._reexported(ref, aliases, hops)) is not None:
            out.append(ref)
        return out
    sites: dict = {}        # name -> [(caller, caller is cold)]
    for _, module, info in infos:
        for q, (_, cold, refs, _, _) in info.items():
            caller = f"{module}.{q}"
            for ref in refs:
                for name in names(ref):
                    sites.setdefault(name, []).append((caller, cold and caller not in model))
    for facts in all_facts:         # names stored at module level (registries) are live
        for ref in facts.exports.get("<module>", (False, ()))[1]:
            for name in names(ref):
                sites.setdefault(name, []).append((facts.module + ".<module>", False))
    out: dict = {}
    changed = True
    while changed:                  # a neutral caller that is itself cold-called is cold
        changed = False
        for path, module, info in infos:
            for q, (neutral, _, _, start, end) in info.items():
                name = f"{module}.{q}"
                if not neutral or name in model or name in out:
                    continue
                calls = [s for s in sites.get(name, []) if s[0] != name]
                if calls and all(cold or c in out for c, cold in calls):
                    out[name] = (os.path.relpath(path, root), start, end, [c for c, _ in calls])
                    changed = True
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("pkgs", nargs="+")
    ap.add_argument("--findings", required=True, help="`dynlint check --format json` output")
    ap.add_argument("--callers", choices=("code", "all"), default="code")
    args = ap.parse_args()
    found = cold_called(args.root, args.pkgs, args.callers)
    spans: dict = {}
    for name, (path, start, end, calls) in found.items():
        spans.setdefault(os.path.normpath(path), []).append((start, end, name, calls))
    with open(args.findings, encoding="utf-8") as fh:
        findings = json.load(fh)
    gone = [(f, name, calls) for f in findings
            for start, end, name, calls in spans.get(os.path.normpath(f["path"]), [])
            if start <= f["line"] <= end]
    print(f"{len(found)} functions called only from cold code; "
          f"{len(gone)} of {len(findings)} findings inside them")
    for f, name, calls in gone:
        print(f"  {f['code']} {f['path']}:{f['line']} {name.rsplit('.', 1)[-1]} <- {calls[:2]}")


if __name__ == "__main__":
    main()
