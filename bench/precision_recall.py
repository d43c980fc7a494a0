#!/usr/bin/env python
"""Line-level precision and recall of dynlint against the runtime ground truth.

Reads one or more ground-truth files written by `bench/groundtruth.py`, runs
`dynlint check --format json --no-cache` on exactly the package files that the runs touched
(executed or held a dynamic op), and compares (file, line) pairs:

* ground truth (GT): lines where a data-dependent op ran (dynamic output shape, bool-mask
  index, host sync such as `.item()`/`bool(t)`, torchvision nms, and -- in files recorded since
  `host-copy` -- a device-to-host copy of a tensor that a GPU run holds on the device: `.cpu()`,
  `.to("cpu")`, `.tolist()`, `.numpy()`, printing), attributed to the innermost package frame;
* recall    = GT lines flagged by dynlint (any rule) / GT lines;
* precision (a) = flagged lines that are GT / all flagged lines in the touched files;
* precision (b) = flagged lines that are GT / flagged lines that executed in the runs -- the
  fair one: code that never ran cannot be confirmed either way.

Executed flagged lines that are not GT are further split into
  `caller`      the line is an outer package frame of a dynamic op (e.g. `batched_nms(...)`
                call site, a call into a helper that syncs): right code, wrong line;
  `by-design`   DYN207 slices by a host value: the sync happened on an earlier line;
  `host-read`   `.tolist()`/`.numpy()` ran there but the GT holds no host copy: a tensor built on
                the host, or a file recorded before `host-copy` existed;
  `unconfirmed` nothing data-dependent happened on that line at runtime.
`precision (b, lenient)` counts the first three as correct.

Both exact-line matching and statement matching (each line mapped to the first line of its
innermost statement; compound statements by their header) are reported.

Usage:

    python bench/precision_recall.py --gt bench/results/gt.json
    python bench/precision_recall.py --gt bench/results/gt.json bench/results/gt_new.json   # all
                                        # packages, old and new; a per-package table is printed
    python bench/precision_recall.py --gt bench/results/gt.json bench/results/gt_new.json \
        bench/results/gt_b.json             # with suite b (ultralytics, torch_geometric) too
    python bench/precision_recall.py --gt bench/results/gt.json --models detection,hf_bert \
        --out bench/results/pr_report.json --show 40
    python bench/precision_recall.py --gt ... --target hpu   # with the rules on for Gaudi too

The JSON report (`--out`, default bench/results/pr_report.json) holds the numbers, per-rule
and per-op breakdowns and every false negative / executed false positive with its source.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


# ---------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------
# op classes that wait for the device: host syncs (`.item()`, `bool(t)`...) and host copies
HOST_CLASSES = ("host-sync", "host-copy")


def op_class(op: str) -> str:
    if op.startswith("host-copy:"):
        return "host-copy"
    if op.startswith("aten.index"):
        return "mask-index"
    if op in ("aten._local_scalar_dense", "aten.item", "aten.equal", "aten.is_nonzero"):
        return "host-sync"
    if "unique" in op:
        return "unique"
    return op.replace("aten.", "").replace("torchvision.", "")


class Truth:
    """The union over the selected models of what the runs saw, per package file."""

    def __init__(self):
        self.dynamic: dict[tuple[str, int], Counter] = defaultdict(Counter)
        self.via: dict[tuple[str, int], set] = defaultdict(set)
        self.models: dict[tuple[str, int], set] = defaultdict(set)
        self.callers: dict[tuple[str, int], set] = defaultdict(set)
        self.host_reads: dict[tuple[str, int], set] = defaultdict(set)
        self.executed: dict[str, set] = defaultdict(set)
        self.bases: dict[str, str] = {}        # rel path -> site dir
        self.model_status: dict[str, str] = {}

    def add(self, gt: dict, keep) -> None:
        roots = gt.get("meta", {}).get("roots", {})
        for name, res in gt["models"].items():
            if not keep(name):
                continue
            self.model_status[name] = res["status"]
            for rel, fr in res["files"].items():
                pkg = rel.split("/", 1)[0]
                self.bases.setdefault(rel, _site_dir(pkg, roots.get(pkg)))
                ex = self.executed[rel]
                executed = fr["executed"]
                ex.update(from_ranges(executed) if isinstance(executed, str) else executed)
                for line, site in fr["dynamic"].items():
                    key = (rel, int(line))
                    self.dynamic[key].update(site["ops"])
                    self.via[key].update(site.get("via", ()))
                    self.models[key].add(name)
                    ex.add(int(line))
                for line, ops in fr.get("callers", {}).items():
                    self.callers[(rel, int(line))].update(ops)
                for line, ops in fr.get("host_reads", {}).items():
                    self.host_reads[(rel, int(line))].update(ops)

    def path(self, rel: str) -> str:
        return os.path.join(self.bases[rel], rel)


def from_ranges(text: str) -> list[int]:
    out: list[int] = []
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def _site_dir(pkg: str, recorded: str | None) -> str:
    if recorded and os.path.isdir(os.path.join(recorded, pkg)):
        return recorded
    # find_spec locates the package without importing it: importing them all in one process
    # can fail (torch_geometric patches torch.index_select, which breaks effdet's jit.script).
    import importlib.util
    spec = importlib.util.find_spec(pkg)
    if spec is None or not spec.origin:
        raise SystemExit(f"package {pkg!r} of the ground truth is not installed")
    return os.path.dirname(os.path.dirname(os.path.realpath(spec.origin)))


def run_dynlint(paths: list[str], dynlint_cmd: list[str], target: str | None = None
                ) -> tuple[list[dict], float]:
    t0 = time.time()
    extra = ["--config", f'target = "{target}"'] if target else []
    proc = subprocess.run(dynlint_cmd + ["check", "--format", "json", "--no-cache", "--exit-zero",
                                         *extra, *paths], capture_output=True, text=True, cwd=REPO)
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"dynlint failed with exit code {proc.returncode}")
    out = proc.stdout.strip()
    findings = json.loads(out) if out else []
    return findings, time.time() - t0


# ---------------------------------------------------------------------------------------
# Statement mapping and source helpers
# ---------------------------------------------------------------------------------------
class Source:
    def __init__(self, path: str):
        with open(path, encoding="utf-8") as fh:
            self.text = fh.read()
        self.lines = self.text.splitlines()
        self._stmt: dict[int, int] | None = None
        self._roles: dict[int, tuple[str, str]] | None = None

    def line(self, n: int) -> str:
        return self.lines[n - 1].strip() if 0 < n <= len(self.lines) else ""

    def stmt(self, n: int) -> int:
        if self._stmt is None:
            self._stmt = statement_map(self.text)
        return self._stmt.get(n, n)

    def role(self, n: int) -> tuple[str, str]:
        """(qualname, dynlint role) of the innermost function holding line n."""
        if self._roles is None:
            self._roles = function_roles(self.text, self.lines)
        return self._roles.get(n, ("<module>", "module"))


def statement_map(text: str) -> dict[int, int]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    out: dict[int, int] = {}
    for node in ast.walk(tree):        # outer statements first: inner ones overwrite
        if not isinstance(node, ast.stmt):
            continue
        start = node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.AST):
            end = max(start, body[0].lineno - 1)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                start = min([start] + [d.lineno for d in node.decorator_list])
        else:
            end = node.end_lineno or start
        for ln in range(start, end + 1):
            out[ln] = start
    # ast.walk is breadth-first, so nested statements come after their parents. Handlers,
    # orelse and finally blocks are covered by their own statements.
    return out


def function_roles(text: str, lines: list[str]) -> dict[int, tuple[str, str]]:
    """Line -> (qualname, role) using dynlint's own scopes pre-pass (read only)."""
    sys.path.insert(0, REPO)
    try:
        from dynlint.analysis.scopes import index_module
    except Exception:
        return {}
    try:
        tree = ast.parse(text)
        scopes = index_module(tree, lines)
    except Exception:
        return {}
    out: dict[int, tuple[str, str]] = {}
    infos = sorted(scopes.functions.values(), key=lambda f: f.node.lineno)
    for f in infos:                      # nested functions come later and overwrite
        for ln in range(f.node.lineno, (f.node.end_lineno or f.node.lineno) + 1):
            out[ln] = (f.qualname, getattr(f.role, "value", f.role))
    return out


_PATTERNS = [
    ("one_hot(num_classes=...) range check (CPU-only sync)", re.compile(r"\bone_hot\(.*num_classes")),
    ("f-string of a tensor", re.compile(r"""\bf["'].*\{""")),
    ("`.item()`", re.compile(r"\.item\(\)")),
    ("`.tolist()`", re.compile(r"\.tolist\(\)")),
    ("one-arg torch.where", re.compile(r"\bwhere\([^,()]*(\([^()]*\)[^,()]*)*\)")),
    ("nonzero/argwhere", re.compile(r"\b(nonzero|argwhere)\(")),
    ("unique", re.compile(r"\bunique(_consecutive)?\(")),
    ("nms", re.compile(r"\bnms\(")),
    ("int/float/bool(...)", re.compile(r"(?<![\w.])(int|float|bool|round|math\.\w+)\(")),
    ("condition (if/while/assert/ternary/and/or/not)",
     re.compile(r"^(if|elif|while|assert)\b|\bif\b.*\belse\b|\b(and|or|not)\b")),
    ("size argument (arange/zeros/view/range/...)",
     re.compile(r"\b(arange|zeros|ones|empty|full|range|linspace|view|reshape|expand|repeat|"
                r"new_zeros|new_ones|new_full|split|narrow|interpolate|pad)\(")),
    ("subscript", re.compile(r"\w\s*\[")),
    ("comparison / `in`", re.compile(r"(==|!=|<=|>=|<|>|\bin\b)")),
]


def text_pattern(src: str) -> str:
    for name, rx in _PATTERNS:
        if rx.search(src):
            return name
    return "other call"


# ---------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------
def ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def fmt(x) -> str:
    return "  n/a " if x is None else f"{x * 100:5.1f}%"


def score(truth: Truth, findings: list[dict], sources: dict[str, Source], stmt_level: bool) -> dict:
    def key(rel: str, line: int) -> tuple[str, int]:
        return (rel, sources[rel].stmt(line)) if stmt_level else (rel, line)

    gt: dict[tuple[str, int], Counter] = defaultdict(Counter)
    for (rel, line), ops in truth.dynamic.items():
        gt[key(rel, line)].update(ops)
    executed = {(rel, key(rel, ln)[1]) for rel, lines in truth.executed.items() for ln in lines}
    callers = {key(*k) for k in truth.callers}
    host_reads = {key(*k) for k in truth.host_reads}
    flagged: dict[tuple[str, int], set] = defaultdict(set)
    for f in findings:
        flagged[key(f["rel"], f["line"])].add(f["code"])

    tp = set(gt) & set(flagged)
    fl_exec = {k for k in flagged if k in executed}
    res = {
        "gt_lines": len(gt), "flagged_lines": len(flagged), "flagged_executed": len(fl_exec),
        "true_positives": len(tp),
        "recall": ratio(len(tp), len(gt)),
        "precision_all": ratio(len(tp), len(flagged)),
        "precision_executed": ratio(len(tp), len(fl_exec)),
    }
    # categories of executed false positives
    cats: dict[str, list] = defaultdict(list)
    for k in sorted(fl_exec - tp):
        codes = flagged[k]
        if k in callers:
            cat = "caller"
        elif codes == {"DYN207"}:
            cat = "by-design"
        elif k in host_reads:
            cat = "host-read"
        else:
            cat = "unconfirmed"
        cats[cat].append(k)
    res["executed_fp_categories"] = {c: len(v) for c, v in sorted(cats.items())}
    ok = len(tp) + sum(len(v) for c, v in cats.items() if c != "unconfirmed")
    res["precision_executed_lenient"] = ratio(ok, len(fl_exec))
    # per rule
    per_rule = {}
    codes = sorted({c for cs in flagged.values() for c in cs})
    for code in codes:
        lines = {k for k, cs in flagged.items() if code in cs}
        ex = lines & executed
        t = lines & set(gt)
        per_rule[code] = {"flagged": len(lines), "executed": len(ex), "tp": len(t),
                          "precision_all": ratio(len(t), len(lines)),
                          "precision_executed": ratio(len(t), len(ex)),
                          "unconfirmed_executed": len([k for k in cats.get("unconfirmed", ()) if code in flagged[k]])}
    res["per_rule"] = per_rule
    # recall per op class
    per_op: dict[str, list] = defaultdict(lambda: [0, 0])
    for k, ops in gt.items():
        for cls in {op_class(o) for o in ops}:
            per_op[cls][0] += 1
            per_op[cls][1] += k in flagged
    res["recall_per_op"] = {c: {"gt": n, "found": f, "recall": ratio(f, n)}
                            for c, (n, f) in sorted(per_op.items())}
    res["per_package"] = per_package(gt, flagged, executed, cats)
    res["_sets"] = (gt, flagged, executed, cats, tp)
    return res


def per_package(gt, flagged, executed, cats) -> dict:
    """Per package (first path component): sites, shape-op and host-sync recall (host syncs and
    host copies), precision on executed lines (strict and lenient). A site with both kinds of op
    counts in both recalls."""
    lenient_ok = {k for c, keys in cats.items() if c != "unconfirmed" for k in keys}
    out = {}
    for pkg in sorted({rel.split("/", 1)[0] for rel, _ in gt} | {rel.split("/", 1)[0] for rel, _ in flagged}):
        mine = {k for k in gt if k[0].split("/", 1)[0] == pkg}
        shape = {k for k in mine if any(op_class(o) not in HOST_CLASSES for o in gt[k])}
        host = {k for k in mine if any(op_class(o) in HOST_CLASSES for o in gt[k])}
        fl_exec = {k for k in flagged if k in executed and k[0].split("/", 1)[0] == pkg}
        tp_exec = fl_exec & mine
        out[pkg] = {"sites": len(mine), "shape_sites": len(shape), "host_sites": len(host),
                    "recall": ratio(len(mine & set(flagged)), len(mine)),
                    "recall_shape": ratio(len(shape & set(flagged)), len(shape)),
                    "recall_host": ratio(len(host & set(flagged)), len(host)),
                    "flagged_executed": len(fl_exec),
                    "precision_executed": ratio(len(tp_exec), len(fl_exec)),
                    "precision_executed_lenient": ratio(len(tp_exec | (fl_exec & lenient_ok)), len(fl_exec))}
    return out


def package_table(per_pkg: dict) -> str:
    """The per-package figures as a Markdown table."""
    def f(x):
        return "n/a" if x is None else f"{x:.2f}"
    rows = ["| package | sites (shape / host) | shape-op recall | host-sync recall | precision (executed) "
            "| precision lenient |", "|---|---|---|---|---|---|"]
    for pkg, r in per_pkg.items():
        rows.append(f"| {pkg} | {r['sites']} ({r['shape_sites']} / {r['host_sites']}) | "
                    f"{f(r['recall_shape'])} ({r['shape_sites']}) | {f(r['recall_host'])} ({r['host_sites']}) | "
                    f"{f(r['precision_executed'])} ({r['flagged_executed']} lines) | "
                    f"{f(r['precision_executed_lenient'])} |")
    return "\n".join(rows)


def describe(truth: Truth, res: dict, sources: dict[str, Source], stmt_level: bool) -> dict:
    gt, flagged, executed, cats, tp = res.pop("_sets")
    fns = []
    for k in sorted(set(gt) - set(flagged)):
        rel, line = k
        src = sources[rel]
        qual, role = src.role(line)
        ops = gt[k]
        raw = [ln for (r, ln) in truth.dynamic if r == rel and (src.stmt(ln) if stmt_level else ln) == line]
        models = sorted({m for ln in raw for m in truth.models[(rel, ln)]})
        via = sorted({v for ln in raw for v in truth.via[(rel, ln)]})
        fns.append({"file": rel, "line": line, "code": src.line(line), "ops": dict(ops),
                    "via": via, "function": qual, "role": role, "models": models[:6],
                    "pattern": text_pattern(src.line(line)),
                    "op_class": sorted({op_class(o) for o in ops})})
    fps = []
    for cat, keys in sorted(cats.items()):
        for rel, line in keys:
            src = sources[rel]
            qual, role = src.role(line)
            fps.append({"file": rel, "line": line, "code": src.line(line),
                        "rules": sorted(flagged[(rel, line)]), "category": cat,
                        "function": qual, "role": role,
                        "callee_ops": sorted(truth.callers.get((rel, line), ()))})
    unexec = []
    for k in sorted(set(flagged) - executed):
        rel, line = k
        unexec.append({"file": rel, "line": line, "code": sources[rel].line(line),
                       "rules": sorted(flagged[k]), "function": sources[rel].role(line)[0]})
    return {"false_negatives": fns, "false_positives_executed": fps, "flagged_not_executed": unexec,
            "true_positives": [{"file": r, "line": ln, "code": sources[r].line(ln),
                                "rules": sorted(flagged[(r, ln)]), "ops": dict(gt[(r, ln)])}
                               for r, ln in sorted(tp)]}


def print_report(name: str, res: dict, detail: dict, show: int) -> None:
    print(f"\n=== {name} ===")
    print(f"GT lines {res['gt_lines']}, flagged {res['flagged_lines']} "
          f"({res['flagged_executed']} executed), TP {res['true_positives']}")
    print(f"recall                     {fmt(res['recall'])}")
    print(f"precision (a) all flagged  {fmt(res['precision_all'])}")
    print(f"precision (b) executed     {fmt(res['precision_executed'])}   "
          f"lenient {fmt(res['precision_executed_lenient'])}   "
          f"executed non-GT: {res['executed_fp_categories']}")
    print("per rule:   code    flagged  exec   tp  prec(a)  prec(b)")
    for code, r in res["per_rule"].items():
        print(f"            {code}  {r['flagged']:6d} {r['executed']:5d} {r['tp']:4d}  "
              f"{fmt(r['precision_all'])}   {fmt(r['precision_executed'])}")
    print("per package:")
    print(package_table(res["per_package"]))
    print("recall per op class:")
    for cls, r in res["recall_per_op"].items():
        print(f"            {cls:20s} {r['found']:4d}/{r['gt']:<4d} {fmt(r['recall'])}")
    if show <= 0:
        return
    fns = detail["false_negatives"]
    print(f"\nfalse negatives ({len(fns)}), grouped by op class and pattern:")
    groups: dict[tuple, list] = defaultdict(list)
    for f in fns:
        groups[(",".join(f["op_class"]), f["pattern"])].append(f)
    for (cls, pat), items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"  [{cls} | {pat}] {len(items)}")
        for f in items[:show]:
            via = f" via {','.join(f['via'])}" if f["via"] else ""
            print(f"    {f['file']}:{f['line']}  ({f['role']} {f['function']}{via})  {f['code'][:110]}")
    fps = [f for f in detail["false_positives_executed"]]
    print(f"\nexecuted flagged lines without a runtime op ({len(fps)}), grouped by category and rule:")
    groups = defaultdict(list)
    for f in fps:
        groups[(f["category"], ",".join(f["rules"]))].append(f)
    for (cat, rules), items in sorted(groups.items(), key=lambda kv: (kv[0][0] != "unconfirmed", -len(kv[1]))):
        print(f"  [{cat} | {rules}] {len(items)}")
        for f in items[:show]:
            extra = f"  -> {','.join(f['callee_ops'])}" if f["callee_ops"] else ""
            print(f"    {f['file']}:{f['line']}  ({f['role']} {f['function']})  {f['code'][:110]}{extra}")


def dynlint_state() -> str:
    """The commit of the dynlint tree under test, with '+dirty' when engine/rule files changed."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                              text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "dynlint", "rules"], cwd=REPO,
                               capture_output=True, text=True).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except OSError:
        return "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gt", nargs="+", default=[os.path.join(HERE, "results", "gt.json")])
    ap.add_argument("--models", help="comma-separated substrings of model names to keep")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "pr_report.json"))
    ap.add_argument("--show", type=int, default=12, help="examples printed per group (0: none)")
    ap.add_argument("--dynlint", default=f"{sys.executable} -m dynlint",
                    help="command that runs dynlint")
    ap.add_argument("--target", help="the accelerator dynlint checks for (its `target` setting, "
                    "e.g. hpu: also the rules off by default but on for that target)")
    args = ap.parse_args(argv)
    pats = [p for p in (args.models or "").split(",") if p]

    def keep(name: str) -> bool:
        return not pats or any(p in name for p in pats)

    truth = Truth()
    for path in args.gt:
        with open(path) as fh:
            truth.add(json.load(fh), keep)
    rels = sorted(r for r, lines in truth.executed.items() if lines)
    paths = [truth.path(r) for r in rels]
    by_real = {os.path.realpath(p): r for p, r in zip(paths, rels)}
    findings, secs = run_dynlint(paths, args.dynlint.split(), args.target)
    for f in findings:
        p = f["path"] if os.path.isabs(f["path"]) else os.path.join(REPO, f["path"])
        f["rel"] = by_real.get(os.path.realpath(p))
    unknown = [f for f in findings if f["rel"] is None]
    findings = [f for f in findings if f["rel"] is not None and f["code"].startswith("DYN1")
                or f["rel"] is not None and f["code"].startswith("DYN2")]
    sources = {r: Source(truth.path(r)) for r in rels}
    print(f"{len(truth.model_status)} models ({sum(s == 'ok' for s in truth.model_status.values())} ok), "
          f"{len(rels)} touched files, {len(findings)} findings (dynlint {secs:.1f}s)"
          + (f", {len(unknown)} findings on unknown paths" if unknown else ""))
    report = {"gt": args.gt, "dynlint_version": dynlint_state(), "models": truth.model_status,
              "files": rels, "dynlint_seconds": round(secs, 2)}
    print(f"dynlint under test: {report['dynlint_version']}")
    for label, stmt in (("line", False), ("statement", True)):
        res = score(truth, findings, sources, stmt)
        detail = describe(truth, res, sources, stmt)
        print_report(f"{label}-level", res, detail if label == "line" else {}, args.show if label == "line" else 0)
        report[label] = {**res, **({"details": detail} if label == "line" else {})}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(report, fh, indent=1)
    print(f"\nreport -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
