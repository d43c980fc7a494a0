"""Run sampled fixes before and after on the real functions (issue 10's acceptance item).

    python bench/fix_sample.py [--site DIR] [--n 20] [--seed 10] [--markdown]

It lists every safe and unsafe fix dynlint offers (default rules) on a copy of the installed
transformers and torchvision (DYN112's as well, with `--extend-select DYN112`, only if fewer
than `--n` are offered), draws `--n` of them with a fixed seed, and for each one:

* applies that one fix (with dynlint's own splice, imports and layout) to the installed
  module's source and imports the result as a second module of the same package;
* calls the enclosing function or method of the original and of the rewritten module on the
  same inputs (`fix_sample_inputs.CASES`: random tensors, empty and all-false masks,
  inf/nan in masked slots; methods run on a module built from a tiny config);
* compares everything a caller reads: the return value, every argument (mutated in place or
  not), and the gradients of float arguments when the result is a differentiable scalar.

The verdict is computed: `equal`, `shape-only (named in message)`, `CHANGED`, `CRASH` (the
rewrite raises where the original returns, or raises another error), or `could not run`
(with why). Any CHANGED or CRASH is a bug in the fix.
"""
from __future__ import annotations

import argparse
import contextlib
import copy
import importlib
import importlib.util
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch
from fix_sample_inputs import CASES

DEFAULT_SITE = "/work/main/.ci/venv/lib/python3.11/site-packages"
PACKAGES = ["transformers", "torchvision"]


# -- which fixes ------------------------------------------------------------------------------
def offered(site, extend=(), files=()) -> list:
    """Safe and unsafe fixes dynlint offers on a fresh copy of the packages (or of only
    `files`, paths relative to the site, for a quick run)."""
    work = tempfile.mkdtemp(prefix="dynlint-fix-sample-")
    try:
        for rel in files:
            os.makedirs(os.path.dirname(os.path.join(work, rel)), exist_ok=True)
            shutil.copy(os.path.join(site, rel), os.path.join(work, rel))
        for p in [] if files else PACKAGES:
            shutil.copytree(os.path.join(site, p), os.path.join(work, p),
                            ignore=shutil.ignore_patterns("__pycache__"))
        args = [sys.executable, "-m", "dynlint", "check", "--no-cache", "--format", "json"]
        if extend:
            args += ["--extend-select", ",".join(extend)]
        proc = subprocess.run([*args, *(files or PACKAGES)], cwd=work, capture_output=True, text=True,
                              check=False)
        found = json.loads(proc.stdout or "[]")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    fixes = [f for f in found if f.get("fix") and f["fix"]["applicability"] in ("safe", "unsafe")]
    return sorted(fixes, key=lambda f: (f["path"], f["line"], f["column"], f["code"]))


# -- one fix applied alone ------------------------------------------------------------------
@dataclass
class _Edit:
    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass
class _Fix:
    applicability: str
    message: str
    edits: list
    imports: list = field(default_factory=list)
    text_only: bool = False


def rewritten(source: str, path: str, fix: dict) -> str:
    """The source with this one fix applied, the way `--fix` applies it."""
    from dynlint.fix.layout import wrap_long_statements
    from dynlint.fix.splice import rewrite
    one = _Fix(fix["applicability"], fix["message"], [_Edit(**e) for e in fix["edits"]],
               list(fix.get("imports") or []))
    new, applied, problems = rewrite(source, [one])
    if not applied:
        raise RuntimeError(f"fix not applied: {problems}")
    return wrap_long_statements(source, new, path)


def module_name(rel: str) -> str:
    return rel[:-3].replace(os.sep, ".").removesuffix(".__init__")


def load_pair(site: str, rel: str, fix: dict, tmp: str):
    """(original module, module built from the rewritten source) as two live modules."""
    name = module_name(rel)
    original = importlib.import_module(name)
    src_path = original.__file__
    with open(src_path, encoding="utf-8") as fh:
        source = fh.read()
    copy_path = os.path.join(site, rel)
    with open(copy_path, encoding="utf-8") as fh:
        scanned = fh.read()
    if scanned != source:
        raise RuntimeError(f"{rel}: the imported module is not the scanned one")
    new = rewritten(source, rel, fix["fix"])
    if new == source:
        raise RuntimeError("the fix changes nothing")
    out = os.path.join(tmp, rel.replace(os.sep, "_"))
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(new)
    # The same name, so relative imports and code that looks the module up by name
    # (transformers' docstring helpers) see what they see for the original; the original
    # goes back into sys.modules afterwards, and registries filled at import forget the copy.
    spec = importlib.util.spec_from_file_location(name, out)
    fixed = importlib.util.module_from_spec(spec)
    with _registries_restored():
        sys.modules[name] = fixed
        try:
            spec.loader.exec_module(fixed)
        except Exception:                                        # noqa: BLE001
            fixed = _definition_only(original, source, new, fix["line"], out)
        finally:
            sys.modules[name] = original
    return original, fixed, new


def _definition_only(original, source: str, new: str, line: int, filename: str):
    """When the rewritten module cannot be imported a second time (transformers' docstring
    decorators refuse some re-imports): the rewritten top-level definition that holds the
    fix, run in a copy of the original module's namespace."""
    import ast
    import types
    old_tree, new_tree = ast.parse(source), ast.parse(new)
    name = next(n.name for n in old_tree.body if getattr(n, "name", None)
                and n.lineno <= line <= n.end_lineno)
    stmt = next(n for n in new_tree.body if getattr(n, "name", None) == name)
    module = types.ModuleType(original.__name__)
    module.__dict__.update(original.__dict__)
    code = compile(ast.Module([stmt], []), filename, "exec")
    exec(code, module.__dict__)  # noqa: S102 (running the rewritten code is the point)
    module.__dynlint_partial__ = name
    return module


@contextlib.contextmanager
def _registries_restored():
    from torchvision.models import _api
    saved = dict(_api.BUILTIN_MODELS)
    _api.BUILTIN_MODELS.clear()        # torchvision refuses a second registration of a name
    try:
        yield
    finally:
        _api.BUILTIN_MODELS.clear()
        _api.BUILTIN_MODELS.update(saved)


# -- comparing what a caller reads ------------------------------------------------------------
def differences(a, b, where="result") -> list:
    """[(kind, where)] with kind 'shape' or 'value' for every place a and b differ."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return [("value", f"{where}: {type(a).__name__} vs {type(b).__name__}")]
        if a.shape != b.shape:
            return [("shape", f"{where}: shape {tuple(a.shape)} vs {tuple(b.shape)}")]
        if a.dtype != b.dtype or a.device != b.device:
            return [("value", f"{where}: {a.dtype}/{a.device} vs {b.dtype}/{b.device}")]
        a, b = a.detach(), b.detach()
        if a.is_floating_point() or a.is_complex():
            # A masked sum adds zeros in the dropped slots: the last bit may differ.
            same = torch.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)
        else:
            same = torch.equal(a, b)
        return [] if same else [("value", f"{where}: values differ")]
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [("value", f"{where}: keys {sorted(a)} vs {sorted(b)}")]
        return [d for k in a for d in differences(a[k], b[k], f"{where}[{k!r}]")]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if type(a) is not type(b) or len(a) != len(b):
            return [("value", f"{where}: {type(a).__name__}[{len(a)}] vs {type(b).__name__}[{len(b)}]")]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{where}[{i}]")]
    if hasattr(a, "to_tuple") and hasattr(b, "to_tuple"):         # transformers' ModelOutput
        return differences(a.to_tuple(), b.to_tuple(), where)
    if isinstance(a, float) and isinstance(b, float):
        same = a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-5 * max(abs(a), abs(b))
        return [] if same else [("value", f"{where}: {a} vs {b}")]
    try:
        return [] if a == b else [("value", f"{where}: {a!r} vs {b!r}")]
    except Exception:                                             # noqa: BLE001
        return [("value", f"{where}: not comparable")]


def _leaves(obj):
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _leaves(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _leaves(v)


def call(module, case):
    """What a caller reads after one call: ('ok', result, args, grads) or ('raise', error)."""
    torch.manual_seed(case.seed)
    target, args, kwargs = case.build(module)
    args, kwargs = copy.deepcopy((args, kwargs))
    grad_leaves = []
    if case.grad:
        grad_leaves = [t for t in _leaves((args, kwargs)) if t.is_floating_point()]
        for t in grad_leaves:
            t.requires_grad_(True)
    torch.manual_seed(case.seed + 1)          # functions that draw random numbers draw the same
    try:
        result = target(*args, **kwargs)
        grads = None
        if case.grad and isinstance(result, torch.Tensor) and result.requires_grad and result.numel() == 1:
            result.backward()
            grads = [t.grad for t in grad_leaves]
    except Exception as exc:                                     # noqa: BLE001
        return ("raise", f"{type(exc).__name__}: {str(exc).splitlines()[0][:80] if str(exc) else ''}")
    return ("ok", result, (args, kwargs), grads)


def verdict(fix: dict, before, after) -> tuple[str, str]:
    if before[0] == "raise" and after[0] == "raise":
        same = before[1].split(":")[0] == after[1].split(":")[0]
        return ("equal", f"both raise {before[1]}") if same else ("CRASH", f"{before[1]} -> {after[1]}")
    if after[0] == "raise":
        return "CRASH", after[1]
    if before[0] == "raise":
        return "CHANGED", f"the original raises {before[1]}, the rewrite returns"
    diffs = (differences(before[1], after[1], "result") + differences(before[2], after[2], "argument")
             + differences(before[3], after[3], "grad"))
    if not diffs:
        return "equal", ""
    if all(k == "shape" for k, _ in diffs) and "shape" in fix["message"]:
        return "shape-only (named in message)", "; ".join(w for _, w in diffs)
    return "CHANGED", "; ".join(w for _, w in diffs[:3])


def run_site(site: str, fix: dict, tmp: str):
    """[(case label, verdict, detail)] for one fix, or one ('-', 'could not run', why)."""
    with open(os.path.join(site, fix["path"]), encoding="utf-8") as fh:
        text = fh.read().splitlines()[fix["line"] - 1].strip()
    cases = CASES.get((fix["path"], text))
    if cases is None:
        return [("-", "could not run", "no inputs written for this site")], None
    if isinstance(cases, str):
        return [("-", "could not run", cases)], None
    try:
        original, fixed, new = load_pair(site, fix["path"], fix, tmp)
    except Exception as exc:                                     # noqa: BLE001
        return [("-", "could not run", f"import: {type(exc).__name__}: {exc}"[:160])], None
    rows = []
    for case in cases:
        try:
            before, after = call(original, case), call(fixed, case)
            rows.append((case.label, *verdict(fix, before, after)))
        except Exception:                                        # noqa: BLE001
            rows.append((case.label, "could not run", traceback.format_exc().splitlines()[-1][:160]))
    if getattr(fixed, "__dynlint_partial__", None):
        why = ("the module refuses a second import: the rewritten "
               f"`{fixed.__dynlint_partial__}` ran in the original module's namespace")
        rows.append(("note", "equal", why))
    return rows, new


WORST = ["CRASH", "CHANGED", "could not run", "shape-only (named in message)", "equal"]


def overall(rows) -> str:
    return min((r[1] for r in rows), key=WORST.index)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default=DEFAULT_SITE)
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--fixes", help="reuse this JSON list of offered fixes")
    parser.add_argument("--save-fixes", help="write the offered fixes to this JSON file")
    parser.add_argument("--files", nargs="*", default=(),
                        help="scan only these files (relative to --site) instead of the packages")
    parser.add_argument("--only", nargs="*", help="run only these path:line sites of the sample")
    args = parser.parse_args()
    if args.fixes:
        with open(args.fixes) as fh:
            fixes = json.load(fh)
    else:
        fixes = offered(args.site, files=args.files)
        if len(fixes) < args.n and not args.files:
            print(f"only {len(fixes)} safe/unsafe fixes with the default rules; adding DYN112's")
            fixes = offered(args.site, ["DYN112"])
    if args.save_fixes:
        with open(args.save_fixes, "w") as fh:
            json.dump(fixes, fh)
    kinds = {k: sum(f["fix"]["applicability"] == k for f in fixes) for k in ("safe", "unsafe")}
    print(f"fixes offered: {len(fixes)} ({kinds['safe']} safe, {kinds['unsafe']} unsafe); "
          f"sample of {min(args.n, len(fixes))}, seed {args.seed}")
    sample = sorted(random.Random(args.seed).sample(fixes, min(args.n, len(fixes))),
                    key=lambda f: (f["path"], f["line"], f["column"]))
    if args.only:
        sample = [f for f in sample if f"{f['path']}:{f['line']}" in args.only]
    tmp = tempfile.mkdtemp(prefix="dynlint-fix-sample-mods-")
    tally = {}
    print("| site | template | class | verdict | cases |")
    print("|---|---|---|---|---|")
    for f in sample:
        rows, _ = run_site(args.site, f, tmp)
        v = overall(rows)
        tally[v] = tally.get(v, 0) + 1
        cases = "; ".join(f"{label}: {verd}" + (f" ({why})" if why else "")
                          for label, verd, why in rows)
        tmpl = f["fix"]["message"].split(";")[0].split(":")[0][:60]
        print(f"| `{f['path']}:{f['line']}` | {f['code']} {tmpl} | {f['fix']['applicability']} "
              f"| {v} | {cases} |", flush=True)
    print("verdicts:", tally)
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if tally.get("CRASH") or tally.get("CHANGED") else 0


if __name__ == "__main__":
    sys.exit(main())
