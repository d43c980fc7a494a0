"""Output formats, severity, the summary and the switches ruff users expect, through the CLI."""
import json
import textwrap
from xml.etree import ElementTree as ET

SRC = textwrap.dedent("""\
    import torch
    class Net(torch.nn.Module):
        def forward(self, x):
            n = x.sum().item()
            y = x[x > 0]  # noqa: DYN201
            return y, n
    """)


def test_severity_by_family_in_json_sarif_github(dynlint, write, tmp_path):
    write("m.py", SRC)
    doc = json.loads(dynlint("check", "--no-cache", "--format", "json", "m.py", cwd=tmp_path).stdout)
    sev = {d["code"]: d["severity"] for d in doc}
    assert sev == {"DYN201": "warning", "DYN101": "error", "DYN100": "warning"}
    gh = dynlint("check", "--no-cache", "--format", "github", "m.py", cwd=tmp_path).stdout
    assert any(l.startswith("::warning ") and "DYN201" in l for l in gh.splitlines())
    assert any(l.startswith("::error ") and "DYN101" in l for l in gh.splitlines())
    sarif = json.loads(dynlint("check", "--no-cache", "--format", "sarif", "m.py", cwd=tmp_path).stdout)
    levels = {r["ruleId"]: r["level"] for r in sarif["runs"][0]["results"]}
    assert levels["DYN201"] == "warning" and levels["DYN101"] == "error"


def test_sarif_help_uri_fixes_and_stable_fingerprints(dynlint, write, tmp_path):
    p = write("m.py", SRC)
    def run():
        doc = json.loads(dynlint("check", "--no-cache", "--format", "sarif", "m.py", cwd=tmp_path).stdout)
        return doc["runs"][0]
    run1 = run()
    rules = {r["id"]: r for r in run1["tool"]["driver"]["rules"]}
    uri = rules["DYN101"]["helpUri"]
    assert uri.startswith("file://") and uri.endswith("DYN101_boolean_mask_index.yaml")
    by_code = {r["ruleId"]: r for r in run1["results"]}
    change = by_code["DYN100"]["fixes"][0]["artifactChanges"][0]
    assert change["artifactLocation"]["uri"] == "m.py" and change["replacements"][0]["insertedContent"]["text"] == ""
    # Lines added above the finding and spaces inside the flagged expression: same fingerprint.
    p.write_text("import torch\n\n\n" + SRC.replace("import torch\n", "").replace("x[x > 0]", "x[x>0]"))
    run2 = run()
    fp = lambda r: {x["ruleId"]: x["partialFingerprints"]["dynlint/v2"] for x in r["results"]}  # noqa: E731
    assert fp(run1)["DYN101"] == fp(run2)["DYN101"] and fp(run1)["DYN201"] == fp(run2)["DYN201"]
    assert len(set(fp(run2).values())) == 3
    moved = {x["ruleId"]: x["locations"][0]["physicalLocation"]["region"]["startLine"] for x in run2["results"]}
    assert moved["DYN201"] == 6


def test_full_concise_jsonlines_pylint_junit_gitlab(dynlint, write, tmp_path):
    write("m.py", SRC)
    full = dynlint("check", "--no-cache", "--format", "full", "m.py", cwd=tmp_path).stdout
    assert " --> m.py:5:13\n" in full and "5 |         y = x[x > 0]  # noqa: DYN201\n" in full
    assert "  |             ^^^^^^^^\n" in full and "  +         y = x.where(" in full
    concise = dynlint("check", "--no-cache", "--format", "concise", "m.py", cwd=tmp_path).stdout
    assert "m.py:5:23: DYN100 [*] Unused `noqa` directive (unused: `DYN201`)" in concise
    lines = dynlint("check", "--no-cache", "--format", "json-lines", "m.py", cwd=tmp_path).stdout
    assert [json.loads(l)["code"] for l in lines.splitlines()] == ["DYN201", "DYN101", "DYN100"]
    pyl = dynlint("check", "--no-cache", "--format", "pylint", "m.py", cwd=tmp_path).stdout
    assert "m.py:4: [DYN201(tensor-item)]" in pyl
    junit = ET.fromstring(dynlint("check", "--no-cache", "--format", "junit", "m.py", cwd=tmp_path).stdout)
    assert junit.get("failures") == "3" and len(junit.findall(".//testcase/failure")) == 3
    gl = json.loads(dynlint("check", "--no-cache", "--format", "gitlab", "m.py", cwd=tmp_path).stdout)
    assert {g["severity"] for g in gl} == {"major", "minor"} and len({g["fingerprint"] for g in gl}) == 3
    assert gl[0]["location"] == {"path": "m.py", "lines": {"begin": 4, "end": 4}}


def test_statistics_text_and_json(dynlint, write, tmp_path):
    write("m.py", SRC)
    text = dynlint("check", "--no-cache", "--statistics", "m.py", cwd=tmp_path).stdout
    assert text.splitlines()[0].split() == ["count", "fixable", "code", "name"]
    assert text.splitlines()[-1].split() == ["3", "1", "total"]
    doc = json.loads(dynlint("check", "--no-cache", "--statistics", "--format", "json", "m.py", cwd=tmp_path).stdout)
    assert {d["code"]: d["fixable_count"] for d in doc} == {"DYN100": 1, "DYN101": 0, "DYN201": 0}


# An unsafe fix (unique's explicit CPU fallback: the same values, host copies added).
UNSAFE_SRC = SRC.replace("x[x > 0]", "torch.unique(x)")


def test_hints_follow_ruff(dynlint, write, tmp_path):
    write("m.py", UNSAFE_SRC)
    r = dynlint("check", "--no-cache", "m.py", cwd=tmp_path)
    assert r.stdout.endswith("Found 3 issues.\n[*] 1 fixable with `--fix` "
                             "(1 unsafe fix available with `--fix --unsafe-fixes`).\n")
    r = dynlint("check", "--no-cache", "--unsafe-fixes", "m.py", cwd=tmp_path)
    assert r.stdout.endswith("[*] 2 fixable with `--fix`.\n")
    assert "m.py:5:13: DYN103 [*]" in r.stdout
    r = dynlint("check", "--no-cache", "--select", "DYN103", "m.py", cwd=tmp_path)
    assert r.stdout.endswith("Found 1 issue.\n1 unsafe fix available with `--fix --unsafe-fixes`.\n")


def test_diff_count_show_fixes_and_exit_switches(dynlint, write, tmp_path):
    p = write("m.py", UNSAFE_SRC)
    r = dynlint("check", "--no-cache", "--diff", "m.py", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout.startswith("--- m.py")
    assert r.stderr.endswith("Would fix 1 issue (1 additional fix available with `--unsafe-fixes`).\n")
    r = dynlint("check", "--no-cache", "--diff", "--select", "DYN103", "m.py", cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == "No issues would be fixed (1 fix available with `--unsafe-fixes`).\n"
    r = dynlint("check", "--no-cache", "-s", "m.py", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout == ""
    assert dynlint("check", "--no-cache", "-e", "m.py", cwd=tmp_path).returncode == 0
    r = dynlint("check", "--no-cache", "--fix", "--show-fixes", "m.py", cwd=tmp_path)
    assert "\nFixed 1 issue:\n- m.py:\n    1 × DYN100 (unused-noqa)\n" in r.stdout
    p.write_text(UNSAFE_SRC)
    r = dynlint("check", "--no-cache", "--fix", "--select", "DYN100", "--exit-non-zero-on-fix", "m.py", cwd=tmp_path)
    assert r.returncode == 1 and "All checks passed" not in r.stdout and "0 remaining" in r.stdout
    r = dynlint("check", "--no-cache", "--show-fix-suggestions", "--select", "DYN103", "m.py", cwd=tmp_path)
    assert "    fix (unsafe):" in r.stdout


def test_rule_all(dynlint):
    r = dynlint("rule", "--all")
    assert r.returncode == 0 and "# DYN101 boolean-mask-index" in r.stdout and "# DYN100 unused-noqa" in r.stdout


def test_long_expressions_are_shortened_between_tokens(dynlint, write, tmp_path):
    name = "encoder_hidden_states_after_the_projection_layer"
    write("m.py", "import torch\nclass N(torch.nn.Module):\n    def forward(self, x):\n"
                  f"        {name} = x * 2\n        return {name}[{name} > 0]\n")
    r = dynlint("check", "--no-cache", "-q", "m.py", cwd=tmp_path)
    quoted = r.stdout.split("`")[1]
    assert quoted.endswith(" ...") and len(quoted) < 70
    shown = quoted[:-4]
    # whatever is shown ends with a whole name or a punctuation mark, never half a name
    assert shown.endswith("[") or shown.endswith(name), shown


def test_default_is_full_like_ruff_then_env_then_config(dynlint, write, tmp_path):
    """ruff's order: --output-format, $DYNLINT_OUTPUT_FORMAT, `output-format` in the config of
    the current directory, else `full`."""
    write("m.py", SRC)
    default = {"DYNLINT_OUTPUT_FORMAT": ""}           # unpin the format conftest pins
    full = dynlint("check", "--no-cache", "m.py", cwd=tmp_path, env=default)
    assert full.returncode == 1
    assert "DYN201 `x.sum().item()`" in full.stdout and " --> m.py:4:13" in full.stdout
    assert "4 |         n = x.sum().item()" in full.stdout and "^^^^^^^^^^^^^^" in full.stdout
    concise_line = "m.py:4:13: DYN201 "
    assert concise_line not in full.stdout
    for env, extra in (({"DYNLINT_OUTPUT_FORMAT": "concise"}, ()),
                       (default, ("--output-format", "concise")), (default, ("--format", "text"))):
        r = dynlint("check", "--no-cache", *extra, "m.py", cwd=tmp_path, env=env)
        assert r.returncode == 1 and r.stdout.startswith(concise_line), r.stdout
    write("pyproject.toml", '[tool.dynlint]\noutput-format = "json-lines"\n')
    r = dynlint("check", "--no-cache", "m.py", cwd=tmp_path, env=default)
    assert [json.loads(line)["code"] for line in r.stdout.splitlines()] == ["DYN201", "DYN101", "DYN100"]
    # the variable wins over the config, the option over both
    r = dynlint("check", "--no-cache", "m.py", cwd=tmp_path, env={"DYNLINT_OUTPUT_FORMAT": "pylint"})
    assert r.stdout.startswith("m.py:4: [DYN201(tensor-item)]")
    r = dynlint("check", "--no-cache", "--output-format", "full", "m.py", cwd=tmp_path,
                env={"DYNLINT_OUTPUT_FORMAT": "pylint"})
    assert " --> m.py:4:13" in r.stdout


def test_bad_output_format_setting_is_a_usage_error(dynlint, write, tmp_path):
    write("m.py", SRC)
    r = dynlint("check", "m.py", cwd=tmp_path, env={"DYNLINT_OUTPUT_FORMAT": "fancy"})
    assert r.returncode == 2 and "DYNLINT_OUTPUT_FORMAT='fancy'" in r.stderr
    write("pyproject.toml", '[tool.dynlint]\noutput-format = "fancy"\n')
    r = dynlint("check", "m.py", cwd=tmp_path, env={"DYNLINT_OUTPUT_FORMAT": ""})
    assert r.returncode == 2 and "pyproject.toml" in r.stderr and "output-format" in r.stderr


def test_full_from_the_cache_is_the_full_of_a_fresh_run_and_counts_lines_as_python(
        dynlint, write, tmp_path):
    """The `full` format's source lines are kept in the cache: a warm run prints exactly what a
    fresh one does. Lines are numbered as Python numbers them: a form feed in a comment does
    not start a new line (str.splitlines would), so the line shown is the flagged one."""
    src = SRC.replace("class Net", "\x0c\nclass Net").replace(
        "n = x.sum().item()", "n = x.sum().item()  # page\x0cbreak")
    write("m.py", src)
    fresh = dynlint("check", "--no-cache", "--format", "full", "m.py", cwd=tmp_path).stdout
    first = dynlint("check", "--format", "full", "m.py", cwd=tmp_path).stdout
    warm = dynlint("check", "--format", "full", "m.py", cwd=tmp_path).stdout
    assert fresh == first == warm
    assert " --> m.py:6:13\n" in warm and "6 |         y = x[x > 0]  # noqa: DYN201\n" in warm
    assert "5 |         n = x.sum().item()  # page\x0cbreak\n" in warm
