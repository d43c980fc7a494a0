"""bench/results/handread_b.md: the second, independent hand reading (set b of sample.py).

Verdicts live in verdicts_b.json keyed by finding (path inside the package, line, column, code),
each with the reading that first gave it ("first" = read before any code changed for set b).
The report gives the figure of the sample as drawn now, and the first-look figure kept in the
verdicts file, both by confidence and by rule.
"""
from __future__ import annotations

import collections
import json


def _table(counts: dict) -> str:
    return ", ".join(f"{k} {w}/{n}" for k, (w, n) in sorted(counts.items()))


def _tally(rows, key) -> dict:
    out = collections.defaultdict(lambda: [0, 0])
    for f, verdict in rows:
        out[key(f)][0] += verdict == "yes"
        out[key(f)][1] += 1
    return out


SET_B = {
    "title": "# Hand reading, set b: 60 dynlint findings on repos it was never measured on",
    "about": "Second, independent reading (issue 9). Repos (sources of the wheels from `pip download --no-deps`: "
             "speechbrain 1.1.2, torch-geometric 2.8.1, stable-baselines3 2.9.2; speech, graph learning, RL). ",
    "quota": "stable-baselines3 has fewer, so all of its findings are read and the rest is shared evenly",
    "set": "b",
}

SET_A_REDRAW = {    # set a drawn again with its seed; the kept sample.json stays keyed by position
    "title": "# Hand reading, set a redrawn: 60 dynlint findings, seed 9, with the end-of-session dynlint",
    "about": "Set a (pyro-ppl 1.9.2, vector-quantize-pytorch 1.32.0, fair-esm 2.0.0) drawn again with its seed "
             "into a separate file; verdicts of the kept sample (bench/results/handread.md) are reused for "
             "findings identical by path, line, column and rule, the rest were read. ",
    "quota": "fair-esm has fewer, so all of its findings are read and pyro-ppl fills the rest",
    "set": "a_redraw",
    "flags": "--redraw",
    "first_line": "**Earlier readings of set a** (git history of `bench/results/handread.md`): first reading "
                  "57/60 (commit 799f255, older dynlint, a different draw), then 47/60, 44/60, 54/60, 53/60; the "
                  "kept sample (`handread.md`, fifth reading) 52/60.",
}


def report_b(sample_path, verdicts_path, out_path, function_of, key_of, path_of, about=SET_B) -> None:
    """Also the report of later keyed sets (set c): `about` holds what differs between them."""
    data = json.load(open(sample_path))
    verdicts = json.load(open(verdicts_path))
    rows, lines, missing = [], [], []
    for i, f in enumerate(data["sample"], 1):
        key = key_of(f)
        if key not in verdicts["findings"]:
            missing.append(key)
            continue
        v = verdicts["findings"][key]
        rows.append((f, v["verdict"]))
        rel = key.rsplit(":", 3)[0]
        path = path_of(f)
        src = open(path, encoding="utf-8").read().splitlines()[f["line"] - 1].strip().replace("|", "\\|")
        lines.append(f"| {i} | {f['repo']} | `{rel}:{f['line']}` `{function_of(path, f['line'])}` | {f['code']} "
                     f"| {f.get('confidence', '')} | `{src[:90]}` | {'**yes**' if v['verdict'] == 'yes' else 'no'} "
                     f"| {v['reason']} ({v['reading']}) |")
    if missing:
        raise SystemExit(f"{len(missing)} findings of the sample have no verdict yet: {missing}")
    worth, n = sum(v == "yes" for _, v in rows), len(rows)
    first = verdicts.get("first_look", {})
    flags = about.get("flags", f"--set {about['set']}")
    head = [
        about["title"],
        "",
        about["about"] +
        f"Findings per repo with the default rules: {data['findings_per_repo']}; of them `likely`: "
        f"{data['likely_per_repo']}. Sample: seed {data['seed']}, stratified, quota {data['quota']} (20 per repo; "
        f"{about['quota']}). The sample is kept in `bench/handread/sample_{about['set']}.json`, the verdicts in "
        f"`verdicts_{about['set']}.json`.",
        "",
        "A finding is **worth acting on** when it is a real data-dependent shape or host sync in code that runs "
        "in a training or inference step (forward, loss, augmentation on the batch, decoding loop, a library "
        "function such a step calls) that an engineer porting to a graph compiler would want to know about. "
        f"Reproduce: `python bench/handread/sample.py fetch {flags} && python bench/handread/sample.py "
        f"sample {flags} && python bench/handread/sample.py report {flags}`.",
        "",
        about.get("first_line") or
        f"**First look** (dynlint as it stood before any change for this set): {first.get('worth')}/"
        f"{first.get('total')} worth acting on; by confidence: {first.get('by_confidence')}; by repo: "
        f"{first.get('by_repo')}; by rule: {first.get('by_rule')}.",
        "",
        f"**This sample now: {worth}/{n} = {100 * worth / n:.0f} % worth acting on**; by confidence: "
        f"{_table(_tally(rows, lambda f: f.get('confidence', '')))}; by repo: {_table(_tally(rows, lambda f: f['repo']))}; "
        f"by rule: {_table(_tally(rows, lambda f: f['code']))}.",
        "",
        "| # | repo | where | rule | confidence | line | worth | reason (reading) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    with open(out_path, "w") as fh:
        fh.write("\n".join(head + lines) + "\n" + verdicts.get("notes", ""))
    print(f"{worth}/{n} worth acting on -> {out_path}")


def first_look(sample_path: str, verdicts: dict, key_of) -> dict:
    """The figure of the sample as first drawn, to keep in verdicts_b.json."""
    rows = [(f, verdicts[key_of(f)]["verdict"]) for f in json.load(open(sample_path))["sample"]]
    return {"worth": sum(v == "yes" for _, v in rows), "total": len(rows),
            "by_confidence": _table(_tally(rows, lambda f: f.get("confidence", ""))),
            "by_repo": _table(_tally(rows, lambda f: f["repo"])),
            "by_rule": _table(_tally(rows, lambda f: f["code"]))}
