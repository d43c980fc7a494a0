"""Bad input never crashes the run: each bad file gets its own diagnostic with file and line,
the other files are still checked, and nothing is written to them."""
import json
import os
import sys

import pytest


DYNAMIC = "import torch\n\n\ndef f(x: torch.Tensor):\n    return x[x > 0]\n"


def _check(dynlint, cwd, *paths, extra=()):
    r = dynlint("check", *paths, "--no-cache", "--format", "json", *extra, cwd=cwd)
    assert "Traceback" not in r.stderr, r.stderr
    return r, json.loads(r.stdout or "[]")


def _by_path(findings):
    out = {}
    for f in findings:
        out.setdefault(f["path"], []).append(f)
    return out


def test_each_bad_file_gets_a_diagnostic_and_the_run_goes_on(dynlint, write, tmp_path):
    write("good.py", DYNAMIC)
    write("py2.py", 'print "hello"\n')
    write("truncated.py", "import torch\ndef f(x):\n    return (x +\n")
    write("latin1.py", "import torch\ns = 'caf\xe9'\n", encoding="latin-1")
    write("badcookie.py", b"# -*- coding: klingon -*-\nimport torch\n", mode="wb")
    write("nul.py", b"import torch\nx = 1\x00\n", mode="wb")
    write("empty.py", "")
    write("bom.py", b"\xef\xbb\xbf" + DYNAMIC.encode(), mode="wb")
    write("cookie_ok.py", "# -*- coding: latin-1 -*-\nimport torch\ns = 'caf\xe9'\n"
          "def f(x: torch.Tensor):\n    return x[x > 0]\n", encoding="latin-1")
    (tmp_path / "dir.py").mkdir()                     # a directory named like a module
    write("dir.py/inner.py", DYNAMIC)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*.py") if p.is_file()}

    r, findings = _check(dynlint, tmp_path, ".")
    assert r.returncode == 1
    got = _by_path(findings)
    assert got["good.py"][0]["code"] == "DYN101"
    assert got["py2.py"][0]["code"] == "DYN901" and got["py2.py"][0]["line"] == 1
    assert "SyntaxError" in got["py2.py"][0]["message"]
    assert got["truncated.py"][0]["code"] == "DYN901" and got["truncated.py"][0]["line"] == 3
    assert got["latin1.py"][0]["code"] == "DYN902" and got["latin1.py"][0]["line"] == 2
    assert "0xe9" in got["latin1.py"][0]["message"]
    assert got["badcookie.py"][0]["code"] == "DYN902" and got["badcookie.py"][0]["line"] == 1
    assert got["nul.py"][0]["code"] == "DYN903" and got["nul.py"][0]["line"] == 2
    assert "empty.py" not in got
    # A BOM and a declared encoding are read the way Python reads them; columns stay right.
    assert [(f["code"], f["line"], f["column"]) for f in got["bom.py"]] == [("DYN101", 5, 12)]
    assert [(f["code"], f["line"]) for f in got["cookie_ok.py"]] == [("DYN101", 5)]
    assert got["dir.py/inner.py"][0]["code"] == "DYN101"
    after = {p: p.read_bytes() for p in before}
    assert after == before, "checking must never modify files"


def test_text_output_names_file_and_line(dynlint, write, tmp_path):
    write("py2.py", 'print "hello"\n')
    r = dynlint("check", "py2.py", "--no-cache", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout.startswith("py2.py:1:")
    assert "DYN901" in r.stdout


def test_huge_file_is_skipped_with_a_diagnostic(dynlint, write, tmp_path):
    big = "import torch\n" + "x = [" + ",".join(["1"] * 10) + "]\n" * 1 + "# " + "a" * (6 * 1024 * 1024) + "\n"
    write("huge.py", big)
    write("good.py", DYNAMIC)
    r, findings = _check(dynlint, tmp_path, ".")
    got = _by_path(findings)
    assert got["huge.py"][0]["code"] == "DYN904" and "MB" in got["huge.py"][0]["message"]
    assert got["good.py"][0]["code"] == "DYN101"
    r, findings = _check(dynlint, tmp_path, "huge.py", extra=("--max-file-size", "0"))
    assert findings == [] and r.returncode == 0


def test_generated_deeply_nested_file(dynlint, write, tmp_path):
    write("deep.py", "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n# torch\n")
    write("good.py", DYNAMIC)
    r, findings = _check(dynlint, tmp_path, ".")
    got = _by_path(findings)
    assert got["deep.py"][0]["code"] == "DYN901"
    assert got["good.py"][0]["code"] == "DYN101"


def test_symlink_loops_and_dangling_links(dynlint, write, tmp_path):
    write("good.py", DYNAMIC)
    os.symlink("loop.py", tmp_path / "loop.py")               # a link to itself
    (tmp_path / "sub").mkdir()
    os.symlink(tmp_path, tmp_path / "sub" / "back")          # a directory loop
    os.symlink(tmp_path / "missing.py", tmp_path / "dangling.py")
    r, findings = _check(dynlint, tmp_path, ".")
    got = _by_path(findings)
    assert got["loop.py"][0]["code"] == "DYN905"
    assert got["dangling.py"][0]["code"] == "DYN905"
    assert got["good.py"][0]["code"] == "DYN101"


def test_missing_path(dynlint, tmp_path):
    r, findings = _check(dynlint, tmp_path, "nope.py")
    assert r.returncode == 1 and findings[0]["code"] == "DYN905"
    assert "no such file" in findings[0]["message"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses Linux permissions and /proc")
def test_unreadable_file(dynlint, tmp_path, write):
    write("good.py", DYNAMIC)
    if os.geteuid() != 0:
        secret = write("secret.py", DYNAMIC)
        secret.chmod(0)
    else:
        # root can read any file despite its mode; /proc/self/mem is a regular file whose read
        # fails (EIO) for everyone, which exercises the same path.
        os.symlink("/proc/self/mem", tmp_path / "secret.py")
    r, findings = _check(dynlint, tmp_path, ".")
    got = _by_path(findings)
    assert got["secret.py"][0]["code"] == "DYN905"
    assert "cannot read file" in got["secret.py"][0]["message"]
    assert got["good.py"][0]["code"] == "DYN101"


def test_many_files_in_parallel_with_bad_ones(dynlint, write, tmp_path):
    # Enough files to take the multi-process path; bad ones spread among them.
    for i in range(60):
        write(f"pkg/m{i:02d}.py", DYNAMIC if i % 3 else 'print "py2"\n')
    r, findings = _check(dynlint, tmp_path, "pkg", extra=("-j", "2"))
    codes = [f["code"] for f in findings]
    assert codes.count("DYN901") == 20 and codes.count("DYN101") == 40
    assert [f["path"] for f in findings] == sorted(f["path"] for f in findings)
