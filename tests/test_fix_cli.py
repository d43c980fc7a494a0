"""`dynlint check --fix / --unsafe-fixes / --diff / --show-fixes`, through the real CLI."""
import json
import os
import stat
import sys
import textwrap

FIXABLE = """\
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        # keep this comment
        s = x[x > 0].sum()   # and this one
        idx = torch.nonzero(x)
        return s, idx
"""
FIXED = FIXABLE.replace("x[x > 0].sum()", "x.where(x > 0, 0).sum()")
UNSAFE_ONLY = """\
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        y = torch.unique(x)
        return y
"""


def test_fix_rewrites_only_the_construct_and_reports(dynlint, write, tmp_path):
    path = write("m.py", FIXABLE)
    r = dynlint("check", "--fix", "--no-cache", "m.py", cwd=tmp_path)
    assert path.read_text() == FIXED
    assert r.returncode == 1                          # the nonzero finding remains
    assert "Found 2 issues (1 fixed, 1 remaining)." in r.stdout
    assert "m.py:8:15: DYN102" in r.stdout and "DYN101" not in r.stdout


def test_second_fix_changes_nothing(dynlint, write, tmp_path):
    path = write("m.py", FIXABLE)
    dynlint("check", "--fix", "--no-cache", "m.py", cwd=tmp_path)
    first = path.read_bytes()
    r = dynlint("check", "--fix", "--no-cache", "m.py", cwd=tmp_path)
    assert path.read_bytes() == first
    assert "fixed" not in r.stdout
    r = dynlint("check", "--diff", "--no-cache", "m.py", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == ""


def test_diff_writes_nothing_and_exits_1(dynlint, write, tmp_path):
    path = write("m.py", FIXABLE)
    r = dynlint("check", "--diff", "--no-cache", "m.py", cwd=tmp_path)
    assert r.returncode == 1
    assert path.read_text() == FIXABLE
    assert r.stdout.startswith("--- m.py\n+++ m.py\n@@ ")
    assert "-        s = x[x > 0].sum()   # and this one\n" in r.stdout
    assert "+        s = x.where(x > 0, 0).sum()   # and this one\n" in r.stdout
    clean = write("clean.py", FIXED)
    r = dynlint("check", "--diff", "--no-cache", "clean.py", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "" and clean.read_text() == FIXED


def test_unsafe_fixes_need_their_flag(dynlint, write, tmp_path):
    path = write("m.py", UNSAFE_ONLY)
    r = dynlint("check", "--fix", "--no-cache", "m.py", cwd=tmp_path)
    assert path.read_text() == UNSAFE_ONLY and r.returncode == 1
    assert r.stdout.endswith("Found 1 issue.\n1 unsafe fix available with `--fix --unsafe-fixes`.\n")
    r = dynlint("check", "--fix", "--unsafe-fixes", "--no-cache", "m.py", cwd=tmp_path)
    assert path.read_text() == UNSAFE_ONLY.replace("torch.unique(x)", "torch.unique(x.cpu()).to(x.device)")
    assert r.returncode == 0 and "1 fixed" in r.stdout


def test_hint_counts_fixable_findings(dynlint, write, tmp_path):
    write("m.py", FIXABLE)
    write("u.py", UNSAFE_ONLY)
    r = dynlint("check", "--no-cache", ".", cwd=tmp_path)
    assert "[*] 1 fixable with `--fix` (1 unsafe fix available with `--fix --unsafe-fixes`)." in r.stdout


def test_show_fixes(dynlint, write, tmp_path):
    write("m.py", FIXABLE)
    r = dynlint("check", "--show-fix-suggestions", "--no-cache", "m.py", cwd=tmp_path)
    lines = r.stdout.splitlines()
    i = next(k for k, line in enumerate(lines) if "DYN101" in line)
    assert lines[i + 1].startswith("    fix (safe): sum over the whole tensor")
    assert lines[i + 2] == "    + x.where(x > 0, 0)"


def test_json_carries_the_fix(dynlint, write, tmp_path):
    write("m.py", FIXABLE)
    r = dynlint("check", "--format", "json", "--no-cache", "m.py", cwd=tmp_path)
    by_code = {f["code"]: f for f in json.loads(r.stdout)}
    fix = by_code["DYN101"]["fix"]
    assert fix["applicability"] == "safe" and fix["imports"] == []
    assert fix["edits"] == [{"line": 7, "column": 13, "end_line": 7, "end_column": 21,
                             "content": "x.where(x > 0, 0)"}]
    assert by_code["DYN102"]["fix"] is None


def test_crlf_bom_and_mode_are_kept(dynlint, write, tmp_path):
    data = b"\xef\xbb\xbf" + FIXABLE.replace("\n", "\r\n").encode()
    path = write("m.py", data, mode="wb")
    os.chmod(path, 0o751)
    dynlint("check", "--fix", "--no-cache", "m.py", cwd=tmp_path)
    out = path.read_bytes()
    assert out == b"\xef\xbb\xbf" + FIXED.replace("\n", "\r\n").encode()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751


def test_crlf_inserted_statements_and_imports(dynlint, write, tmp_path):
    source = "from torch import nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n" \
             "        x = self.a(x)\n        x = x[x > 0]  # dynamic\n        return self.b(x)\n"
    path = write("m.py", source.replace("\n", "\r\n").encode(), mode="wb")
    dynlint("check", "--select", "DYN301", "--fix", "--apply-display-only", "--no-cache", "m.py",
            cwd=tmp_path)
    out = path.read_bytes()
    assert out.count(b"mark_step()") == 3 and b"try:" in out
    assert out.count(b"\n") == out.count(b"\r\n"), out      # every line still ends in CRLF


def test_declared_encoding_is_kept(dynlint, write, tmp_path):
    source = "# -*- coding: latin-1 -*-\n# caf\xe9\n" + FIXABLE
    path = write("m.py", source.encode("latin-1"), mode="wb")
    dynlint("check", "--fix", "--no-cache", "m.py", cwd=tmp_path)
    assert path.read_bytes() == ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + FIXED).encode("latin-1")


def test_needed_import_is_added_once(dynlint, write, tmp_path):
    source = textwrap.dedent("""\
        '''Module doc.'''
        from torch import nn


        class Net(nn.Module):
            def forward(self, x):
                a = x[x > 0].mean()
                return a + x[x < 0].mean()
        """)
    path = write("m.py", source)
    r = dynlint("check", "--fix", "--no-cache", "m.py", cwd=tmp_path)
    text = path.read_text()
    assert text.startswith("'''Module doc.'''\nfrom torch import nn\nimport torch\n\n\nclass Net")
    assert text.count("import torch\n") == 1 and "2 fixed" in r.stdout
    dynlint("check", "--fix", "--no-cache", "m.py", cwd=tmp_path)
    assert path.read_text() == text


def test_stdin_fix_prints_the_fixed_source(dynlint, tmp_path):
    r = dynlint("check", "--fix", "-", "--stdin-filename", "m.py", input=FIXABLE, cwd=tmp_path)
    assert r.stdout == FIXED
    assert "m.py:8:15: DYN102" in r.stderr and "1 fixed" in r.stderr
    r = dynlint("check", "--fix", "-", input="x = 1\n", cwd=tmp_path)
    assert r.stdout == "x = 1\n" and r.returncode == 0


def test_a_whole_tree(dynlint, write, tmp_path):
    # More files than one process fixes alone, in nested packages.
    paths = [write(f"pkg{i % 3}/sub/m{i}.py", FIXABLE) for i in range(12)]
    write("pkg0/unsafe.py", UNSAFE_ONLY)
    r = dynlint("check", "--fix", "--no-cache", ".", cwd=tmp_path)
    assert all(p.read_text() == FIXED for p in paths)
    assert (tmp_path / "pkg0/unsafe.py").read_text() == UNSAFE_ONLY
    assert "(12 fixed, 13 remaining)" in r.stdout
    r = dynlint("check", "--diff", "--no-cache", ".", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == ""


def test_symlink_is_followed_not_replaced(dynlint, write, tmp_path):
    real = write("real.py", FIXABLE)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    dynlint("check", "--fix", "--no-cache", "link.py", cwd=tmp_path)
    assert link.is_symlink() and real.read_text() == FIXED


def test_write_is_a_rename(dynlint, write, tmp_path):
    """The new file replaces the old one by a rename: another name for the old inode (a
    reader that opened it) still sees the old text; no temporary file is left behind."""
    path = write("m.py", FIXABLE)
    os.link(path, tmp_path / "hardlink.py")
    dynlint("check", "--fix", "--no-cache", "m.py", cwd=tmp_path)
    assert path.read_text() == FIXED
    assert (tmp_path / "hardlink.py").read_text() == FIXABLE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hardlink.py", "m.py"]


def _run_patched(tmp_path, patch, *args):
    """The CLI in a subprocess with some of its internals replaced first."""
    import subprocess
    script = textwrap.dedent(patch) + textwrap.dedent(f"""
        from dynlint.integrations.cli import main
        sys.exit(main({list(args)!r}))
        """)
    return subprocess.run([sys.executable, "-c", "import sys\n" + script], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


def test_file_changed_on_disk_is_not_overwritten(write, tmp_path):
    path = write("m.py", FIXABLE)
    r = _run_patched(tmp_path, """
        import dynlint.fix.apply as fix
        read = fix.read_file_bytes
        def edited_meanwhile(path):
            data = read(path)
            fix.read_file_bytes = read                       # once: someone saves the file now
            with open(path, "a") as fh:
                fh.write("# edited meanwhile\\n")
            return data
        fix.read_file_bytes = edited_meanwhile
        """, "check", "--fix", "--no-cache", "m.py")
    assert path.read_text() == FIXABLE + "# edited meanwhile\n"
    assert "m.py: file changed on disk since it was read; not overwritten" in r.stderr
    assert r.returncode == 1 and "DYN101" in r.stdout


def test_interrupted_write_leaves_the_old_file(write, tmp_path):
    path = write("m.py", FIXABLE)
    r = _run_patched(tmp_path, """
        import os
        def interrupted(src, dst):
            raise KeyboardInterrupt
        os.replace = interrupted
        """, "check", "--fix", "--no-cache", "m.py")
    assert r.returncode == 130
    assert path.read_text() == FIXABLE
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]
