"""`int(x)` of a value only probably a tensor (a module's attribute, a `float | Tensor`
parameter) is no host value read from tensor data: the read rules do not report it, so a
slice bounded by it is not reported either (a run-time false alarm on a sample rate). Of a
tensor for sure, the read is reported once, where it happens; a value read in a helper
still shows at the slice. Through the real CLI."""
import json

SOURCE = '''\
import typing as tp
import torch


def shifted(mix: torch.Tensor, rate: tp.Union[float, torch.Tensor], offset: int):
    max_shift = int(0.5 * rate)
    return mix[..., max_shift - offset:]


def shifted_by_tensor(mix: torch.Tensor, rate: torch.Tensor, offset: int):
    max_shift = int(0.5 * rate)
    return mix[..., max_shift - offset:]


def longest(lengths: torch.Tensor) -> int:
    return int(lengths.max())


def cropped(mix: torch.Tensor, lengths: torch.Tensor):
    return mix[..., :longest(lengths)]
'''


def test_probable_tensor_conversion_is_no_host_read(dynlint, write):
    path = write("apply.py", SOURCE)
    proc = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero", str(path))
    assert proc.returncode == 0, proc.stderr
    found = {(f["line"], f["code"]) for f in json.loads(proc.stdout)}
    assert (7, "DYN207") not in found           # only probably a tensor: no read, no slice
    assert (11, "DYN203") in found              # a tensor for sure: the read, once
    assert (12, "DYN207") not in found
    assert (20, "DYN207") in found              # read in a helper: shows at the slice
