"""`# noqa`, DYN100 (unused / unknown noqa codes) and `--add-noqa`, through the real CLI and
real flake8."""
import subprocess
import sys
import textwrap

MODEL = textwrap.dedent("""\
    import torch
    class Net(torch.nn.Module):
        def forward(self, x):
            a = x[x > 0]  # noqa:  DYN101
            s = "# noqa"; b = torch.nonzero(x)
            c = x[x > 1]  # noqa: DYN1O1
            d = x.sum().item()  # keep this comment
            e = x[x > 2]  # noqa: E501, DYN201
            f = x[x > 3]  # noqa
            g = torch.nonzero(x)  # noqa:DYN1
            return a, b, c, d, e, f, g, s
    """)


def _codes(stdout):
    return [(int(l.split(":")[1]), l.split()[1]) for l in stdout.splitlines() if l.startswith("m.py:")]


def test_noqa_is_read_from_comments_only(dynlint, write, tmp_path):
    write("m.py", MODEL)
    r = dynlint("check", "--no-cache", "-q", "m.py", cwd=tmp_path)
    got = _codes(r.stdout)
    assert (4, "DYN101") not in got               # two spaces after the colon: still a code list
    assert (5, "DYN102") in got                   # `# noqa` inside a string suppresses nothing
    assert (6, "DYN101") in got                   # misspelled code: not the prefix DYN1
    assert (6, "DYN100") in got and "unknown: `DYN1O1`" in r.stdout
    assert (8, "DYN101") in got and (8, "DYN100") in got and "unused: `DYN201`" in r.stdout
    assert "E501" not in r.stdout                 # another tool's code is left alone
    assert not any(line == 9 for line, _ in got)  # blanket
    assert not any(line == 10 for line, _ in got)  # a code works as a prefix, as in flake8


def test_unused_noqa_fix_is_safe_and_keeps_other_codes(dynlint, write, tmp_path):
    p = write("m.py", MODEL)
    r = dynlint("check", "--no-cache", "--fix", "--select", "DYN100,DYN101", "m.py", cwd=tmp_path)
    text = p.read_text()
    assert "c = x[x > 1]\n" in text                        # whole directive removed
    assert "e = x[x > 2]  # noqa: E501\n" in text          # unused code dropped, E501 kept
    assert "# noqa:  DYN101" in text                       # used: untouched
    assert "Fixed" not in r.stdout and "fixed" in r.stdout
    again = dynlint("check", "--no-cache", "--fix", "--select", "DYN100,DYN101", "m.py", cwd=tmp_path)
    assert "fixed" not in again.stdout and p.read_text() == text


def test_non_enabled_and_ignored(dynlint, write, tmp_path):
    write("m.py", "import torch\nn = 1  # noqa: DYN301\n")
    r = dynlint("check", "--no-cache", "m.py", cwd=tmp_path)
    assert "non-enabled: `DYN301`" in r.stdout and r.returncode == 1
    assert dynlint("check", "--no-cache", "--ignore", "DYN100", "m.py", cwd=tmp_path).returncode == 0


def test_add_noqa_merges_keeps_comments_and_is_idempotent(dynlint, write, tmp_path):
    p = write("m.py", MODEL)
    r = dynlint("check", "--no-cache", "--add-noqa", "m.py", cwd=tmp_path)
    assert r.returncode == 0 and "Added" in r.stderr
    text = p.read_text()
    assert 'b = torch.nonzero(x)  # noqa: DYN102\n' in text
    assert "d = x.sum().item()  # keep this comment  # noqa: DYN201\n" in text
    assert "# noqa: DYN1O1, DYN101" in text or "# noqa: DYN101, DYN1O1" in text
    assert "# noqa: E501, DYN201, DYN101" in text
    r = dynlint("check", "--no-cache", "--ignore", "DYN100", "m.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout
    r = dynlint("check", "--no-cache", "--add-noqa", "m.py", cwd=tmp_path)
    assert "Added 0 noqa directives." in r.stderr and p.read_text() == text


def test_add_noqa_skips_lines_that_cannot_take_a_comment(dynlint, write, tmp_path):
    src = ("import torch\nclass N(torch.nn.Module):\n    def forward(self, x):\n"
           "        y = x[x > 0] + \\\n            1\n        return y\n")
    p = write("m.py", src)
    r = dynlint("check", "--no-cache", "--add-noqa", "m.py", cwd=tmp_path)
    assert "backslash" in r.stderr and p.read_text() == src
    compile(p.read_text(), "m.py", "exec")


def test_flake8_agrees_on_misspelled_and_unused_codes(write, tmp_path):
    write("m.py", MODEL)
    r = subprocess.run([sys.executable, "-m", "flake8", "--select", "DYN", "m.py"],
                       cwd=tmp_path, capture_output=True, text=True)
    got = {(int(l.split(":")[1]), l.split()[1]) for l in r.stdout.splitlines()}
    assert (6, "DYN101") in got and (6, "DYN100") in got   # DYN1O1 suppresses nothing in flake8 too
    assert (8, "DYN101") in got and (8, "DYN100") in got
    assert not any(line in (9, 10) for line, _ in got)
