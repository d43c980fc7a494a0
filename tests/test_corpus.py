"""Real-world corpus: dynlint on unmodified source files of torchvision, transformers and torch.

`tests/corpus/` holds copies of real files (license headers kept; see tests/corpus/README.md).
`expected.json` maps each file to the findings dynlint must report, as `{line, code}`; every
entry is justified, either by the runtime ground truth of `bench/groundtruth.py` (the op ran
on that line in a real model) or by review as a genuine data-dependent shape or host sync.
Files with an empty list must stay clean (training utilities, samplers, plain models).

`missing.json` lists data-dependent lines that the ground truth confirmed but dynlint does
not report yet (code null: no rule covers the pattern). They are checked by an xfail test, so
fixing one shows up as XPASS; then move the entry to `expected.json`.

dynlint runs once, in a subprocess, as `dynlint check --format json --no-cache --isolated`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
REPO = os.path.dirname(HERE)

# Findings dynlint reports on the corpus that are not justified (false positives), as
# (file, line, code). Empty: at the time of writing every current finding was reviewed as
# genuine. Add entries here only together with an xfail on test_corpus_exact.
KNOWN_FALSE_POSITIVES: list[tuple[str, int, str]] = []


def _load(name: str) -> dict:
    with open(os.path.join(CORPUS, name), encoding="utf-8") as fh:
        return json.load(fh)


def _corpus_files() -> list[str]:
    out = []
    for root, _, files in os.walk(CORPUS):
        for fn in files:
            if fn.endswith(".py"):
                out.append(os.path.relpath(os.path.join(root, fn), CORPUS).replace(os.sep, "/"))
    return sorted(out)


@pytest.fixture(scope="module")
def findings() -> list[dict]:
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-m", "dynlint", "check", "--format", "json", "--no-cache", "--isolated",
         "--exit-zero", *_corpus_files()],
        cwd=CORPUS, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = []
    for f in json.loads(proc.stdout or "[]"):
        path = os.path.relpath(os.path.join(CORPUS, f["path"]), CORPUS).replace(os.sep, "/")
        out.append({**f, "path": path})
    return out


def _source_line(path: str, line: int) -> str:
    with open(os.path.join(CORPUS, path), encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _fmt(items, extra=None) -> str:
    rows = []
    for path, line, code in sorted(items):
        note = f"  [{extra[(path, line, code)]}]" if extra and (path, line, code) in extra else ""
        rows.append(f"    {path}:{line}  {code}  {_source_line(path, line)[:100]}{note}")
    return "\n".join(rows)


def test_corpus_files_match_expected_json():
    expected = _load("expected.json")
    assert sorted(expected) == _corpus_files(), "expected.json must list every corpus file"
    missing = _load("missing.json")
    assert set(missing) <= set(expected)


def test_corpus_exact(findings):
    expected = {(path, e["line"], e["code"]) for path, items in _load("expected.json").items()
                for e in items}
    actual = {(f["path"], f["line"], f["code"]) for f in findings}
    known_miss = {(path, m["line"]): m for path, items in _load("missing.json").items() for m in items}
    lost = expected - actual
    extra = actual - expected
    notes = {}
    for key in extra:
        m = known_miss.get(key[:2])
        if m is not None:
            notes[key] = "listed in missing.json: a fixed miss, move it to expected.json"
        elif key in KNOWN_FALSE_POSITIVES:
            notes[key] = "known false positive"
    msg = []
    if lost:
        msg.append(f"expected but not reported ({len(lost)}):\n" + _fmt(lost))
    if extra:
        msg.append(f"reported but not expected ({len(extra)}):\n" + _fmt(extra, notes))
    assert not msg, "dynlint's findings on tests/corpus differ from expected.json\n" + "\n".join(msg)


def test_corpus_confidence(findings):
    """An entry of expected.json that names a confidence (`likely` for a read of a tensor built
    in host memory, say) is reported with that confidence."""
    expected = {(path, e["line"], e["code"]): e["confidence"]
                for path, items in _load("expected.json").items() for e in items if "confidence" in e}
    assert expected
    wrong = [(f["path"], f["line"], f["code"]) for f in findings
             if (f["path"], f["line"], f["code"]) in expected
             and f["confidence"] != expected[(f["path"], f["line"], f["code"])]]
    notes = {k: f"expected {expected[k]}" for k in wrong}
    assert not wrong, "findings with another confidence than expected.json says:\n" + _fmt(wrong, notes)


@pytest.mark.xfail(strict=False, reason="data-dependent lines confirmed at runtime that dynlint "
                                       "does not report yet (tests/corpus/missing.json)")
def test_corpus_known_misses_are_found(findings):
    """Each missing.json line is covered by some finding's span (with its code, when given)."""
    still = []
    for path, items in _load("missing.json").items():
        for m in items:
            hit = any(f["path"] == path and f["line"] <= m["line"] <= f.get("end_line", f["line"])
                      and (m["code"] is None or f["code"] == m["code"]) for f in findings)
            if not hit:
                still.append((path, m["line"], m["code"] or "-"))
    assert not still, f"{len(still)} known misses:\n" + _fmt(still)
