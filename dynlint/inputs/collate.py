"""`BucketCollator`: a `collate_fn` that pads every batch to its *bucket*, not to its longest
item, so a loader yields at most one shape per bucket (plus a last partial batch, unless the
batch dimension is padded too). torch is imported when a batch is built, not at import."""
from __future__ import annotations

import bisect
import numbers
from collections.abc import Mapping


class BucketOverflow(ValueError):
    pass


class BucketCollator:
    """Pad each batch to the smallest boundary that holds its longest sequence.

    Items are dicts (HF-style, e.g. `{"input_ids": [...], "attention_mask": [...], "label": 3}`,
    any Mapping such as `BatchEncoding`) or tuples/lists (`(ids, label)`). By default a field is
    padded when its items are 1-D (lists, 1-D tensors or arrays); `keys=` names the fields to pad
    instead (e.g. `(T, F)` audio features, padded along their first dimension). Other fields
    are stacked (numbers, equal-shape tensors) or passed through as lists (strings). `pad_values` maps a key (or tuple position) to its pad value; others use
    `pad_value`, except attention/padding masks, which always pad with 0 unless given.
    `batch_size` (an int, or a {boundary: size} dict for token-budget batches) also pads a short
    last batch with all-padding rows so the batch dimension stays fixed.
    `overflow`: "error" (default), "truncate" to the last boundary, or "longest" (pad to the
    batch's longest item: a new shape).
    """

    def __init__(self, boundaries, pad_values=None, pad_value=0, keys=None, padding_side="right",
                 batch_size=None, overflow="error"):
        bounds = sorted({int(b) for b in boundaries})
        if not bounds or bounds[0] < 1:
            raise ValueError(f"boundaries must be positive integers, got {list(boundaries)!r}")
        if padding_side not in ("right", "left"):
            raise ValueError("padding_side must be 'right' or 'left'")
        if overflow not in ("error", "truncate", "longest"):
            raise ValueError("overflow must be 'error', 'truncate' or 'longest'")
        self.boundaries = bounds
        self.pad_values = dict(pad_values or {})
        self.pad_value = pad_value
        self.keys = None if keys is None else set(keys)
        self.padding_side = padding_side
        self.batch_size = batch_size
        self.overflow = overflow

    # -- public ------------------------------------------------------------------------
    def __call__(self, items):
        items = list(items)
        if not items:
            raise ValueError("BucketCollator got an empty batch")
        fields = self._fields(items[0])
        longest = max((_length(_get(it, f)) for it in items for f in fields
                       if self._padded(f, _get(items[0], f))), default=None)
        target = None if longest is None else self.target(longest)
        return self._collate(items, fields, target)

    def target(self, length: int) -> int:
        """The padded length of a batch whose longest sequence is `length`."""
        i = bisect.bisect_left(self.boundaries, length)
        if i < len(self.boundaries):
            return self.boundaries[i]
        if self.overflow == "truncate":
            return self.boundaries[-1]
        if self.overflow == "longest":
            return length
        raise BucketOverflow(f"a sequence of length {length} exceeds the largest bucket "
                             f"{self.boundaries[-1]}; pass overflow='truncate' or 'longest'")

    def warmup(self, example, batch_size=1):
        """One batch per bucket shape, built from `example` (one dataset item) stretched or cut
        to each boundary: run them through the model before training so every shape compiles
        up front instead of stalling mid-epoch. `batch_size` may be a {boundary: size} dict."""
        fields = self._fields(example)
        batches = []
        for b in self.boundaries:
            size = batch_size.get(b, 1) if isinstance(batch_size, Mapping) else batch_size
            item = _rebuild(example, {f: _fit(_get(example, f), b) if self._padded(f, _get(example, f))
                                      else _get(example, f) for f in fields})
            batches.append(self._collate([item] * size, fields, b, fill_rows=False))
        return batches

    # -- internals ---------------------------------------------------------------------
    def _fields(self, item):
        if isinstance(item, Mapping):
            return list(item.keys())
        if isinstance(item, (tuple, list)):
            return list(range(len(item)))
        raise TypeError(f"BucketCollator items must be mappings or tuples, got {type(item).__name__}")

    def _padded(self, field, value) -> bool:
        if self.keys is not None:
            return field in self.keys
        # By default only 1-D fields (token ids, masks, labels per position): an image or a
        # feature matrix has no length along its first dimension; name such fields in `keys`.
        return _is_sequence(value) and _ndim(value) == 1

    def _pad_for(self, field):
        if field in self.pad_values:
            return self.pad_values[field]
        if isinstance(field, str) and "mask" in field:
            return 0       # a padded position must be masked out, whatever the token pad id is
        return self.pad_value

    def _collate(self, items, fields, target, fill_rows=True):
        import torch
        rows = len(items)
        want = self._rows_for(target) if fill_rows else rows
        out = {}
        for f in fields:
            values = [_get(it, f) for it in items]
            if target is not None and self._padded(f, values[0]):
                pad = self._pad_for(f)
                tensors = [self._pad_one(torch, v, target, pad) for v in values]
                if want > rows:
                    tensors += [torch.full_like(tensors[0], pad)] * (want - rows)
                out[f] = torch.stack(tensors)
            else:
                out[f] = self._stack(torch, values, want - rows, self._pad_for(f))
        if isinstance(items[0], Mapping):
            return out
        return tuple(out[i] for i in fields)

    def _rows_for(self, target):
        if self.batch_size is None:
            return 0
        if isinstance(self.batch_size, Mapping):
            return self.batch_size.get(target, 0)
        return int(self.batch_size)

    def _pad_one(self, torch, value, target, pad):
        t = value if isinstance(value, torch.Tensor) else torch.as_tensor(value)
        n = t.shape[0]
        if n > target:
            t = t[:target] if self.padding_side == "right" else t[n - target:]
            n = target
        if n == target:
            return t
        filler = torch.full((target - n, *t.shape[1:]), pad, dtype=t.dtype, device=t.device)
        return torch.cat([t, filler] if self.padding_side == "right" else [filler, t])

    def _stack(self, torch, values, extra, pad):
        first = values[0]
        if isinstance(first, torch.Tensor):
            stacked = torch.stack(values)
        elif isinstance(first, numbers.Number):
            stacked = torch.tensor(values)
        else:
            return values + [None] * max(extra, 0)     # strings, ids...: passed through as a list
        if extra > 0:
            stacked = torch.cat([stacked, torch.full((extra, *stacked.shape[1:]), pad, dtype=stacked.dtype)])
        return stacked


def _get(item, field):
    return item[field]


def _rebuild(item, values):
    if isinstance(item, Mapping):
        return dict(values)
    return tuple(values[i] for i in range(len(item)))


def _is_sequence(value) -> bool:
    if hasattr(value, "shape") and hasattr(value, "dim"):        # a tensor
        return value.dim() >= 1
    if hasattr(value, "shape") and hasattr(value, "ndim"):       # a numpy array
        return value.ndim >= 1
    return isinstance(value, (list, tuple)) and all(not isinstance(x, (str, bytes)) for x in value[:1])


def _ndim(value) -> int:
    if hasattr(value, "shape"):
        return len(value.shape)
    return 1 + (len(value) > 0 and isinstance(value[0], (list, tuple)))


def _length(value) -> int:
    return int(value.shape[0]) if hasattr(value, "shape") else len(value)


def _fit(value, n):
    """`value` cut or repeated to length n (for warm-up batches: only the shape matters)."""
    if hasattr(value, "shape"):
        import torch
        t = torch.as_tensor(value)
        if t.shape[0] == 0:
            return torch.zeros((n, *t.shape[1:]), dtype=t.dtype)
        reps = -(-n // t.shape[0])
        return t.repeat(reps, *([1] * (t.dim() - 1)))[:n]
    seq = list(value) or [0]
    return (seq * (-(-n // len(seq))))[:n]
