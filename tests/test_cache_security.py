"""The results cache lives in the checkout, so it is input from whoever controls the checkout.

Planted pickles must never run, malformed JSON must be ignored and rebuilt with at most one
warning, and concurrent runs must never trust a half-written file. All through the real CLI.
"""
import hashlib
import json
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import run_dynlint

MODEL = textwrap.dedent("""\
    import torch
    from .helpers import count_positive


    class Net(torch.nn.Module):
        def forward(self, x):
            x = x[x > 0]
            n = torch.nonzero(x)
            return x.sum() + count_positive(n)
    """)
HELPERS = textwrap.dedent("""\
    import torch

    def count_positive(t: torch.Tensor):
        return t.sum().item()
    """)


def make_tree(root: Path, copies: int = 1) -> None:
    """A package whose findings use every part of a cached result: fixes with edits, and a
    finding in helpers.py that only cross-file facts reveal (it is called from model code)."""
    for i in range(copies):
        pkg = root / f"pkg{i}"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "model.py").write_text(MODEL)
        (pkg / "helpers.py").write_text(HELPERS)


class _Payload:
    """Unpickling this creates `marker` (what an attacker's os.system call would do)."""

    def __init__(self, marker: Path, how: str):
        self.marker, self.how = str(marker), how

    def __reduce__(self):
        if self.how == "system":
            return os.system, (f"{sys.executable} -c \"open({self.marker!r}, 'w').close()\"",)
        return open, (self.marker, "w")


def payload(marker: Path, how: str = "open") -> bytes:
    data = pickle.dumps(_Payload(marker, how))
    # The payload is real: unpickling it here, in memory, does create a marker.
    probe = marker.with_name(marker.name + ".probe")
    result = pickle.loads(pickle.dumps(_Payload(probe, how)))
    if hasattr(result, "close"):
        result.close()
    assert probe.exists()
    probe.unlink()
    return data


def check(tmp_path, *extra):
    return run_dynlint("check", ".", "-q", *extra, cwd=tmp_path)


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "warning" in line]


def assert_same_run(r, expected, tmp_path, marker=None):
    assert r.returncode == 1, r.stderr
    assert r.stdout == expected.stdout
    assert "Traceback" not in r.stderr
    assert len(warnings(r.stderr)) <= 1, r.stderr
    if marker is not None:
        assert not marker.exists(), "a planted pickle was executed"


def cache_files(tmp_path):
    return [p for p in (tmp_path / ".dynlint_cache").rglob("*") if p.is_file()]


@pytest.mark.parametrize("how", ["open", "system"])
def test_every_cache_file_replaced_by_a_pickle_is_not_executed(tmp_path, how):
    make_tree(tmp_path)
    expected = check(tmp_path, "--no-cache")
    assert expected.returncode == 1 and "helpers.py:4:12: DYN201" in expected.stdout
    first = check(tmp_path)
    assert_same_run(first, expected, tmp_path)
    assert warnings(first.stderr) == []
    files = cache_files(tmp_path)
    assert any(p.suffix == ".json" for p in files)
    marker = tmp_path.parent / f"{tmp_path.name}-pwned"
    data = payload(marker, how)
    for p in files:
        p.write_bytes(data)
    r = check(tmp_path)
    assert_same_run(r, expected, tmp_path, marker)
    [warning] = warnings(r.stderr)
    assert ".dynlint_cache" in warning and ".json" in warning
    # Rebuilt: the next run reads a valid cache again, silently.
    again = check(tmp_path)
    assert_same_run(again, expected, tmp_path, marker)
    assert warnings(again.stderr) == []


def _old_pickle_path(scratch: Path) -> Path:
    """Where the pickle cache would have lived: same key parts, same hash, `.pickle`."""
    from dynlint import __version__
    from dynlint.api import build_engine
    from dynlint.engine.rules import rules_fingerprint
    from dynlint.project.cache import code_fingerprint
    from dynlint.project.config import Settings

    rules = build_engine(Settings(root=scratch)).rules
    key = (__version__, code_fingerprint(), rules_fingerprint(rules), tuple(r.code for r in rules),
           Settings().max_file_size, True)
    name = hashlib.blake2b(repr(key).encode(), digest_size=12).hexdigest()
    return Path(".dynlint_cache") / __version__ / f"{name}.pickle"


def test_payload_planted_in_a_fresh_checkout_is_not_executed(tmp_path):
    # The attacker runs dynlint once elsewhere to learn the cache file's name...
    scratch, checkout = tmp_path / "scratch", tmp_path / "checkout"
    make_tree(scratch)
    assert check(scratch).returncode == 1
    [json_file] = [p.relative_to(scratch) for p in cache_files(scratch) if p.suffix == ".json"]
    # ...and commits a payload there (and where the pickle cache was) in the checkout.
    make_tree(checkout)
    marker = tmp_path / "pwned"
    for rel in (json_file, _old_pickle_path(scratch)):
        (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
        (checkout / rel).write_bytes(payload(marker, "system"))
    expected = check(scratch, "--no-cache")
    r = check(checkout)
    assert_same_run(r, expected, checkout, marker)
    assert len(warnings(r.stderr)) == 1 and str(json_file.name) in r.stderr


def _corrupt(kind: str, file: Path, key: str = "entries") -> None:
    text = file.read_text()
    data = json.loads(text)
    entry = next(iter(data[key].values()))
    if kind == "truncated":
        file.write_text(text[: len(text) // 2])
    elif kind == "empty":
        file.write_text("")
    elif kind == "garbage":
        file.write_bytes(b"\x80\x04\x95garbage\xff" * 50)
    elif kind == "deeply-nested":
        file.write_text("[" * 100000 + "]" * 100000)
    elif kind == "wrong-format":
        data["format"] = 1
    elif kind == "wrong-version":
        data["dynlint"] = "0.0.1"
    elif kind == "wrong-code":
        data["code"] = "0" * 24
    elif kind == "wrong-key":
        data["key"] = "0" * 32
    elif kind == "not-an-object":
        file.write_text(json.dumps(list(data["entries"].values())))
    elif kind == "entries-not-a-dict":
        data["entries"] = list(data["entries"].items())
    elif kind == "entry-wrong-types":
        entry[0] = str(entry[0])
    elif kind == "finding-wrong-types":
        for e in data["entries"].values():
            for finding in e[3][0]:
                finding[0] = "1"               # line as a string
    elif kind == "fix-wrong-types":
        for e in data["entries"].values():
            for finding in e[3][0]:
                if finding[9] is not None:
                    finding[9][2] = [["a", 1, 2, 3, "x"]]
    elif kind == "facts-wrong-types":
        def names_as_numbers(text):
            facts = json.loads(text)
            facts[2] = [1, 2, 3]                # names of model code as numbers
            return json.dumps(facts)
        _rewrite_facts(file, data, names_as_numbers)
    elif kind == "facts-not-json":
        _rewrite_facts(file, data, lambda text: text[:-1])
    elif kind == "facts-digest-mismatch":     # a text that is not the one its digest names
        _rewrite_facts(file, data, lambda text: text.replace("[", "[ ", 1), keep_digest=True)
    elif kind == "lines-wrong-types":
        for e in data["entries"].values():
            if e[3][2] is not None:
                e[3][2][1] = [["1", "x = 1"]]      # a line number as a string
    elif kind == "symlink-to-dev-zero":
        file.unlink()
        file.symlink_to("/dev/zero")
    elif kind == "fifo":
        file.unlink()
        os.mkfifo(file)
    if kind in ("wrong-format", "wrong-version", "wrong-code", "wrong-key", "entries-not-a-dict",
                "entry-wrong-types", "finding-wrong-types", "fix-wrong-types", "facts-wrong-types",
                "facts-not-json", "facts-digest-mismatch", "lines-wrong-types"):
        file.write_text(json.dumps(data))


def _rewrite_facts(file: Path, data: dict, change, keep_digest: bool = False) -> None:
    """Each file's facts, kept in the blobs beside the cache file by the digest of their text
    (the entry holds `[flags, digest]`), replaced by `change(text)`, under its own digest
    (whoever controls the checkout can compute it) unless `keep_digest`. The cross-file step's
    records go, so that the next run reads the facts."""
    blobs_file = file.with_suffix(".blobs")
    blobs = json.loads(blobs_file.read_text())
    for key in [k for k in data["entries"] if k.startswith("#")]:
        del data["entries"][key]
    for e in data["entries"].values():
        if e[3][1] is not None:
            digest = e[3][1][1]
            text = change(blobs["blobs"][digest])
            if not keep_digest:
                digest = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
            blobs["blobs"][digest] = text
            e[3][1][1] = digest
    blobs_file.write_text(json.dumps(blobs))


@pytest.mark.parametrize("kind", [
    "truncated", "empty", "garbage", "deeply-nested", "wrong-format", "wrong-version", "wrong-code",
    "wrong-key", "not-an-object", "entries-not-a-dict", "entry-wrong-types", "finding-wrong-types",
    "fix-wrong-types", "facts-wrong-types", "facts-not-json", "facts-digest-mismatch",
    "lines-wrong-types", "symlink-to-dev-zero", "fifo",
    "blobs:garbage", "blobs:wrong-key", "blobs:symlink-to-dev-zero", "blobs:fifo"])
def test_malformed_cache_is_ignored_and_rebuilt(tmp_path, kind):
    make_tree(tmp_path)
    expected = check(tmp_path, "--no-cache")
    assert check(tmp_path).stdout == expected.stdout
    [file] = [p for p in cache_files(tmp_path) if p.suffix == ".json"]
    key = "blobs" if kind.startswith("blobs:") else "entries"
    if kind.startswith("blobs:"):
        # The file of the facts' texts, read only when the cross-file step runs: make it run.
        _rewrite_facts(file, data := json.loads(file.read_text()), lambda text: text)
        file.write_text(json.dumps(data))
        file = file.with_suffix(".blobs")
        _corrupt(kind.partition(":")[2], file, key="blobs")
    else:
        _corrupt(kind, file)
    r = check(tmp_path)
    assert_same_run(r, expected, tmp_path)
    [warning] = warnings(r.stderr)
    assert str(file) in warning
    # Rebuilt as a valid cache that the next run uses without complaint.
    assert json.loads(file.read_text())[key]
    again = check(tmp_path)
    assert_same_run(again, expected, tmp_path)
    assert warnings(again.stderr) == []


def test_concurrent_runs_never_crash_nor_trust_a_partial_cache(tmp_path):
    make_tree(tmp_path, copies=14)            # 42 files: enough for the worker processes
    expected = check(tmp_path, "--no-cache")
    assert expected.returncode == 1 and expected.stdout.count("\n") == 14 * 3
    cmd = [sys.executable, "-m", "dynlint", "check", ".", "-q", "-j", "2"]
    env = {k: v for k, v in os.environ.items() if k != "DYNLINT_CACHE_DIR"}
    env["DYNLINT_OUTPUT_FORMAT"] = "concise"          # as run_dynlint (conftest) pins it
    for round_ in range(10):
        # Change some files (comments only: same findings) so both runs recompute and write.
        for i in range(round_ % 3, 14, 3):
            with open(tmp_path / f"pkg{i}" / "model.py", "a") as fh:
                fh.write(f"# round {round_}\n")
        procs = [subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=env) for _ in range(2)]
        for p in procs:
            out, err = p.communicate(timeout=300)
            assert p.returncode == 1, err
            assert out == expected.stdout
            assert err == "", err              # no crash, and no half-written file was read
    third = check(tmp_path)
    assert_same_run(third, expected, tmp_path)
    assert third.stderr == ""
    assert not [p for p in (tmp_path / ".dynlint_cache").rglob(".tmp-*")]


def test_cache_dir_option_and_environment_keep_the_checkout_clean(tmp_path):
    checkout, outside = tmp_path / "checkout", tmp_path / "outside"
    make_tree(checkout)
    r = run_dynlint("check", ".", "-q", "--cache-dir", str(outside / "a"), cwd=checkout)
    assert r.returncode == 1 and list((outside / "a").rglob("*.json"))
    r = run_dynlint("check", ".", "-q", cwd=checkout, env={"DYNLINT_CACHE_DIR": str(outside / "b")})
    assert r.returncode == 1 and list((outside / "b").rglob("*.json"))
    assert not (checkout / ".dynlint_cache").exists()
    # A checkout's own pyproject cannot override the command line or the environment.
    (checkout / "pyproject.toml").write_text('[tool.dynlint]\ncache-dir = "planted"\n')
    r = run_dynlint("check", ".", "-q", cwd=checkout, env={"DYNLINT_CACHE_DIR": str(outside / "c")})
    assert r.returncode == 1 and list((outside / "c").rglob("*.json"))
    assert not (checkout / "planted").exists()


def test_result_round_trip_is_exact():
    """Every field the cache stores comes back equal, and nothing else is accepted."""
    from dynlint.engine.match import FileFacts
    from dynlint.finding import Edit, Finding, Fix
    from dynlint.check.result_json import Malformed, result_from_json, result_to_json

    fix = Fix("unsafe", "why", (Edit(1, 2, 3, 4, "torch.where(m, x, 0)"),), ("import torch",))
    f = Finding("/p/m.py", 6, 13, 6, 21, "DYN101", "boolean-mask", "msg \u00e9", "error", "Net.forward", fix)
    g = Finding("/p/m.py", 9, 1, 9, 5, "DYN201", "item", "m", "warning", "helper")
    facts = FileFacts("pkg.m", {"helper": (False, frozenset({"pkg.x"})), "<module>": (False, frozenset())},
                      frozenset({"pkg.helpers.count"}), [("helper", g)])
    data = json.loads(json.dumps(result_to_json(([f, g], facts))))
    findings, back = result_from_json(data, "/p/m.py")
    assert findings == [f, g] and findings[0].fix.edits[0].content == "torch.where(m, x, 0)"
    assert back.module == facts.module and back.conditional == facts.conditional
    assert {k: (m, frozenset(r)) for k, (m, r) in back.exports.items()} == facts.exports
    assert frozenset(back.model_refs) == facts.model_refs
    assert result_from_json(json.loads(json.dumps(result_to_json(([], None)))), "/p/m.py") == ([], None)
    for bad in (None, [], [[], None, 1], [[[True, 1, 1, 1, "c", "n", "m", "s", "s", None]], None],
                [[], ["m", {"f": [1, []]}, [], []]], [[], ["m", {}, [None], []]]):
        with pytest.raises(Malformed):
            result_from_json(bad, "/p/m.py")
