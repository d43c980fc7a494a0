"""The flake8 plugin, run through real flake8 in a subprocess and compared with `dynlint check`.

Parity is the contract: same codes, lines, columns and messages as `dynlint check --format
json --no-cross-file` (flake8 shows a plugin one file at a time), on the bundled examples, on
real files from installed packages and on awkward sources (non-ASCII columns, CRLF, BOM,
PEP 263 cookies, multi-line calls, noqa).
"""
from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("flake8")

REPO = Path(__file__).resolve().parent.parent
FMT = "%(path)s\t%(row)d\t%(col)d\t%(code)s\t%(text)s"
FILE_DIAGNOSTICS = ("DYN901", "DYN902", "DYN903", "DYN904", "DYN905")  # flake8 has E902/E999

MODEL = """\
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        y = x[x > 0]
        idx = torch.nonzero(x)
        return y, idx
"""


# -- running the two tools ---------------------------------------------------------------------
def flake8(*args, cwd):
    proc = subprocess.run([sys.executable, "-m", "flake8", f"--format={FMT}", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True)
    rows = []
    for line in proc.stdout.splitlines():
        if line.count("\t") < 4:           # flake8's own messages, e.g. a critical error
            continue
        path, row, col, code, text = line.split("\t", 4)
        rows.append((os.path.normpath(os.path.join(cwd, path)), int(row), int(col), code, text))
    return proc, sorted(rows)


def dynlint(*args, cwd, cross_file=False):
    """`dynlint check` findings. flake8 hands a plugin one file at a time, so the plugin's
    counterpart is `--no-cross-file`; following model code into other files only adds."""
    extra = [] if cross_file else ["--no-cross-file"]
    proc = subprocess.run([sys.executable, "-m", "dynlint", "check", "--format", "json",
                           "--no-cache", *extra, *map(str, args)], cwd=cwd, capture_output=True,
                          text=True)
    assert proc.returncode in (0, 1), proc.stderr
    return sorted((os.path.normpath(os.path.join(cwd, f["path"])), f["line"], f["column"],
                   f["code"], f["message"])
                  for f in json.loads(proc.stdout) if f["code"] not in FILE_DIAGNOSTICS)


def dyn_rows(rows):
    return [r for r in rows if r[3].startswith("DYN")]


def assert_parity(files, cwd, *extra):
    proc, got = flake8("--select=DYN", *extra, *files, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    want = dynlint(*files, cwd=cwd)
    assert not [r for r in want if r[3] == "DYN999"], want      # an engine crash is no parity
    assert got == want
    return got


def write(root: Path, files: dict) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(textwrap.dedent(text), encoding="utf-8")


# -- parity ------------------------------------------------------------------------------------
def test_plugin_is_registered(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "flake8", "--version"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert "dynlint:" in proc.stdout, proc.stdout


def test_parity_on_bundled_examples(tmp_path):
    examples = sorted(str(p) for p in (REPO / "examples").rglob("*.py"))
    assert examples, "no bundled examples found"
    got = assert_parity(examples, tmp_path)
    assert got, "the bundled examples should produce findings"


def _real_world_files():
    files = []
    tv = importlib.util.find_spec("torchvision")
    if tv is not None:
        root = Path(tv.origin).parent
        files += sorted((root / "models" / "detection").glob("*.py"))
        files += [root / "ops" / "boxes.py", root / "ops" / "poolers.py"]
    tf = importlib.util.find_spec("transformers")
    if tf is not None:
        root = Path(tf.origin).parent
        for rel in ("models/bert/modeling_bert.py", "models/detr/modeling_detr.py",
                    "models/mixtral/modeling_mixtral.py", "models/llama/modeling_llama.py",
                    "models/qwen2_5_omni/modeling_qwen2_5_omni.py",
                    "models/sam3_video/modeling_sam3_video.py",
                    "models/fastspeech2_conformer/modeling_fastspeech2_conformer.py",
                    "models/flava/modeling_flava.py", "generation/utils.py"):
            files.append(root / rel)
    return [str(f) for f in files if f.is_file()]


def test_parity_on_real_world_files(tmp_path):
    files = _real_world_files()
    if len(files) < 10:
        pytest.skip("torchvision and transformers are needed for the real-world corpus")
    got = assert_parity(files, tmp_path)
    assert len(got) >= 50 and len({r[3] for r in got}) >= 5, got
    assert set(got) <= set(dynlint(*files, cwd=tmp_path, cross_file=True))
    # flake8 forks workers for several files; one file alone runs in-process: same answer.
    one = [f for f in files if f.endswith("roi_heads.py")]
    assert one and assert_parity(one, tmp_path, "-j1")


EDGE_CASES = {
    # non-ASCII before the finding on the same line: columns are characters, not bytes
    "unicode_cols.py": """\
        import torch


        class Net(torch.nn.Module):
            def forward(self, x):
                s = "héllo wörld ∑"; y = x[x > 0]
                return y, s, x.nonzero()
        """,
    # a call spanning lines points at the method name; a slice by an .item() value
    "multiline.py": """\
        import torch


        class Net(torch.nn.Module):
            def forward(self, x):
                n = (x
                     .sum()
                     .item())
                idx = torch.nonzero(
                    x > 0)
                return x[:n], idx
        """,
    "crlf.py": MODEL.replace("\n", "\r\n").encode(),
    "bom.py": "\ufeff" + MODEL.replace("y = x[x > 0]", 's = "é"; y = x[x > 0]'),
    "latin1.py": ("# -*- coding: latin-1 -*-\n"
                  + MODEL.replace("y = x[x > 0]", 's = "é"; y = x[x > 0]')).encode("latin-1"),
    "tabs.py": MODEL.replace("    ", "\t").encode(),
    "noqa.py": """\
        import torch


        class Net(torch.nn.Module):
            def forward(self, x):
                a = x[x > 0]  # noqa
                b = x[x > 1]  # noqa: DYN101
                c = x[x > 2]  # noqa: E501
                d = x[x > 3]  # noqa:DYN102
                e = torch.nonzero(x)  # noqa:DYN1
                f = torch.nonzero(
                    x)  # noqa: DYN102
                return a, b, c, d, e, f
        """,
    "file_noqa.py": "# dynlint: noqa\n" + MODEL,
}


def test_parity_on_edge_cases(tmp_path):
    write(tmp_path, EDGE_CASES)
    got = assert_parity(sorted(str(p) for p in tmp_path.glob("*.py")), tmp_path)
    by_file = {}
    for path, line, col, code, _ in got:
        by_file.setdefault(os.path.basename(path), []).append((line, col, code))
    assert (6, 34, "DYN101") in by_file["unicode_cols.py"]      # 1-based characters
    assert (8, 15, "DYN201") in by_file["multiline.py"]         # the `.item` line
    # line 9: `# noqa:DYN102` suppresses nothing there, so DYN100 reports it (in flake8 too)
    assert by_file["noqa.py"] == [(8, 13, "DYN101"), (9, 13, "DYN101"), (9, 23, "DYN100")]
    assert "file_noqa.py" not in by_file
    for name in ("crlf.py", "bom.py", "latin1.py", "tabs.py"):
        assert [c for _, _, c in by_file[name]] == ["DYN101", "DYN102"], name


# -- flake8's own selection and file handling --------------------------------------------------
@pytest.mark.parametrize("args, codes", [
    ((), {"DYN101", "DYN102"}),                             # flake8's default: plugin on
    (("--select=E9",), set()),
    (("--select=DYN101",), {"DYN101"}),
    (("--select=E,DYN",), {"DYN101", "DYN102"}),
    (("--select=DYN", "--extend-ignore=DYN101"), {"DYN102"}),
    (("--ignore=DYN1",), set()),
    (("--select=E9", "--extend-select=DYN102"), {"DYN102"}),
])
def test_flake8_select_and_ignore(tmp_path, args, codes):
    write(tmp_path, {"model.py": MODEL})
    proc, rows = flake8(*args, "model.py", cwd=tmp_path)
    assert {r[3] for r in dyn_rows(rows)} == codes, proc.stdout + proc.stderr


PROJECT = {"pkg/model.py": MODEL, "tests/test_model.py": MODEL, "generated/gen.py": MODEL}


def test_per_file_ignores_and_extend_exclude_from_config(tmp_path):
    write(tmp_path, {**PROJECT, ".flake8": """\
        [flake8]
        select = DYN
        per-file-ignores =
            tests/*: DYN101
        extend-exclude = generated
        """})
    _, rows = flake8(".", cwd=tmp_path)
    found = {(os.path.relpath(r[0], tmp_path), r[3]) for r in rows}
    assert found == {("pkg/model.py", "DYN101"), ("pkg/model.py", "DYN102"),
                     ("tests/test_model.py", "DYN102")}


def test_per_file_ignores_and_extend_exclude_on_command_line(tmp_path):
    write(tmp_path, PROJECT)
    _, rows = flake8("--select=DYN", "--per-file-ignores=pkg/*:DYN1", "--extend-exclude=tests",
                     ".", cwd=tmp_path)
    found = {(os.path.relpath(r[0], tmp_path), r[3]) for r in rows}
    assert found == {("generated/gen.py", "DYN101"), ("generated/gen.py", "DYN102")}


# -- dynlint settings under flake8 -------------------------------------------------------------
CUSTOM_RULE = """\
    code: {code}
    name: {name}
    default: {default}
    summary: "A test rule."
    why: "Only for the flake8 plugin tests."
    message: "`{{match}}` is {name}"
    match:
      - pattern: "torch.{func}(...)"
    """
CUSTOM = {
    "myrules/DYN801_custom_on.yaml": CUSTOM_RULE.format(code="DYN801", name="custom-on",
                                                        default="true", func="custom_on"),
    "myrules/DYN802_custom_off.yaml": CUSTOM_RULE.format(code="DYN802", name="custom-off",
                                                         default="false", func="custom_off"),
    "use.py": "import torch\ntorch.custom_on(1)\ntorch.custom_off(2)\n",
}


@pytest.mark.parametrize("args, codes", [
    (("--select=DYN",), {"DYN801"}),                        # default-off stays off
    ((), {"DYN801"}),
    (("--select=DYN802",), {"DYN802"}),                     # named specifically: on
    (("--select=DYN", "--extend-select=DYN8"), {"DYN801", "DYN802"}),
    (("--select=DYN", "--dynlint-select=ALL"), {"DYN801", "DYN802"}),
    (("--select=DYN", "--dynlint-select=DYN802"), {"DYN802"}),
])
def test_extra_rule_dirs_and_default_off_rules(tmp_path, args, codes):
    write(tmp_path, CUSTOM)
    proc, rows = flake8("--dynlint-rules=myrules", *args, "use.py", cwd=tmp_path)
    assert {r[3] for r in dyn_rows(rows)} == codes, proc.stdout + proc.stderr


def test_rule_dirs_and_selection_match_the_cli(tmp_path):
    write(tmp_path, CUSTOM)
    _, rows = flake8("--select=DYN", "--dynlint-rules=myrules", "use.py", cwd=tmp_path)
    assert rows == dynlint("--rules", "myrules", "use.py", cwd=tmp_path)
    _, rows = flake8("--select=DYN", "--extend-select=DYN802", "--dynlint-rules=myrules",
                     "use.py", cwd=tmp_path)
    assert rows == dynlint("--rules", "myrules", "--extend-select", "DYN802", "use.py",
                           cwd=tmp_path)


def test_rule_dir_from_flake8_config_is_relative_to_the_config(tmp_path):
    write(tmp_path, {**CUSTOM, ".flake8": "[flake8]\nselect = DYN\ndynlint-rules = ./myrules\n",
                     "sub/use.py": CUSTOM["use.py"]})
    proc, rows = flake8("use.py", cwd=tmp_path / "sub")
    assert [r[3] for r in rows] == ["DYN801"], proc.stdout + proc.stderr


def test_tool_dynlint_settings_apply_like_the_cli(tmp_path):
    write(tmp_path, {**CUSTOM, **PROJECT, "pyproject.toml": """\
        [tool.dynlint]
        ignore = ["DYN102"]
        rule-dirs = ["myrules"]
        per-file-ignores = { "tests/*" = ["DYN1"] }
        """})
    files = ["use.py", "pkg/model.py", "tests/test_model.py"]
    _, rows = flake8("--select=DYN", *files, cwd=tmp_path)
    assert rows == dynlint(*files, cwd=tmp_path)
    assert {(os.path.relpath(r[0], tmp_path), r[3]) for r in rows} == {
        ("use.py", "DYN801"), ("pkg/model.py", "DYN101")}


# -- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("files, args, expect", [
    ({"bad/DYN850_x.yaml": "code: DYN850\nname: Bad Name\nsummary: s\nwhy: w\nmessage: m\n"
                           "match:\n  - pattern: 'torch.x()'\n"},
     ("--dynlint-rules=bad",), ["invalid rule:", "DYN850_x.yaml:2: name: must be lowercase"]),
    ({"bad/DYN851_y.yaml": "code: DYN851\nname: [unclosed\n"},
     ("--dynlint-rules=bad",), ["invalid rule:", "DYN851_y.yaml", "invalid YAML"]),
    ({}, ("--dynlint-rules=missing",), ["missing: rule directory does not exist"]),
    ({}, ("--dynlint-select=NOPE",), ["unknown rule selector 'NOPE'"]),
    ({"pyproject.toml": '[tool.dynlint]\nselect = "DYN1"\n'}, (),
     ["pyproject.toml:2: [tool.dynlint] select: must be a list of strings"]),
])
def test_broken_configuration_is_a_clear_flake8_error(tmp_path, files, args, expect):
    write(tmp_path, {**files, "model.py": MODEL})
    proc, _ = flake8(*args, "model.py", cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "There was a critical error during execution of Flake8" in out
    assert "dynlint: " in out
    for text in expect:
        assert text in out, out
    assert "Traceback" not in out


# -- in-process: the plugin's own contract -----------------------------------------------------
def _plugin_findings(source: str, filename="m.py"):
    from dynlint.integrations.flake8_plugin import Plugin
    lines = source.splitlines(keepends=True)
    return list(Plugin(ast.parse(source), lines, filename).run())


def test_plugin_uses_flake8s_tree_without_parsing_again(monkeypatch):
    from dynlint.integrations.flake8_plugin import Plugin, _build
    monkeypatch.setattr(Plugin, "_engine", _build((), None, (), ()))   # rule patterns are parsed
    tree = compile(MODEL, "m.py", "exec", ast.PyCF_ONLY_AST)
    parses = []
    real_parse = ast.parse
    ast.parse = lambda *a, **k: parses.append(a) or real_parse(*a, **k)
    try:
        found = list(Plugin(tree, MODEL.splitlines(keepends=True), "m.py").run())
    finally:
        ast.parse = real_parse
    # (fix templates may parse their own snippets; the module itself must not be parsed)
    assert not [a for a in parses if a and "class Net" in str(a[0])], "parsed a second time"
    assert [(ln, col, text.split()[0]) for ln, col, text, _ in found] == [
        (6, 12, "DYN101"), (7, 14, "DYN102")]               # 0-based columns for flake8


def test_engine_is_built_once_per_configuration(monkeypatch, tmp_path):
    from flake8.options.parse_args import parse_args

    from dynlint.integrations.flake8_plugin import Plugin
    monkeypatch.setattr(Plugin, "_engine", None)
    monkeypatch.chdir(tmp_path)
    parse_args(["--select=DYN", "x.py"])
    first = Plugin._engine
    parse_args(["--select=DYN", "x.py"])
    assert Plugin._engine is first
    parse_args(["--select=DYN101", "x.py"])                 # rules flake8 drops are not run
    assert [r.code for r in Plugin._engine.rules] == ["DYN101"]
    parse_args(["--select=E9", "x.py"])
    assert Plugin._engine.rules == []


def test_an_engine_crash_is_a_dyn999_finding_not_a_flake8_crash(monkeypatch):
    from dynlint.integrations.flake8_plugin import Plugin

    class Broken:
        def may_match(self, text):
            return True

        def check(self, *a, **k):
            raise ValueError("boom")
    monkeypatch.setattr(Plugin, "_engine", Broken())
    found = _plugin_findings(MODEL)
    assert len(found) == 1 and found[0][2].startswith("DYN999 internal error (ValueError: boom)")


# -- configuration resolved per checked file -----------------------------------------------------
NESTED = {
    "project/pyproject.toml": """\
        [tool.dynlint]
        ignore = ["DYN102"]
        per-file-ignores = { "legacy/*" = ["DYN101"] }
        """,
    "project/src/model.py": MODEL,
    "project/legacy/old.py": MODEL,
    "project/nested/dynlint.toml": 'select = ["DYN102"]\n',
    "project/nested/m.py": MODEL,
}


def test_config_is_resolved_per_file_from_any_directory(tmp_path):
    """The closest config of each file applies, its patterns relative to it: flake8 from the
    project, from a subdirectory and from the parent directory reports the same findings,
    which are `dynlint check`'s."""
    write(tmp_path, NESTED)
    project = tmp_path / "project"
    want = {(str(project / "src" / "model.py"), "DYN101"), (str(project / "nested" / "m.py"), "DYN102")}
    runs = [(project, ["src/model.py", "legacy/old.py", "nested/m.py"]),
            (project / "src", ["model.py", "../legacy/old.py", "../nested/m.py"]),
            (tmp_path, ["project"])]
    for cwd, files in runs:
        proc, rows = flake8("--select=DYN", *files, cwd=cwd)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert {(r[0], r[3]) for r in rows} == want, (cwd, rows)
        assert rows == dynlint(*files, cwd=cwd), cwd


def test_broken_nested_config_is_a_finding_not_a_crash(tmp_path):
    write(tmp_path, {"pkg/dynlint.toml": "select = [\n", "pkg/m.py": MODEL, "ok.py": MODEL})
    proc, rows = flake8("--select=DYN", "ok.py", "pkg/m.py", cwd=tmp_path)
    assert "Traceback" not in proc.stdout + proc.stderr
    assert {r[3] for r in rows if r[0].endswith("ok.py")} == {"DYN101", "DYN102"}
    (broken,) = [r for r in rows if r[0].endswith("m.py") and not r[0].endswith("ok.py")]
    assert broken[3] == "DYN999" and "dynlint.toml" in broken[4], rows
