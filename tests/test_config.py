"""Configuration and file discovery like ruff's, through the real CLI in a subprocess: the
closest config per file, patterns relative to it, .gitignore, stdin, --config, the debug
options, selector validation and the DYN9xx file diagnostics."""
import ast
import json
import os
import re
import textwrap

import pytest

BODY = textwrap.dedent("""\
    import torch


    class Net(torch.nn.Module):
        def forward(self, x):
            y = x[x > 0]
            return torch.nonzero(y)
    """)
PYPROJECT = textwrap.dedent("""\
    [project]
    name = "demo"

    [tool.dynlint]
    per-file-ignores = { "tests/**" = ["DYN101"], "__init__.py" = ["ALL"] }
    extend-exclude = ["generated"]
    """)


def findings(r, cwd):
    """{(absolute path, line, column, code)} from a --format json run."""
    assert r.returncode in (0, 1), r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    return {(os.path.normpath(os.path.join(cwd, f["path"])), f["line"], f["column"], f["code"])
            for f in json.loads(r.stdout or "[]")}


@pytest.fixture
def project(tmp_path, write):
    write("proj/pyproject.toml", PYPROJECT)
    for name in ("src/pkg/__init__.py", "src/pkg/model.py", "tests/test_model.py",
                 "generated/out.py", "src/pkg/generated/deep.py"):
        write(f"proj/{name}", BODY)
    return tmp_path / "proj"


def test_same_findings_from_root_subdirectory_parent_and_stdin(dynlint, project):
    json_args = ("--no-cache", "--format", "json")
    from_root = findings(dynlint("check", ".", *json_args, cwd=project), project)
    model, test = str(project / "src/pkg/model.py"), str(project / "tests/test_model.py")
    # per-file-ignores: DYN101 dropped in tests/, everything in __init__.py; extend-exclude:
    # `generated` at any depth.
    assert from_root == {(model, 6, 13, "DYN101"), (model, 7, 16, "DYN102"),
                         (test, 7, 16, "DYN102")}
    from_parent = findings(dynlint("check", "proj", *json_args, cwd=project.parent), project.parent)
    assert from_parent == from_root
    sub = project / "src"
    from_sub = findings(dynlint("check", ".", "../tests", *json_args, cwd=sub), sub)
    assert from_sub == from_root
    # --config with a relative path: patterns stay relative to the config file.
    from_sub_config = findings(dynlint("check", ".", "../tests", "--config", "../pyproject.toml",
                                       *json_args, cwd=sub), sub)
    assert from_sub_config == from_root
    # stdin, named by --stdin-filename, from every directory.
    for cwd, name in ((project, "tests/test_model.py"), (sub, "../tests/test_model.py"),
                      (project.parent, "proj/tests/test_model.py")):
        r = dynlint("check", "-", "--stdin-filename", name, *json_args, cwd=cwd, input=BODY)
        assert findings(r, cwd) == {f for f in from_root if f[0] == test}, (cwd, r.stdout)
    r = dynlint("check", "-", "--stdin-filename", "src/pkg/__init__.py", *json_args,
                cwd=project, input=BODY)
    assert findings(r, project) == set() and r.returncode == 0


def test_extend_exclude_and_force_exclude_for_files_and_stdin(dynlint, project):
    sub = project / "src"
    # Named explicitly, an excluded file is checked, unless --force-exclude.
    r = dynlint("check", "pkg/generated/deep.py", "--no-cache", "-q", cwd=sub)
    assert r.returncode == 1 and "deep.py" in r.stdout
    r = dynlint("check", "pkg/generated/deep.py", "--no-cache", "--force-exclude", cwd=sub)
    assert r.returncode == 0 and "deep.py" not in r.stdout
    r = dynlint("check", "-", "--stdin-filename", "pkg/generated/deep.py", "--force-exclude",
                cwd=sub, input=BODY)
    assert r.returncode == 0 and r.stdout == "", r.stdout
    r = dynlint("check", "-", "--stdin-filename", "pkg/generated/deep.py", cwd=sub, input=BODY)
    assert r.returncode == 1 and "DYN101" in r.stdout
    # force-exclude set in the config file works the same way.
    r = dynlint("check", "pkg/generated/deep.py", "--no-cache", "--config", "force-exclude = true",
                cwd=sub)
    assert r.returncode == 0, r.stdout


def test_stdin_filename_without_dash_reads_stdin(dynlint, project):
    r = dynlint("check", "--stdin-filename", "src/pkg/model.py", "--no-cache", "-q",
                cwd=project, input="x = 1\n")
    # Reads the (clean) text given on stdin; does not lint the tree full of findings.
    assert r.returncode == 0 and r.stdout == "", r.stdout
    r = dynlint("check", "--stdin-filename", "src/pkg/model.py", "-q", cwd=project, input=BODY)
    assert r.returncode == 1
    assert r.stdout.splitlines()[0].startswith("src/pkg/model.py:6:13: DYN101")


def test_nested_config_wins_and_extend(dynlint, project, write):
    write("proj/sub/pyproject.toml", '[tool.dynlint]\nselect = ["DYN1"]\n')
    write("proj/sub/dynlint.toml", 'ignore = ["DYN101"]\n')      # wins over pyproject.toml
    write("proj/sub/m.py", BODY)
    write("proj/other/dynlint.toml", 'extend = "../pyproject.toml"\nignore = ["DYN102"]\n')
    write("proj/other/m.py", BODY)
    write("proj/other/generated/g.py", BODY)                      # still excluded: extended
    got = findings(dynlint("check", ".", "--no-cache", "--format", "json", cwd=project), project)
    by_file = {}
    for path, _, _, code in got:
        by_file.setdefault(os.path.relpath(path, project), set()).add(code)
    assert by_file["sub/m.py"] == {"DYN102"}
    assert by_file["other/m.py"] == {"DYN101"}
    assert "other/generated/g.py" not in by_file
    # The nested project's own directory gives the same answer.
    sub = findings(dynlint("check", ".", "--no-cache", "--format", "json", cwd=project / "sub"),
                   project / "sub")
    assert {c for _, _, _, c in sub} == {"DYN102"}
    # --show-settings names the config file a file's settings come from.
    r = dynlint("check", "--show-settings", "sub/m.py", cwd=project)
    assert r.returncode == 0
    assert f"Settings path: {project / 'sub' / 'dynlint.toml'}" in r.stdout
    assert re.search(r'ignore = \["DYN101"\]\s+# .*dynlint.toml:1', r.stdout)
    r = dynlint("check", "--show-settings", "tests/test_model.py", cwd=project)
    assert f"Settings path: {project / 'pyproject.toml'}" in r.stdout
    assert '"tests/**" = ["DYN101"]' in r.stdout and "applies to this file" in r.stdout


def test_show_files(dynlint, project):
    r = dynlint("check", "--show-files", cwd=project / "src")
    assert r.returncode == 0
    assert r.stdout.splitlines() == [str(project / "src/pkg/__init__.py"),
                                     str(project / "src/pkg/model.py")]


@pytest.mark.parametrize("where", ["root", "subdirectory", "parent"])
def test_invalid_toml_exit_2_naming_file_and_line(dynlint, project, where):
    (project / "pyproject.toml").write_text('[tool.dynlint]\nignore = ["DYN101"\nselect = []\n')
    cwd = {"root": project, "subdirectory": project / "src", "parent": project.parent}[where]
    target = {"root": ".", "subdirectory": ".", "parent": "proj"}[where]
    r = dynlint("check", target, "--no-cache", cwd=cwd)
    assert r.returncode == 2, r.stdout
    assert f"{project / 'pyproject.toml'}:3:" in r.stderr and "invalid TOML" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("config, key", [
    ('[tool.dynlint]\nselect = ["DYN1", "DYN9O1"]\n', "select"),
    ('[tool.dynlint]\nextend-select = ["DYNX"]\n', "extend-select"),
    ('[tool.dynlint]\nignore = ["E501"]\n', "ignore"),
    ('[tool.dynlint]\nper-file-ignores = { "tests/*" = ["DYN1O1"] }\n', "per-file-ignores"),
])
def test_unknown_selector_in_config_names_the_file(dynlint, write, tmp_path, config, key):
    write("pyproject.toml", config)
    write("m.py", BODY)
    r = dynlint("check", ".", "--no-cache", cwd=tmp_path)
    assert r.returncode == 2
    assert f"{tmp_path / 'pyproject.toml'}:2: {key}: unknown rule selector" in r.stderr, r.stderr


def test_unknown_selector_in_nested_config_and_cli(dynlint, write, tmp_path):
    write("pkg/dynlint.toml", 'ignore = ["NOPE1"]\n')
    write("pkg/m.py", BODY)
    r = dynlint("check", ".", "--no-cache", cwd=tmp_path)
    assert r.returncode == 2 and f"{tmp_path / 'pkg' / 'dynlint.toml'}:1" in r.stderr
    write("m.py", BODY)
    r = dynlint("check", "m.py", "--no-cache", "--ignore", "DYN1,BOGUS", cwd=tmp_path)
    assert r.returncode == 2 and "--ignore: unknown rule selector 'BOGUS'" in r.stderr
    r = dynlint("check", "m.py", "--config", 'per-file-ignores = {"m.py" = ["XYZ"]}', cwd=tmp_path)
    assert r.returncode == 2 and "--config" in r.stderr and "'XYZ'" in r.stderr


def test_inline_config_overrides_every_config(dynlint, project):
    base = ("check", ".", "--no-cache", "--format", "json")
    r = dynlint(*base, "--config", 'ignore = ["DYN102"]', "--config", "extend-exclude = ['tests']",
                cwd=project)
    assert {c for _, _, _, c in findings(r, project)} == {"DYN101"}
    assert all("tests" not in p for p, *_ in findings(r, project))
    r = dynlint(*base, "--config", "ignore = [", cwd=project)
    assert r.returncode == 2 and "--config" in r.stderr and "TOML" in r.stderr
    r = dynlint(*base, "--config", "no-such-setting = 1", cwd=project)
    assert r.returncode == 2 and "unknown setting" in r.stderr
    r = dynlint(*base, "--config", "missing.toml", cwd=project)
    assert r.returncode == 2 and "missing.toml: no such file" in r.stderr


def _git_tree(write, root):
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info" / "exclude").write_text("private.py\n")
    write(".gitignore", "out/\n*_pb2.py\n")
    write("src/.gitignore", "scratch/\n!keep_pb2.py\n")
    for name in ("src/model.py", "out/a.py", "src/msg_pb2.py", "src/keep_pb2.py",
                 "src/scratch/s.py", "private.py", "src/deep/scratch/t.py"):
        write(name, BODY)


def test_gitignore_respected_by_default(dynlint, write, tmp_path):
    _git_tree(write, tmp_path)
    r = dynlint("check", "--show-files", cwd=tmp_path)
    files = {os.path.relpath(p, tmp_path) for p in r.stdout.split()}
    assert files == {"src/model.py", "src/keep_pb2.py"}
    # From a subdirectory, the .gitignore files above it still apply.
    r = dynlint("check", ".", "--no-cache", "--format", "json", cwd=tmp_path / "src")
    assert {os.path.relpath(p, tmp_path) for p, *_ in findings(r, tmp_path / "src")} == \
        {"src/model.py", "src/keep_pb2.py"}
    r = dynlint("check", "--show-files", "--no-respect-gitignore", cwd=tmp_path)
    assert len(r.stdout.split()) == 7
    write("pyproject.toml", "[tool.dynlint]\nrespect-gitignore = false\n")
    r = dynlint("check", "--show-files", cwd=tmp_path)
    assert len(r.stdout.split()) == 7
    # A file named explicitly is checked even if ignored (as in ruff).
    r = dynlint("check", "out/a.py", "--no-cache", "-q", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout.startswith("out/a.py:")


def test_gitignore_only_inside_a_repository(dynlint, write, tmp_path):
    write(".gitignore", "out/\n")
    write("out/a.py", BODY)
    r = dynlint("check", "--show-files", cwd=tmp_path)
    assert r.stdout.split() == [str(tmp_path / "out/a.py")]


def test_exclude_doublestar_and_negation(dynlint, write, tmp_path):
    write("pyproject.toml", textwrap.dedent("""\
        [tool.dynlint]
        extend-exclude = ["src/**/gen_*.py", "vendor", "!vendor/ours.py", "/top.py"]
        """))
    for name in ("src/a/b/gen_x.py", "src/gen_y.py", "src/a/keep.py", "vendor/theirs.py",
                 "vendor/ours.py", "top.py", "src/top.py"):
        write(name, BODY)
    r = dynlint("check", "--show-files", cwd=tmp_path)
    files = {os.path.relpath(p, tmp_path) for p in r.stdout.split()}
    assert files == {"src/a/keep.py", "vendor/ours.py", "src/top.py"}
    # The same from inside src: anchored patterns stay relative to the config file.
    r = dynlint("check", "--show-files", cwd=tmp_path / "src")
    assert {os.path.relpath(p, tmp_path) for p in r.stdout.split()} == {"src/a/keep.py", "src/top.py"}


def test_project_inside_a_directory_named_like_an_exclusion(dynlint, write, tmp_path):
    # The default `build` pattern must not exclude a whole project that lives in ~/build/.
    write("build/proj/pyproject.toml", "[tool.dynlint]\n")
    write("build/proj/m.py", BODY)
    r = dynlint("check", "--show-files", cwd=tmp_path / "build" / "proj")
    assert r.stdout.split() == [str(tmp_path / "build/proj/m.py")]


def test_directory_named_inside_a_venv_or_ignored_folder_is_walked(dynlint, write, tmp_path):
    # A virtualenv inside the checkout (CI's .ci/venv), git-ignored and under `site-packages`:
    # naming one of its packages checks it (as in ruff); names below it are still judged.
    _git_tree(write, tmp_path)
    write(".gitignore", "out/\n*_pb2.py\n.ci/venv/\n")
    venv = ".ci/venv/lib/python3.11/site-packages"
    write(".ci/venv/pyvenv.cfg", "home = /usr/bin\n")
    for name in ("pkg/ops/pool.py", "pkg/__pycache__/x.py", "pkg/build/gen.py", "pkg/nested_pb2.py"):
        write(f"{venv}/{name}", BODY)
    r = dynlint("check", "--show-files", f"{venv}/pkg", cwd=tmp_path)
    files = {os.path.relpath(p, tmp_path / venv) for p in r.stdout.split()}
    assert files == {"pkg/ops/pool.py"}
    # Walking the project from its root still skips the virtualenv.
    r = dynlint("check", "--show-files", cwd=tmp_path)
    assert not [p for p in r.stdout.split() if ".ci" in p]
    # And a git-ignored folder named explicitly is walked, with its own .gitignore still read.
    write("out/.gitignore", "skip.py\n")
    write("out/skip.py", BODY)
    r = dynlint("check", "--show-files", "out", cwd=tmp_path)
    assert {os.path.relpath(p, tmp_path) for p in r.stdout.split()} == {"out/a.py"}


@pytest.mark.parametrize("argv, suggestion", [
    (["chekc", "."], "did you mean 'check'?"),
    (["confrim", "m.py"], "did you mean 'confirm'?"),
    (["linter"], None),
])
def test_mistyped_subcommand_is_a_usage_error(dynlint, write, tmp_path, argv, suggestion):
    write("m.py", BODY)
    r = dynlint(*argv, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert f"unrecognized subcommand '{argv[0]}'" in r.stderr
    if suggestion:
        assert suggestion in r.stderr
    assert "DYN905" not in r.stdout + r.stderr


def test_paths_that_exist_or_look_like_paths_are_still_checked(dynlint, write, tmp_path):
    write("linter/m.py", BODY)                  # a directory named like a word
    r = dynlint("linter", "--no-cache", "-q", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout.startswith("linter/m.py:")
    r = dynlint("missing.py", "--no-cache", "-q", cwd=tmp_path)
    assert r.returncode == 1 and "DYN905" in r.stdout


def test_directory_without_python_files_warns(dynlint, write, tmp_path):
    write("docs/readme.md", "# nothing\n")
    r = dynlint("check", "docs", "--no-cache", cwd=tmp_path)
    assert r.returncode == 0
    assert "warning: No Python files found under docs" in r.stderr
    write("m.py", "x = 1\n")
    r = dynlint("check", ".", "--no-cache", cwd=tmp_path)
    assert "No Python files" not in r.stderr and "All checks passed!" in r.stdout


def test_file_diagnostics_are_selectable_like_rules(dynlint, write, tmp_path):
    write("bad.py", 'print "hello"\n')
    write("tests/bad_test.py", 'print "hello"\n')
    write("m.py", BODY)
    codes = lambda r: sorted((f["path"], f["code"]) for f in json.loads(r.stdout or "[]"))
    base = ("check", ".", "--no-cache", "--format", "json")
    every = codes(dynlint(*base, cwd=tmp_path))
    assert ("bad.py", "DYN901") in every and ("tests/bad_test.py", "DYN901") in every
    assert codes(dynlint(*base, "--ignore", "DYN901", cwd=tmp_path)) == \
        [("m.py", "DYN101"), ("m.py", "DYN102")]
    assert codes(dynlint(*base, "--ignore", "DYN9", cwd=tmp_path)) == \
        [("m.py", "DYN101"), ("m.py", "DYN102")]
    assert codes(dynlint(*base, "--select", "DYN901", cwd=tmp_path)) == \
        [("bad.py", "DYN901"), ("tests/bad_test.py", "DYN901")]
    write("pyproject.toml", '[tool.dynlint]\nper-file-ignores = { "tests/*" = ["DYN901"] }\n')
    assert ("tests/bad_test.py", "DYN901") not in codes(dynlint(*base, cwd=tmp_path))
    r = dynlint("check", "-", "--stdin-filename", "tests/x.py", "--no-cache", cwd=tmp_path,
                input='print "x"\n')
    assert r.returncode == 0, r.stdout
    r = dynlint("check", "-", "--stdin-filename", "x.py", "--no-cache", cwd=tmp_path,
                input='print "x"\n')
    assert r.returncode == 1 and "DYN901" in r.stdout


def test_file_diagnostics_are_listed_and_documented(dynlint):
    table = json.loads(dynlint("rules", "--format", "json").stdout)
    listed = {r["code"]: r for r in table}
    for code in ("DYN901", "DYN902", "DYN903", "DYN904", "DYN905", "DYN999"):
        assert code in listed and listed[code]["default"] is True
    r = dynlint("rule", "DYN901")
    assert r.returncode == 0
    assert "# DYN901 syntax-error" in r.stdout and "What it does" in r.stdout
    assert "--ignore DYN901" in r.stdout
    assert dynlint("rule", "syntax-error").stdout == r.stdout


def test_rule_docs_render_fix_templates_as_code(dynlint, capsys):
    from dynlint.integrations.cli import main
    codes = [r["code"] for r in json.loads(dynlint("rules", "--format", "json").stdout)]
    checked = 0
    for code in codes:                  # in-process: the same main() as the subprocess below
        assert main(["rule", code]) == 0
        doc = capsys.readouterr().out
        assert not re.search(r"\{[A-Z][A-Z0-9_]*\}|\$[A-Z]", doc), (code, doc)
        # Every fix shows its before/after as code that parses.
        for block in re.findall(r"  ```python\n(.*?)\n  ```", doc, re.S):
            before, after = textwrap.dedent(block).split("\n# becomes\n")
            ast.parse(textwrap.dedent(before).replace("...", "a"))
            ast.parse(textwrap.dedent(after))
            checked += 1
    assert checked > 20
    doc = dynlint("rule", "DYN101").stdout
    assert not re.search(r"\{[A-Z][A-Z0-9_]*\}|\$[A-Z]", doc)
    assert "x[mask].sum()\n  # becomes\n  x.where(lined_up(mask, x), 0).sum()" in doc
    assert "take `b` where the mask holds and `a` elsewhere" in doc


def test_confirm_without_torch_names_the_extra(dynlint, write, tmp_path):
    # A `torch` that cannot be imported, as in an environment without it.
    write("shadow/torch/__init__.py",
          "raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n")
    write("m.py", BODY)
    r = dynlint("confirm", "m.py", "--entry", "m:make", cwd=tmp_path,
                env={"PYTHONPATH": str(tmp_path / "shadow")})
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "dynlint confirm: error: dynlint confirm needs torch, which is not installed: "
        "pip install 'dynlint[confirm]'"]
    # The static checker does not need torch.
    r = dynlint("check", "m.py", "--no-cache", cwd=tmp_path, env={"PYTHONPATH": str(tmp_path / "shadow")})
    assert r.returncode == 1 and "DYN101" in r.stdout


def test_cache_is_json_and_a_corrupt_one_is_ignored(dynlint, write, tmp_path):
    write("pkg/__init__.py", "")
    write("pkg/util.py", "import torch\n\ndef helper(m: torch.Tensor):\n    return bool(m.all())\n")
    write("pkg/model.py", "import torch\nfrom .util import helper\n\nclass Net(torch.nn.Module):\n"
                          "    def forward(self, x, m):\n        return x if helper(m) else x * 2\n")
    cold = dynlint("check", "pkg", "-q", cwd=tmp_path)
    assert cold.returncode == 1 and "pkg/util.py:4" in cold.stdout     # found across files
    (cache_file,) = (tmp_path / ".dynlint_cache").rglob("*.json")
    json.loads(cache_file.read_text())                                  # plain JSON
    assert not list((tmp_path / ".dynlint_cache").rglob("*.pickle"))
    warm = dynlint("check", "pkg", "-q", cwd=tmp_path)
    assert warm.stdout == cold.stdout
    for junk in ("{not json", '{"x": [1, 2, 3, {"findings": 5}]}', "[]"):
        cache_file.write_text(junk)
        r = dynlint("check", "pkg", "-q", cwd=tmp_path)
        assert r.stdout == cold.stdout and "Traceback" not in r.stderr
    data = json.loads(dynlint("check", "pkg", "-q", cwd=tmp_path).stdout and cache_file.read_text())
    key = next(iter(data["entries"]))
    data["entries"][key][3] = {"findings": [{"bogus": 1}]}             # a malformed entry
    cache_file.write_text(json.dumps(data))
    r = dynlint("check", "pkg", "-q", cwd=tmp_path)
    assert r.stdout == cold.stdout and "Traceback" not in r.stderr


def test_nested_gitignore_outside_a_repository_is_not_read(dynlint, write, tmp_path):
    write("pkg/.gitignore", "*.py\n")
    write("pkg/m.py", BODY)
    r = dynlint("check", "--show-files", cwd=tmp_path)
    assert r.stdout.split() == [str(tmp_path / "pkg/m.py")]
