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
