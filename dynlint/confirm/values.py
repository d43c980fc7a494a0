"""Shape signatures, bounded capture and value perturbation of module inputs.

Everything here walks the nested argument structures PyTorch modules receive
(tensors inside tuples, lists, dicts, namedtuples).  The walks are depth-capped
rather than unbounded so that a pathological structure cannot blow the stack.
"""
from __future__ import annotations

from typing import Any

import torch

_MAX_DEPTH = 32

# Scalars that a graph compiler bakes into the graph as constants: a change in
# one of them is a change of graph, just like a new shape.
_SCALARS = (int, float, bool, str, type(None), torch.dtype, torch.device, torch.memory_format, torch.layout)


def signature(obj: Any, depth: int = 0) -> Any:
    """A hashable description of `obj`: shapes and dtypes of tensors, values of scalars."""
    if isinstance(obj, torch.Tensor):
        return (tuple(obj.shape), obj.dtype)
    if isinstance(obj, _SCALARS):
        return obj
    if depth >= _MAX_DEPTH:
        return "..."
    if isinstance(obj, (tuple, list)):
        return tuple(signature(o, depth + 1) for o in obj)
    if isinstance(obj, dict):
        return tuple((k if isinstance(k, _SCALARS) else repr(k), signature(v, depth + 1)) for k, v in obj.items())
    if isinstance(obj, torch.Size):
        return tuple(obj)
    tensors = getattr(obj, "tensors", None)  # torchvision's ImageList and similar holders
    if isinstance(tensors, torch.Tensor):
        return (type(obj).__name__, signature(tensors), signature(getattr(obj, "image_sizes", None), depth + 1))
    return type(obj).__name__


def op_signature(args: tuple, kwargs: dict) -> tuple:
    """Flat, fast variant of `signature` for the per-op hot path of the dispatch mode."""
    out = []
    for a in args:
        if isinstance(a, torch.Tensor):
            out.append((tuple(a.shape), a.dtype))
        elif isinstance(a, (list, tuple)):
            out.append(tuple((tuple(x.shape), x.dtype) if isinstance(x, torch.Tensor) else x for x in a))
        else:
            out.append(a)
    if kwargs:
        for k, v in kwargs.items():
            out.append((k, (tuple(v.shape), v.dtype) if isinstance(v, torch.Tensor) else v))
    return tuple(out)


def describe(sig: Any) -> str:
    """Short human text for a signature, e.g. '[20,1,50,50] f32'."""
    if isinstance(sig, tuple) and len(sig) == 2 and isinstance(sig[1], torch.dtype):
        dims = ",".join(str(d) for d in sig[0])
        return f"[{dims}] {str(sig[1]).replace('torch.', '')}"
    if isinstance(sig, tuple):
        return "(" + ", ".join(describe(s) for s in sig) + ")"
    return repr(sig)


def _map(obj: Any, fn, depth: int = 0) -> Any:
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if depth >= _MAX_DEPTH:
        return obj
    if isinstance(obj, tuple):
        items = [_map(o, fn, depth + 1) for o in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
    if isinstance(obj, list):
        return [_map(o, fn, depth + 1) for o in obj]
    if isinstance(obj, dict):
        try:
            new = type(obj)()
        except TypeError:
            new = {}
        for k, v in obj.items():
            new[k] = _map(v, fn, depth + 1)
        return new
    return obj  # unknown holders are kept by reference: we cannot rebuild them safely


def map_tensors(obj: Any, fn) -> Any:
    return _map(obj, fn)


def tensors_in(obj: Any, depth: int = 0):
    if isinstance(obj, torch.Tensor):
        yield obj
    elif depth < _MAX_DEPTH:
        if isinstance(obj, (tuple, list)):
            for o in obj:
                yield from tensors_in(o, depth + 1)
        elif isinstance(obj, dict):
            for o in obj.values():
                yield from tensors_in(o, depth + 1)
        else:
            inner = getattr(obj, "tensors", None)
            if isinstance(inner, torch.Tensor):
                yield inner


def nbytes(obj: Any) -> int:
    return sum(t.numel() * t.element_size() for t in tensors_in(obj))


def snapshot(obj: Any) -> Any:
    """Detached copy, so later in-place updates by the model cannot alter what we replay."""
    return _map(obj, lambda t: t.detach().clone())


def perturb(obj: Any, generator: torch.Generator) -> Any:
    """Same shapes and dtypes, different values.

    Values are permuted along the first dimension with more than one element,
    so integer indices stay in range and rows (boxes, token ids) stay intact.
    Floats are also scaled, one random factor in [0.75, 1.25] per row, so that
    a threshold such as `x > 0.5` sees a different count even where a
    permutation is invisible to it, while each row keeps its internal order
    (a box stays a valid box).
    """
    return _map(obj, lambda t: _perturb_tensor(t, generator))


def _perturb_tensor(t: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    t = t.detach()
    if t.numel() < 2 or t.is_sparse:
        return t.clone()
    out = t
    dim = next((d for d, size in enumerate(t.shape) if size > 1), None)
    if dim is not None:
        perm = torch.randperm(t.shape[dim], generator=gen).to(t.device)
        out = t.index_select(dim, perm)
    if t.is_floating_point() and dim is not None:
        shape = [1] * t.dim()
        shape[dim] = t.shape[dim]
        factor = 0.75 + 0.5 * torch.rand(shape, generator=gen, dtype=torch.float32)
        out = out * factor.to(device=t.device, dtype=t.dtype)
    return out.clone() if out is t else out
