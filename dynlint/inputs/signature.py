"""Batch signatures: the ordered (path, kind, dtype, shape) leaves of one batch.

A signature is what a graph compiler keys its cache on, as far as the inputs go: every tensor's
shape and dtype, and the structure around them.  Values are never hashed: Python's hash of a
string is salted per process (PYTHONHASHSEED), and hashing an int id or a label list makes every
batch look new.  Scalars and strings are recorded by type, flat lists of them by length (a list
length often becomes a tensor size later), mapping keys in sorted order (dict order does not
matter to a model called with **batch).
"""
from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from typing import Any, NamedTuple

_SCALARS = (bool, int, float, complex, str, bytes, type(None))


class Leaf(NamedTuple):
    path: str  # "" for a batch that is itself one tensor
    kind: str  # tensor, ndarray, int, str, list, ... (tensor subclasses count as tensor)
    dtype: str  # "float32", "int64"; for a list of scalars the element type; "" otherwise
    shape: tuple[int, ...] | None  # None for scalars and unknown objects

    def describe(self) -> str:
        where = self.path or "batch"
        if self.shape is None:
            return f"{where}: {self.kind}"
        dims = "(" + ", ".join(map(str, self.shape)) + ("," if len(self.shape) == 1 else "") + ")"
        if self.kind in ("tensor", "ndarray"):
            return f"{where}: {self.dtype} {dims}"
        return f"{where}: {self.kind}[{self.dtype}] {dims}"


Signature = tuple  # tuple[Leaf, ...]


def _key_text(key: Any) -> str:
    return key if isinstance(key, str) else repr(key)


def _sorted_items(mapping: Mapping) -> list:
    # Sort by the key's text, then its type name, so mixed key types never fail to compare.
    return sorted(mapping.items(), key=lambda kv: (_key_text(kv[0]), type(kv[0]).__name__))


def _join(parent: str, key: Any) -> str:
    text = _key_text(key)
    if not parent and isinstance(key, str) and key.isidentifier():
        return key  # top-level batch keys read best bare: input_ids, labels
    return f"{parent}[{text!r}]" if isinstance(key, str) else f"{parent}[{text}]"


def _tensor_type():
    torch = sys.modules.get("torch")  # never import torch here: no tensor can exist without it
    return torch.Tensor if torch is not None else None


def _ndarray_type():
    numpy = sys.modules.get("numpy")
    return (numpy.ndarray, numpy.generic) if numpy is not None else None


def _dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def batch_signature(batch: Any) -> Signature:
    """The signature of one batch: a tuple of Leaf, deterministic across processes."""
    leaves: list[Leaf] = []
    _walk(batch, "", leaves, _tensor_type(), _ndarray_type(), depth=0)
    return tuple(leaves)


def _walk(x, path, out, tensor_type, array_types, depth) -> None:
    if depth > 32:  # a self-referencing structure; it has no shape to speak of
        out.append(Leaf(path, type(x).__name__, "", None))
        return
    if tensor_type is not None and isinstance(x, tensor_type):
        out.append(Leaf(path, "tensor", _dtype_name(x.dtype), tuple(int(d) for d in x.shape)))
    elif array_types is not None and isinstance(x, array_types):
        out.append(Leaf(path, "ndarray", str(x.dtype), tuple(int(d) for d in x.shape)))
    elif isinstance(x, _SCALARS):
        out.append(Leaf(path, type(x).__name__ if x is not None else "None", "", None))
    elif isinstance(x, Mapping):  # dict, OrderedDict, transformers BatchEncoding (a UserDict)...
        for key, value in _sorted_items(x):
            _walk(value, _join(path, key), out, tensor_type, array_types, depth + 1)
    elif isinstance(x, tuple) and hasattr(type(x), "_fields"):  # namedtuple
        for name in type(x)._fields:
            _walk(getattr(x, name), f"{path}.{name}", out, tensor_type, array_types, depth + 1)
    elif dataclasses.is_dataclass(x) and not isinstance(x, type):
        for field in dataclasses.fields(x):
            _walk(getattr(x, field.name), f"{path}.{field.name}", out, tensor_type, array_types, depth + 1)
    elif isinstance(x, (list, tuple)):
        element_types = {type(v) for v in x}
        if x and all(issubclass(t, _SCALARS) for t in element_types):
            # A list of ids or labels: its length matters (it may become a tensor size), its values not.
            names = sorted(t.__name__ for t in element_types)
            out.append(Leaf(path, type(x).__name__, "|".join(names), (len(x),)))
        elif not x:
            out.append(Leaf(path, type(x).__name__, "", (0,)))
        else:
            for i, value in enumerate(x):
                _walk(value, f"{path}[{i}]", out, tensor_type, array_types, depth + 1)
    else:
        out.append(Leaf(path, type(x).__name__, "", None))


def describe(signature: Signature) -> str:
    """One line, readable and stable: `[0]: float32 (7, 64); [1]: int64 (7,)`."""
    return "; ".join(leaf.describe() for leaf in signature) or "(empty batch)"


def compact(signature: Signature):
    """The guides' table form: a tuple of shapes, with mapping keys as their names (never hashes)."""
    if len(signature) == 1 and not signature[0].path:
        return signature[0].shape
    parts = []
    for leaf in signature:
        shape = leaf.shape if leaf.shape is not None else leaf.kind
        parts.append((leaf.path, shape) if leaf.path and not leaf.path.startswith("[") else shape)
    return tuple(parts)


def to_json(signature: Signature) -> list[dict]:
    return [{"path": leaf.path, "kind": leaf.kind, "dtype": leaf.dtype,
             "shape": list(leaf.shape) if leaf.shape is not None else None} for leaf in signature]
