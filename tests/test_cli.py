"""The `dynlint` command line, exercised through a real subprocess."""
import json
import re
import textwrap

from conftest import ROOT

DYNAMIC = textwrap.dedent("""\
    import torch


    class Net(torch.nn.Module):
        def forward(self, x):
            x = x[x > 0]
            return x.sum()
    """)
STATIC = textwrap.dedent("""\
    import torch


    class Net(torch.nn.Module):
        def forward(self, x):
            return torch.where(x > 0, x, torch.zeros_like(x)).sum()
    """)
LINE_RE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>DYN\d{3}) (?P<msg>.+)$")


def test_findings_exit_1_and_text_format(dynlint, write, tmp_path):
    write("pkg/model.py", DYNAMIC)
    r = dynlint("check", "pkg", "--no-cache", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    first = r.stdout.splitlines()[0]
    m = LINE_RE.match(first)
    assert m, first
    assert m["path"] == "pkg/model.py" and m["line"] == "6" and m["col"] == "13"
    assert m["code"] == "DYN101" and "x[x > 0]" in m["msg"]
    assert "Found 1 issue." in r.stdout.splitlines()


def test_clean_exit_0(dynlint, write, tmp_path):
    write("model.py", STATIC)
    r = dynlint("check", "model.py", "--no-cache", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "All checks passed!" in r.stdout


def test_plain_invocation_is_check_and_module_entry(dynlint, write, tmp_path):
    write("model.py", DYNAMIC)
    a = dynlint("model.py", "--no-cache", cwd=tmp_path)
    b = dynlint("check", "model.py", "--no-cache", cwd=tmp_path)
    assert a.returncode == b.returncode == 1
    assert a.stdout == b.stdout


def test_output_is_sorted(dynlint, write, tmp_path):
    write("b.py", DYNAMIC)
    write("a.py", DYNAMIC + "\n\ndef g(y: torch.Tensor):\n    return torch.nonzero(y)\n")
    r = dynlint("check", ".", "--no-cache", "-q", cwd=tmp_path)
    keys = [(m["path"], int(m["line"]), int(m["col"]))
            for m in map(LINE_RE.match, r.stdout.splitlines())]
    assert keys == sorted(keys) and len(keys) == 3


def test_usage_error_exit_2(dynlint, tmp_path):
    r = dynlint("check", "--format", "nope", cwd=tmp_path)
    assert r.returncode == 2
    r = dynlint("check", "--select", "XYZ9", ".", cwd=tmp_path)
    assert r.returncode == 2 and "unknown rule selector" in r.stderr


def test_help_explains(dynlint):
    r = dynlint("--help")
    assert r.returncode == 0
    for word in ("check", "rules", "rule CODE", "confirm", "exit codes"):
        assert word in r.stdout
    r = dynlint("check", "--help")
    for flag in ("--select", "--ignore", "--extend-select", "--fix", "--unsafe-fixes", "--diff",
                 "--format", "--no-cache", "--exclude", "--extend-exclude", "--stdin-filename"):
        assert flag in r.stdout


def test_stdin(dynlint, tmp_path):
    r = dynlint("check", "-", "--stdin-filename", "src/m.py", input=DYNAMIC, cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout.startswith("src/m.py:6:13: DYN101")
    r = dynlint("-", input=STATIC, cwd=tmp_path)
    assert r.returncode == 0


def test_json_format(dynlint, write, tmp_path):
    write("m.py", DYNAMIC)
    r = dynlint("check", "m.py", "--format", "json", "--no-cache", cwd=tmp_path)
    assert r.returncode == 1
    data = json.loads(r.stdout)
    assert isinstance(data, list) and len(data) == 1
    f = data[0]
    for key in ("path", "line", "column", "end_line", "end_column", "code", "name", "message",
                "severity", "fix"):
        assert key in f
    assert (f["line"], f["column"], f["end_line"], f["end_column"]) == (6, 13, 6, 21)
    assert f["code"] == "DYN101" and f["name"] == "boolean-mask-index"
    assert f["fix"] is None or f["fix"]["applicability"] in ("safe", "unsafe", "display-only")


def test_sarif_format(dynlint, write, tmp_path):
    write("m.py", DYNAMIC)
    r = dynlint("check", "m.py", "--format", "sarif", "--no-cache", cwd=tmp_path)
    doc = json.loads(r.stdout)
    assert doc["version"] == "2.1.0" and "sarif" in doc["$schema"]
    run = doc["runs"][0]
    assert run["tool"]["driver"]["name"] == "dynlint"
    rule_ids = [d["id"] for d in run["tool"]["driver"]["rules"]]
    res = run["results"][0]
    assert res["ruleId"] == "DYN101" and rule_ids[res["ruleIndex"]] == "DYN101"
    assert res["level"] in ("error", "warning", "note")
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "m.py"
    assert loc["region"]["startLine"] == 6 and loc["region"]["startColumn"] == 13


def test_github_format(dynlint, write, tmp_path):
    write("m.py", DYNAMIC)
    r = dynlint("check", "m.py", "--format", "github", "--no-cache", cwd=tmp_path)
    line = r.stdout.strip()
    assert line.startswith("::error file=m.py,line=6,col=13,endLine=6,endColumn=21,title=DYN101")
    assert "::DYN101 " in line


def test_select_ignore_prefixes(dynlint, write, tmp_path):
    write("m.py", DYNAMIC + "\n\ndef g(y: torch.Tensor):\n    return torch.nonzero(y)\n")
    codes = lambda r: sorted({m["code"] for m in map(LINE_RE.match, r.stdout.splitlines()) if m})
    base = ("check", "m.py", "--no-cache", "-q")
    assert codes(dynlint(*base, cwd=tmp_path)) == ["DYN101", "DYN102"]
    assert codes(dynlint(*base, "--select", "DYN102", cwd=tmp_path)) == ["DYN102"]
    assert codes(dynlint(*base, "--ignore", "DYN10", cwd=tmp_path)) == []
    assert codes(dynlint(*base, "--select", "DYN2", "--extend-select", "DYN101", cwd=tmp_path)) == ["DYN101"]
    assert codes(dynlint(*base, "--select", "ALL", "--ignore", "DYN101", cwd=tmp_path)) == ["DYN102"]


def test_noqa(dynlint, write, tmp_path):
    src = textwrap.dedent("""\
        import torch
        def f(x: torch.Tensor, y: torch.Tensor):
            a = x[x > 0]  # noqa
            b = x[x > 1]  # noqa: DYN101
            c = x[x > 2]  # noqa: DYN102
            d = torch.nonzero(
                y)  # noqa: DYN102
            return a, b, c, d
        """)
    write("m.py", src)
    r = dynlint("check", "m.py", "--no-cache", "-q", cwd=tmp_path)
    lines = r.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith("m.py:5:") and "DYN101" in lines[0]
    # the DYN102 on that line suppresses nothing: reported as unused (DYN100)
    assert lines[1].startswith("m.py:5:19: DYN100") and "unused: `DYN102`" in lines[1]


def test_file_level_noqa(dynlint, write, tmp_path):
    write("a.py", "# dynlint: noqa\n" + DYNAMIC)
    write("b.py", "# dynlint: noqa: DYN102\n" + DYNAMIC)
    r = dynlint("check", ".", "--no-cache", "-q", cwd=tmp_path)
    assert [l.split(":")[0] for l in r.stdout.splitlines()] == ["b.py"]


def test_rules_and_rule_commands(dynlint):
    r = dynlint("rules")
    assert r.returncode == 0
    assert "DYN101" in r.stdout and "boolean-mask-index" in r.stdout
    table = json.loads(dynlint("rules", "--format", "json").stdout)
    assert {"code", "name", "default", "fix"} <= set(table[0])
    doc = dynlint("rule", "DYN101")
    assert doc.returncode == 0
    for heading in ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety"):
        assert heading in doc.stdout
    assert dynlint("rule", "DYN999X").returncode == 2
    assert dynlint("predicates").returncode == 0


def test_predicates_lists_fix_and_name_conditions(dynlint):
    """`dynlint predicates` documents every predicate rules may use, the conditions of fixes
    and the weak-evidence ones included (it once listed only the detection predicates: the
    others were registered by `rules.py`, which that command does not load)."""
    out = dynlint("predicates").stdout
    listed = {line.split("(")[0] for line in out.splitlines() if line and not line[0].isspace()}
    assert {"pure", "unused_after", "named_mask", "result_to_device", "zero_dim", "number",
            "bool_mask", "in_model_code"} <= listed
    from dynlint.engine.rules import REGISTRY      # everything the rules loader knows
    assert set(REGISTRY) <= listed


def test_user_rule_from_yaml_alone(dynlint, write, tmp_path):
    write("myrules/MY001.yaml", textwrap.dedent("""\
        code: MYR001
        name: no-histc
        summary: "`torch.histc` in model code."
        why: Just an example of a user rule.
        message: "`{match}` is not allowed here"
        match:
          - pattern: "torch.histc(...)"
            when: [in_model_code]
        examples:
          flag: ["import torch\\nclass M(torch.nn.Module):\\n    def forward(self, x):\\n        return torch.histc(x)\\n"]
          pass: ["import torch\\ny = torch.histc(x)\\n"]
        """))
    write("m.py", "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return torch.histc(x)\n")
    r = dynlint("check", "m.py", "--rules", "myrules", "--select", "MYR", "--no-cache", cwd=tmp_path)
    assert r.returncode == 1
    assert "m.py:4:16: MYR001 `torch.histc(x)` is not allowed here" in r.stdout


def test_malformed_rule_exit_2_names_file_line_field(dynlint, write, tmp_path):
    write("bad/BAD001.yaml", "code: BAD001\nname: bad\nsummary: s\nwhy: w\nmessage: m\n"
                             "match:\n  - pattern: \"$X[$M]\"\n    where:\n      M: bool_msk\n")
    write("m.py", DYNAMIC)
    r = dynlint("check", "m.py", "--rules", "bad", "--no-cache", cwd=tmp_path)
    assert r.returncode == 2
    assert "BAD001.yaml:9" in r.stderr and "match[0].where.M" in r.stderr and "bool_msk" in r.stderr
    assert "Traceback" not in r.stderr
    write("bad2/BAD002.yaml", "code: BAD002\nname: [unclosed\n")
    r = dynlint("check", "m.py", "--rules", "bad2", "--no-cache", cwd=tmp_path)
    assert r.returncode == 2 and "BAD002.yaml:" in r.stderr and "invalid YAML" in r.stderr


def test_pyproject_config(dynlint, write, tmp_path):
    write("pyproject.toml", textwrap.dedent("""\
        [tool.dynlint]
        ignore = ["DYN102"]
        per-file-ignores = { "tests/*" = ["DYN1"] }
        extend-exclude = ["generated"]
        """))
    body = DYNAMIC + "\n\ndef g(y: torch.Tensor):\n    return torch.nonzero(y)\n"
    write("src/m.py", body)
    write("tests/test_m.py", body)
    write("generated/g.py", body)
    r = dynlint("check", ".", "--no-cache", "-q", cwd=tmp_path)
    assert [l.split(":")[0] for l in r.stdout.splitlines()] == ["src/m.py"]
    assert "DYN102" not in r.stdout
    # The command line overrides the file.
    r = dynlint("check", "src", "--no-cache", "-q", "--select", "DYN102", cwd=tmp_path)
    assert "DYN102" in r.stdout


def test_bad_config_exit_2_with_line(dynlint, write, tmp_path):
    write("pyproject.toml", "[tool.dynlint]\nselect = [\"DYN1\"\nignore = 3\n")
    write("m.py", DYNAMIC)
    r = dynlint("check", "m.py", "--no-cache", cwd=tmp_path)
    assert r.returncode == 2 and "pyproject.toml:" in r.stderr and "invalid TOML" in r.stderr
    write("pyproject.toml", "[tool.dynlint]\nselect = [\"DYN1\"]\nbogus-key = 1\n")
    r = dynlint("check", "m.py", "--no-cache", cwd=tmp_path)
    assert r.returncode == 2 and "pyproject.toml:3" in r.stderr and "bogus-key" in r.stderr


def test_default_excludes_and_force_exclude(dynlint, write, tmp_path):
    for d in (".git", "venv", "build", "dist", "__pycache__", "node_modules", "x.egg-info"):
        write(f"{d}/m.py", DYNAMIC)
    write("env1/pyvenv.cfg", "home = /usr\n")
    write("env1/lib/m.py", DYNAMIC)
    write("src/m.py", DYNAMIC)
    r = dynlint("check", ".", "--no-cache", "-q", cwd=tmp_path)
    assert [l.split(":")[0] for l in r.stdout.splitlines()] == ["src/m.py"]
    r = dynlint("check", ".", "--no-cache", "-q", "--exclude", "src", cwd=tmp_path)
    paths = {l.split(":")[0] for l in r.stdout.splitlines()}
    assert "src/m.py" not in paths and "build/m.py" in paths
    # Files named explicitly are checked unless --force-exclude (as pre-commit passes them).
    assert dynlint("check", "build/m.py", "--no-cache", cwd=tmp_path).returncode == 1
    assert dynlint("check", "build/m.py", "--no-cache", "--force-exclude", cwd=tmp_path).returncode == 0


def test_cache_warm_run_and_invalidation(dynlint, write, tmp_path):
    m = write("m.py", STATIC)
    assert dynlint("check", ".", cwd=tmp_path).returncode == 0
    assert (tmp_path / ".dynlint_cache" / "CACHEDIR.TAG").is_file()
    assert dynlint("check", ".", cwd=tmp_path).returncode == 0
    m.write_text(DYNAMIC)
    r = dynlint("check", ".", cwd=tmp_path)
    assert r.returncode == 1 and "DYN101" in r.stdout
    # A different rule selection must not reuse results computed for another one.
    assert dynlint("check", ".", "--ignore", "DYN101", cwd=tmp_path).returncode == 0
    assert dynlint("check", ".", cwd=tmp_path).returncode == 1


def test_output_file_statistics_exit_zero(dynlint, write, tmp_path):
    write("m.py", DYNAMIC)
    r = dynlint("check", "m.py", "--no-cache", "-o", "out/report.json", "--format", "json", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout == ""
    assert json.loads((tmp_path / "out/report.json").read_text())[0]["code"] == "DYN101"
    r = dynlint("check", "m.py", "--no-cache", "--statistics", cwd=tmp_path)
    assert re.search(r"1\s+DYN101\s+boolean-mask-index", r.stdout)
    assert dynlint("check", "m.py", "--no-cache", "--exit-zero", cwd=tmp_path).returncode == 0


def test_bundled_examples(dynlint):
    r = dynlint("check", "examples", "--no-cache", "--format", "json", cwd=ROOT)
    found = {(f["path"], f["code"]) for f in json.loads(r.stdout)}
    assert ("examples/dynamic_model.py", "DYN101") in found
    assert ("examples/padded_loss.py", "DYN101") in found
    assert not any(p == "examples/static_model.py" for p, _ in found)
    assert not any(p == "examples/training_loop.py" for p, _ in found)


def test_cross_file_helpers_called_from_model_code(dynlint, write, tmp_path):
    write("pkg/__init__.py", "")
    write("pkg/utils.py", textwrap.dedent("""\
        import torch

        def is_padded(mask: torch.Tensor) -> bool:
            return bool(mask.all())

        def summarize(t: torch.Tensor):
            return t.mean().item()

        def log_summary(t: torch.Tensor):
            print(summarize(t))          # summarize's only caller here is logging: cold
        """))
    write("pkg/model.py", textwrap.dedent("""\
        import torch
        from .utils import is_padded
        from . import utils


        class Net(torch.nn.Module):
            def forward(self, x, mask):
                if is_padded(mask):
                    return x
                return x * 2

        def report(t):
            return utils.summarize(t)
        """))
    r = dynlint("check", "pkg", "--no-cache", "-q", cwd=tmp_path)
    assert r.stdout.splitlines() == [
        "pkg/utils.py:4:12: DYN203 `bool(mask.all())` converts a tensor to a Python number inside model code"]
    # Each file on its own (what flake8 sees): the helper is not known to be model code, but
    # no one in its file calls it, so it is library code and its host read is in scope all
    # the same (a file checked alone gets the findings it gets with its project).
    r = dynlint("check", "pkg", "--no-cache", "-q", "--no-cross-file", cwd=tmp_path)
    assert r.stdout.splitlines() == [
        "pkg/utils.py:4:12: DYN203 `bool(mask.all())` converts a tensor to a Python number inside model code"]
    # And with the cache, the same answer.
    assert dynlint("check", "pkg", cwd=tmp_path).stdout == dynlint("check", "pkg", cwd=tmp_path).stdout
    assert "utils.py:4:12" in dynlint("check", "pkg", "-q", cwd=tmp_path).stdout


def test_cross_file_through_a_module_level_registry(dynlint, write, tmp_path):
    write("lib/__init__.py", "")
    write("lib/masks.py", textwrap.dedent("""\
        import torch

        def sdpa_mask(mask: torch.Tensor):
            if mask.all():
                return None
            return mask

        MASKS = {"sdpa": sdpa_mask}

        def make_mask(kind, mask):
            return MASKS[kind](mask)
        """))
    write("lib/model.py", textwrap.dedent("""\
        import torch
        from .masks import make_mask

        class Net(torch.nn.Module):
            def forward(self, x, mask):
                return x, make_mask("sdpa", mask)
        """))
    r = dynlint("check", "lib", "--no-cache", "-q", cwd=tmp_path)
    assert [l.split(": ")[0] + " " + l.split(": ")[1].split()[0] for l in r.stdout.splitlines()] == \
        ["lib/masks.py:4:8 DYN204"]
