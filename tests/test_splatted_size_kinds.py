"""Sizes splatted into a factory or a view (`torch.zeros(*shape)`) are each an argument: a
tuple holding a 0-d tensor (`shape = (len(splits), torch.max(splits))`, torchrl's
`_split_and_pad_sequence`) passes it as a size, read back to the host (DYN206), in the
function and in a closure reading the tuple; a tuple of shape items does not. Through the
real CLI."""
import json

SRC = '''import torch


class Pad(torch.nn.Module):
    def forward(self, x, splits):
        longest = torch.max(splits)
        shape = (len(splits), longest)
        out = torch.zeros(*shape, device=x.device)

        def fill(t):
            return t.new_zeros(*shape, *t.shape[1:])

        plain = (x.shape[0], 2 * x.shape[1])
        ok = torch.zeros(*plain, device=x.device).view(*x.shape[:1], -1)
        return out, fill(x), ok
'''


def test_splatted_tuple_holding_a_tensor_is_a_size(dynlint, write):
    path = write("pad.py", SRC)
    proc = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    found = {(f["line"], f["code"]) for f in json.loads(proc.stdout)}
    assert (8, "DYN206") in found       # torch.zeros(*shape)
    assert (11, "DYN206") in found      # the closure's t.new_zeros(*shape, ...)
    assert not any(line == 14 for line, _ in found)     # shape items: plain ints
