"""`dynlint check --explain FILE:LINE`: why a line is model code, cold or neutral.

Model code is what an entry point (`forward`, a loss, a compiled function...) reaches; the
explanation is that chain, in the file (the scopes pre-pass records each function's predecessor
when asked) and across files (the cross-file step records which name reached which). Cold code
says which name, class or base made it cold. Then the findings on the line. This re-reads the
few files on the chain; a run without `--explain` records nothing.
"""
from __future__ import annotations

import ast
import os

from ..analysis.oneshot import once_regions
from ..analysis.scopes import index_module
from ..analysis.scopes.cold import cold_reason
from ..analysis.scopes.crossfile import resolve_import
from .crossfile import project_facts
from .reach import resolve_both
from ..engine.match import split_lines
from ..project import source
from ..project.discover import discover, display_path
from ..project.scope import module_name, unnamed_files
from .runner import analyse_source, run_check
from ..analysis.roles import Role


class ExplainError(Exception):
    """A target that is not FILE:LINE of a readable file; the CLI exits with code 2."""


def parse_target(text: str) -> tuple[str, int]:
    path, sep, line = text.rpartition(":")
    if not sep or not line.isdigit() or int(line) < 1:
        raise ExplainError(f"--explain wants FILE:LINE, not {text!r}")
    if not os.path.isfile(path):
        raise ExplainError(f"--explain: no such file: {path}")
    return path, int(line)


class _Module:
    """One file's scopes with predecessors recorded."""

    def __init__(self, path: str):
        self.path = path
        self.display = display_path(path, os.getcwd())
        data, _ = source.read_bytes(path, path)
        text = source.decode(data, path)
        self.tree = source.parse(text, path)
        self.lines = split_lines(text)
        self.module, self.is_package = module_name(path)
        self.scopes = index_module(self.tree, self.lines, explain=True, module=self.module,
                                   defer=True)

    def where(self, f) -> str:
        return f"`{f.qualname}` ({self.display}:{f.node.lineno})"

    def function_at(self, line: int):
        """The innermost function whose text holds `line` (nested ones come later in order)."""
        found = None
        for f in self.scopes.order:
            if f.node.lineno <= line <= f.node.end_lineno:
                found = f
        return found

    def chain(self, f) -> list[str]:
        """From an entry point of this file down to `f` (model code in this file)."""
        steps, seen = [], set()
        while f is not None and id(f) not in seen:
            seen.add(id(f))
            if id(f) in self.scopes.roots:
                steps.append(f"entry point: {self.where(f)}")
                break
            pred = self.scopes.why.get(id(f))
            if pred is None and f.parent is not None and f.parent.role == Role.MODEL:
                steps.append(f"-> {self.where(f)}, defined inside it")
                pred = f.parent
            else:
                steps.append(f"-> {self.where(f)}")
            f = pred
        return steps[::-1]

    def referrer(self, name: str):
        """A model function of this file whose text names `name` (absolute), for a chain
        that leaves this file through the cross-file step: `self.m` in a method of the class
        for `module.Class.m`, else `alias.attr` or the name imported."""
        owner, _, last = name.rpartition(".")
        for f in self.scopes.order:
            if f.role == Role.MODEL and f.cls is not None and f.parent is None and \
                    f"{self.module}.{f.qualname.rpartition('.')[0]}" == owner and \
                    last in f.refs(self.lines)[1]:
                return f
        pairs, names = set(), set()
        for alias, target in self.scopes.imports.items():
            absolute = resolve_import(target, self.module, self.is_package)
            if name == absolute:
                names.add(alias)
            elif name.startswith(absolute + "."):
                pairs.add((alias, name[len(absolute) + 1:].split(".")[0]))
        for f in self.scopes.order:
            if f.role == Role.MODEL:
                refs = f.refs(self.lines)
                if names & refs[0] or pairs & refs[2]:
                    return f
        for f in self.scopes.order:         # `from module import name`, used under another name
            if f.role == Role.MODEL and last in f.refs(self.lines)[0]:
                return f
        return None


def explain(targets, paths, plan, use_cache=True, jobs=None, cross_file=True) -> tuple[str, bool]:
    """(report, whether any line explained has findings)."""
    files = list(dict.fromkeys([*paths, *(path for path, _ in targets)]))
    findings, _ = run_check(files, plan, use_cache=use_cache, jobs=jobs, cross_file=cross_file)
    cross = _CrossFile(files, plan, use_cache, jobs) if cross_file else None
    out, any_found = [], False
    for path, line in targets:
        try:
            mod = _Module(os.path.abspath(path))
            verdict, steps = _explain_line(mod, line, cross)
        except source.SourceError as exc:         # a syntax error, a notebook, bad encoding
            verdict, steps = "not analysed", [exc.finding.message]
        here = [f for f in findings
                if f.line <= line <= f.end_line and os.path.abspath(f.path) == os.path.abspath(path)]
        any_found = any_found or bool(here)
        out.append(f"{path}:{line}: {verdict}")
        out += [f"  {s}" for s in steps]
        if here:
            out.append("  findings on this line:")
            out += [f"    {f.path}:{f.line}:{f.column}: {f.code} {f.message}" for f in here]
        else:
            out.append("  no findings on this line")
    return "\n".join(out) + "\n", any_found


def _once(f, line: int) -> list[str]:
    """A note when `line` is one-shot initialisation inside model code (analysis/oneshot.py)."""
    for guard, stmts in once_regions(f.node):
        if stmts[0].lineno <= line <= stmts[-1].end_lineno:
            return [f"but it runs once per object: the guard `if` at line {guard.lineno} skips it "
                    "once the method has set its flag; rules treat it as cold code"]
    return []


def _explain_line(mod: _Module, line: int, cross) -> tuple[str, list[str]]:
    f = mod.function_at(line)
    if f is None:
        return _outside_functions(mod, line)
    if f.steps:
        if not any(start[0] <= line <= end[0] for start, end in f.steps):
            return "cold", [f"{mod.where(f)} runs a training step (a backward pass through a loss "
                            "it computed), but this line is outside the step's loop: it runs once per call"]
        return "model code", [f"{mod.where(f)} runs a training step: a backward pass through a "
                              "loss it computed (or, in its minibatch loop, a call of a function that "
                              "runs one; or the validation epoch its fit loop runs between training "
                              "epochs), whatever its name", f"-> line {line}"]
    if f.role == Role.MODEL:
        return "model code", mod.chain(f) + [f"-> line {line}"] + _once(f, line)
    top = f.unit
    # The verdict the run uses: a function cold only for want of a caller that is not cold
    # (or by its `-> float`), and a neutral one, are model code once another file reaches it.
    if cross is not None and (f.role == Role.NEUTRAL or id(f) in mod.scopes.soft_cold):
        steps = cross.chain(f"{mod.module}.{top.qualname}")
        if steps:
            inner = [] if f is top else [f"-> {mod.where(f)}, defined inside it"]
            return "model code (reached from another file)", steps + inner + [f"-> line {line}"]
    if cross is not None and f.role == Role.NEUTRAL and \
            f"{mod.module}.{top.qualname}" in cross.cold_called:
        return "cold", [f"{mod.where(top)} is called only from cold code of the project (`__init__`, "
                        "code run at import, a script's `main`, data code, through the cross-file "
                        "step)", "rules limited to model code do not look at it"]
    if f.role == Role.COLD:
        return "cold", [f"{mod.where(f)} is cold: {cold_reason(f, mod.scopes)}",
                        "rules limited to model code do not look at it"]
    where = "in this file" + (" nor, through the cross-file step, in its project"
                              if cross is not None else " (--no-cross-file)")
    if mod.scopes.example_module is not None:
        return "neutral", [f"{mod.where(f)} is reached from no entry point {where}",
                           f"its module `{mod.scopes.example_module}` is in an example package, "
                           "no library: only rules that apply everywhere report here"]
    if id(f) in mod.scopes.eval_steps:
        return "neutral", [f"{mod.where(f)} is an evaluation step: an inference loop of this file "
                           "(`torch.no_grad()`/`inference_mode()`, `m.eval()`) runs it on each batch, "
                           "and it runs a model on what it is handed; in scope whoever calls it",
                           "only rules that apply everywhere report here (not the exports of "
                           "predictions to the host)"]
    return "neutral", [f"{mod.where(f)} is reached from no entry point {where}",
                       "only rules that apply everywhere report here"]


def _outside_functions(mod: _Module, line: int) -> tuple[str, list[str]]:
    for node in ast.walk(mod.tree):
        if type(node) is ast.ClassDef and node.lineno <= line <= node.end_lineno:
            return "cold", [f"the body of class `{node.name}` ({mod.display}:{node.lineno}) "
                            "runs once, at import"]
    for node in mod.tree.body:
        if id(node) in mod.scopes.main_guards and node.lineno <= line <= node.end_lineno:
            return "cold", [f"`if __name__ == \"__main__\":` ({mod.display}:{node.lineno}) "
                            "runs as a script, not inside a model"]
    return "neutral", ["module-level code runs once, at import"]


class _CrossFile:
    """The cross-file step over the files checked and the rest of their projects, with the
    predecessor of each name it reaches."""

    def __init__(self, files, plan, use_cache, jobs):
        named = set()
        all_facts = []
        for path in files:
            for f in _expand(path, plan):
                named.add(f)
                facts = _facts(f, plan)
                if facts is not None:
                    all_facts.append(facts)
        all_facts += project_facts(files, named, plan, use_cache, jobs)
        self.why: dict = {}
        _, self.cold_called = resolve_both(all_facts, self.why)
        self.reached = set(self.why)
        # Which module is which file: the files named and the rest of their projects.
        self.paths = {module_name(p)[0]: p for p in [*named, *unnamed_files(files, named,
                                                                            plan.resolver)]}
        self.seeds = {f"{facts.module}.{name}" for facts in all_facts
                      for name, (is_model, _) in facts.exports.items() if is_model}
        self._modules: dict[str, _Module] = {}

    def _module(self, module: str) -> _Module | None:
        if module not in self._modules:
            path = self.paths.get(module)
            try:
                self._modules[module] = _Module(path) if path else None
            except (source.SourceError, OSError):
                self._modules[module] = None
        return self._modules[module]

    def _unit(self, name: str):
        """(module, its _Module or None, the function or method `name` names there or None)."""
        parts = name.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:i])
            if module in self.paths:
                mod = self._module(module)
                qual = ".".join(parts[i:])
                found = [f for f in mod.scopes.order if f.parent is None and f.qualname == qual] \
                    if mod is not None else []
                return module, mod, found[0] if found else None
        return name.rpartition(".")[0], None, None

    def chain(self, name: str) -> list[str]:
        """Steps from an entry point to the function or method `name`, or [] if the
        cross-file step does not reach it."""
        if name not in self.why and name not in self.seeds:
            return []
        steps, seen = [], set()             # from `name` back to where it was reached
        while name not in seen:
            seen.add(name)
            module, mod, function = self._unit(name)
            pred = self.why.get(name)
            if name.endswith(".<module>"):
                steps.append(f"-> the module-level code of `{name[:-9]}` (a table naming it)")
            elif function is not None and pred is None:    # model code in its own file
                return mod.chain(function) + steps[::-1]
            elif function is not None:
                steps.append(f"-> {mod.where(function)}")
            else:
                steps.append(f"-> `{name}`")
            if type(pred) is tuple and pred[0] == "override of":
                steps[-1] += f", which overrides `{pred[1]}`"
                name = pred[1]
                continue
            if type(pred) is tuple and pred[0] == "entry point":    # reach.Hierarchy
                steps[-1] = steps[-1].replace("-> ", "entry point: ", 1) + f" ({pred[1]})"
                return steps[::-1]
            if type(pred) is tuple:             # read from the model code of a module
                src = self._module(pred[1])
                f = src.referrer(name) if src is not None else None
                if f is None:
                    return [f"entry point: the model code of `{pred[1]}`"] + steps[::-1]
                return src.chain(f) + steps[::-1]
            if pred is None:
                break
            name = pred
        return steps[::-1]


def _expand(path: str, plan) -> list[str]:
    files, _ = discover([path], plan.resolver)
    return [os.path.abspath(f) for f in files if not f.endswith(".ipynb")]


def _facts(path: str, plan):
    try:
        data, _ = source.read_bytes(path, path)
        text = source.decode(data, path)
    except source.SourceError:
        return None
    facts = analyse_source(plan.profile_for(path).engine, text, path, module_name(path))[1]
    # Kept as the run keeps them (runner.run_check): a package `__init__` that only
    # re-exports (`aliases`) is what links `F.vad` to `functional.filtering.vad`.
    return facts if facts is not None and (facts.exports or facts.model_refs
                                           or facts.summarises()) else None
