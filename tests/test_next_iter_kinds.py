"""`next(...)` of an iterator over a tensor gives one iteration's item, as a `for` loop over
the tensor binds it (infer.py `_next_item`): a row of `t` for `next(iter(t))`, a local bound to
`iter(t)`, or an item of a local dict of such iterators (transformers' Qwen2-VL
`get_rope_index`: `grid_iters = {1: iter(image_grid_thw), ...}`, then `grid_thw =
next(grid_iters[modality_type])` and `max(grid_thw[1], grid_thw[2])`, DYN209). An iterator
over a Python list gives no tensor. Through the real CLI."""
import json

SRC = '''import torch


class Rope(torch.nn.Module):
    def forward(self, x, image_grid_thw: torch.LongTensor, video_grid_thw: torch.LongTensor, kinds: list):
        grid_iters = {
            1: iter(image_grid_thw) if image_grid_thw is not None else None,
            2: iter(video_grid_thw) if video_grid_thw is not None else None,
        }
        pos = 0
        for k in kinds:
            grid_thw = next(grid_iters[k])
            pos += max(grid_thw[1], grid_thw[2]) // 2
        first = next(iter(image_grid_thw))
        if first[0] > 1:
            pos += 1
        plain = iter([1, 2])
        if next(plain) > 1:
            pos += 1
        return x, pos
'''


def test_next_of_an_iterator_over_a_tensor_is_a_row(dynlint, write):
    path = write("rope.py", SRC)
    proc = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    found = {(f["line"], f["code"]) for f in json.loads(proc.stdout)}
    assert (13, "DYN209") in found, found      # max() of two 0-d tensors
    assert (15, "DYN204") in found, found      # a row's element compared, branched on
    assert not any(line == 18 for line, _ in found), found     # next() of a list iterator
