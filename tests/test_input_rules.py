"""DYN4xx (input dynamicity) through the real CLI on a small training script."""
import json

SCRIPT = '''\
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader


def pad_batch(items):
    ids = [torch.tensor(x["input_ids"]) for x in items]
    return pad_sequence(ids, batch_first=True)


loader = DataLoader(train_set, batch_size=16, shuffle=True, collate_fn=pad_batch)


@torch.no_grad()
def greedy(model, tokens, steps):
    for step in range(steps):
        next_token = model(tokens)[:, -1:].argmax(-1)
        tokens = torch.cat([tokens, next_token], dim=1)
    return tokens
'''


def test_input_rules_default_and_opt_in(dynlint, write):
    path = write("train.py", SCRIPT)
    r = dynlint("check", "--isolated", "--no-cache", "--format", "json", path)
    found = sorted((f["code"], f["line"]) for f in json.loads(r.stdout))
    assert found == [("DYN401", 8), ("DYN403", 18)] and r.returncode == 1
    r = dynlint("check", "--isolated", "--no-cache", "--format", "json",
                "--extend-select", "DYN402", path)
    assert ("DYN402", 11) in {(f["code"], f["line"]) for f in json.loads(r.stdout)}


def test_grown_tensor_fix_is_display_only(dynlint, write):
    path = write("gen.py", SCRIPT)
    r = dynlint("check", "--isolated", "--no-cache", "--show-fix-suggestions", "--select", "DYN403", path)
    assert "index_copy_(1, tokens_pos, next_token)" in r.stdout
    r = dynlint("check", "--isolated", "--no-cache", "--fix", "--select", "DYN403", path)
    assert path.read_text() == SCRIPT            # display-only: never applied by --fix
