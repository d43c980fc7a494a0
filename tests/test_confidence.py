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
