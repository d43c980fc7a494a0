"""The walk skips bodies no enabled rule needs (cold code, by default); what it must still open
does not depend on which other rules are enabled."""
import json

import pytest

NESTED_STEP = '''\
import torch


def train(model, batches):
    @torch.compile
    def step(x):
        return x[x > 0]

    for b in batches:
        step(b)
'''

COLLATE = '''\
import torch
from torch.utils.data import DataLoader


def load_padded(batch):
    longest = max(len(x) for x in batch)
    return torch.tensor([x + [0] * (longest - len(x)) for x in batch])


def make_loader(ds):
    return DataLoader(ds, batch_size=8, collate_fn=load_padded)
'''


def _found(dynlint, tmp_path, *args):
    r = dynlint("check", "m.py", "--no-cache", "--format", "json", *args, cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    return sorted((f["code"], f["line"]) for f in json.loads(r.stdout))


@pytest.mark.parametrize("selection", [(), ("--select", "DYN101"), ("--ignore", "DYN401")])
def test_model_code_nested_in_cold_code_is_walked_whatever_the_selection(dynlint, write,
                                                                         tmp_path, selection):
    # `train` is cold (a training loop); the compiled `step` inside it is model code. With
    # DYN401 on, cold bodies are opened for it; without, `train` is still walked to reach `step`.
    write("m.py", NESTED_STEP)
    assert ("DYN101", 7) in _found(dynlint, tmp_path, *selection)


@pytest.mark.parametrize("selection", [(), ("--select", "DYN401")])
def test_rule_bounded_to_named_places_still_sees_cold_functions(dynlint, write, tmp_path,
                                                                selection):
    # `load_padded` is cold code (by its name) passed as `collate_fn`: the one cold body that
    # DYN401 (in_function_passed_as) needs opened.
    write("m.py", COLLATE)
    assert _found(dynlint, tmp_path, *selection) == [("DYN401", 6)]
