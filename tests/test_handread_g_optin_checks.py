"""A false-alarm cause of hand-read set g (peft 0.21.2, bench/results/handread_causes.md, "Set g
first look"), decided by a fact of the code, through the real CLI, with twins that stay flagged:

a check the caller opts into (`records.optin_checks`): `if not torch.isfinite(w).all(): raise`
inside `if safe_merge:`, or `if safe_merge and not torch.isfinite(w).all(): raise`, where
`safe_merge` is a parameter defaulting to `False` that the function never rebinds. The check and
its read run only when the caller asks for them (peft's adapters' `merge`: 65 findings). The same
check under a parameter defaulting to `None` (`validate=None`: a `None` may stand for a default decided elsewhere)
or `True`, a guarded branch that repairs instead of raising, and a flag the function rebinds
stay flagged.
"""
import json

# peft 0.21.2 (Apache-2.0), `tuners/lora/layer.py` `Linear.merge` and `tuners/lora/bnb.py`
# `Linear8bitLt.merge`, excerpted; `MultiheadAttention.forward` calls `merge` without the flag.
MERGE = '''\
import torch
from torch import nn


class LoraLinear(nn.Module):
    def merge(self, safe_merge: bool = False, adapter_names=None) -> None:
        base_layer = self.get_base_layer()
        for active_adapter in adapter_names:
            if safe_merge:
                orig_weight = base_layer.weight.data.clone()
                orig_weight += self.get_delta_weight(active_adapter)
                if not torch.isfinite(orig_weight).all():
                    raise ValueError(f"NaNs detected in the merged weights of {active_adapter}")
                base_layer.weight.data = orig_weight
            else:
                base_layer.weight.data += self.get_delta_weight(active_adapter)

    def merge_8bit(self, safe_merge: bool = False, adapter_names=None) -> None:
        for active_adapter in adapter_names:
            w_data = self.get_base_layer().weight + self.get_delta_weight(active_adapter)
            if safe_merge and not torch.isfinite(w_data).all():
                raise ValueError("NaNs detected in the merged weights")
            self.get_base_layer().weight.data = w_data

    def forward(self, x, validate=None, check: bool = True, repair: bool = False, strict: bool = False):
        self.merge(adapter_names=self.active_adapters)
        out = self.base_layer(x)
        if validate:
            if (out.sum(-1) == 0).any():
                raise ValueError("an empty row")
        if check:
            if not torch.isfinite(out).all():
                raise ValueError("non-finite output")
        if repair:
            if not torch.isfinite(out).all():
                out = out.nan_to_num()
        if strict:
            strict = bool(out.sum() > 0)
            if not torch.isfinite(out).all():
                raise ValueError("non-finite output")
        return out
'''


def _line(text, needle, nth=1):
    return [i for i, line in enumerate(text.splitlines(), 1) if needle in line][nth - 1]


def test_a_check_the_caller_opts_into(dynlint, write):
    path = write("layer.py", MERGE)
    proc = dynlint("check", "--format", "json", "--no-cache", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    found = {(f["line"], f["code"]) for f in json.loads(proc.stdout)}
    lines = {line for line, _ in found}
    assert _line(MERGE, "if not torch.isfinite(orig_weight).all():") not in lines, found
    assert _line(MERGE, "if safe_merge and not torch.isfinite(w_data)") not in lines, found
    # a `None` default (data the step passes), on by default, a repair, a rebound flag: flagged
    assert (_line(MERGE, "if (out.sum(-1) == 0).any():"), "DYN204") in found, found
    assert (_line(MERGE, "if not torch.isfinite(out).all():", 1), "DYN204") in found, found
    assert (_line(MERGE, "if not torch.isfinite(out).all():", 2), "DYN204") in found, found
    assert (_line(MERGE, "if not torch.isfinite(out).all():", 3), "DYN204") in found, found
