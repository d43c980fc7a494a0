"""Each finding says how sure it is (issue 9): `certain` when the code proves what the rule
needs, `likely` when a mask is known by its name only. Through the real CLI, in JSON, SARIF and
from the cache."""
import json
import textwrap

SRC = textwrap.dedent("""\
    import torch
    from elsewhere import laf_is_filled, batched_nms


    class Matcher(torch.nn.Module):
        def __init__(self, n):
            super().__init__()
            self.register_buffer("ignore", torch.zeros(n, dtype=torch.bool))

        def forward(self, descs, lafs, fg_mask, boxes, scores):
            valid = laf_is_filled(lafs)[0]
            keep = batched_nms(boxes, scores, 0.5)
            return (descs[valid], descs[fg_mask], descs[descs > 0], descs[:, ~self.ignore],
                    boxes[keep])
    """)


def _json(dynlint, tmp_path, *extra):
    out = dynlint("check", "--format", "json", *extra, "m.py", cwd=tmp_path)
    return {(d["line"], d["column"]): d for d in json.loads(out.stdout)}


def test_confidence_in_json_sarif_and_cache(dynlint, write, tmp_path):
    write("m.py", SRC)
    found = _json(dynlint, tmp_path, "--no-cache")
    by_text = {SRC.splitlines()[line - 1][col - 1:][:14]: d["confidence"]
               for (line, col), d in found.items() if d["code"] == "DYN101"}
    assert by_text == {
        "descs[valid], ": "likely",      # an item of a predicate-named call: names only
        "descs[fg_mask]": "likely",
        "descs[descs > ": "certain",     # a comparison: the code proves a bool mask
        "descs[:, ~self": "certain",     # a bool buffer registered in __init__
    }, by_text                           # `boxes[keep]`: positions from nms, not flagged
    sarif = json.loads(dynlint("check", "--no-cache", "--format", "sarif", "m.py", cwd=tmp_path).stdout)
    props = sorted(r["properties"]["confidence"] for r in sarif["runs"][0]["results"])
    assert props == sorted(d["confidence"] for d in found.values())
    # Written to the cache and read back: the same confidences.
    first = _json(dynlint, tmp_path)
    second = _json(dynlint, tmp_path)
    assert first == second == found


LIBRARY = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/utils.py": textwrap.dedent("""\
        import torch

        def helper(t: torch.Tensor):
            return t.max().item()

        def lonely(t: torch.Tensor):
            return t.min().item()
        """),
    "pkg/model.py": textwrap.dedent("""\
        import torch
        from .utils import helper


        class Net(torch.nn.Module):
            def forward(self, x):
                return helper(x)
        """),
}


def test_library_scope_is_likely_until_model_code_reaches_it(dynlint, tmp_path):
    """A host read in a function nothing in its file reaches is in scope (it may run in a
    step) but `likely`; once model code in another file of the project calls it, `certain`,
    whether the project or the file alone is checked, with or without the cache."""
    for name, text in LIBRARY.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)

    def confidences(*args):
        out = dynlint("check", "--format", "json", *args, cwd=tmp_path)
        return {(d["path"], d["line"]): d["confidence"] for d in json.loads(out.stdout)}

    whole = {("pkg/utils.py", 4): "certain", ("pkg/utils.py", 7): "likely"}
    assert confidences(".", "--no-cache") == whole
    assert confidences("pkg/utils.py", "--no-cache") == whole
    assert confidences("pkg/utils.py") == whole          # builds the cache
    assert confidences("pkg/utils.py") == whole          # reads it
    alone = {("pkg/utils.py", 4): "likely", ("pkg/utils.py", 7): "likely"}
    assert confidences("pkg/utils.py", "--no-cache", "--no-cross-file") == alone


def test_shared_conditions_keep_each_findings_confidence(dynlint, write, tmp_path):
    """Rules tried on the same node share their argument-free conditions' answers (the
    engine remembers them while it tries the node's entries): the second rule must still
    learn that only the library scope held (`likely`), and a name-only mask (weak evidence)
    must make every rule resting on it `likely`, whichever rule asked first. In model code
    the same pairs stay `certain` for the rule without the name evidence."""
    rule = textwrap.dedent("""\
        code: {code}
        name: {name}
        summary: "a test rule"
        why: Two rules with the same conditions on the same node.
        message: "`{{match}}` {name}"
        match:
          - pattern: "$X[$M]"
            where:
              M: [{pred}]
            when: [loaded, in_step_code]
        examples:
          flag: []
          pass: []
        """)
    write("r/MYA001.yaml", rule.format(code="MYA001", name="first-rule", pred="named_mask"))
    write("r/MYA002.yaml", rule.format(code="MYA002", name="second-rule", pred="possible_tensor"))
    write("r/MYA003.yaml", rule.format(code="MYA003", name="third-rule", pred="named_mask"))
    write("m.py", textwrap.dedent("""\
        import torch


        def library_helper(x, fg_mask):
            return x[fg_mask]


        class M(torch.nn.Module):
            def forward(self, x, fg_mask):
                return x[fg_mask]
        """))
    out = dynlint("check", "--format", "json", "--rules", "r", "--select", "MYA", "--no-cache",
                  "m.py", cwd=tmp_path)
    got = {(d["line"], d["code"]): d["confidence"] for d in json.loads(out.stdout)}
    assert got == {(5, "MYA001"): "likely", (5, "MYA002"): "likely", (5, "MYA003"): "likely",
                   (10, "MYA001"): "likely", (10, "MYA002"): "certain",
                   (10, "MYA003"): "likely"}, got
