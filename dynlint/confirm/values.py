"""Shape signatures, bounded capture and value perturbation of module inputs.

Everything here walks the nested argument structures PyTorch modules receive
(tensors inside tuples, lists, Mappings, namedtuples, dataclasses and
objects holding tensors as attributes).  The walks are depth-capped
rather than unbounded so that a pathological structure cannot blow the stack.
"""
from __future__ import annotations

import copy
import dataclasses
import types
from collections.abc import Mapping
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
    if isinstance(obj, torch.Size):
        return tuple(obj)
    if depth >= _MAX_DEPTH:
        return "..."
    if isinstance(obj, (tuple, list)):
        return tuple(signature(o, depth + 1) for o in obj)
    items = holder_items(obj)
    if items is None:
        return type(obj).__name__
    body = tuple((k if isinstance(k, _SCALARS) else repr(k), signature(v, depth + 1)) for k, v in items)
    return body if isinstance(obj, dict) else (type(obj).__name__, body)


def _op_arg(a: Any) -> Any:
    if isinstance(a, torch.Tensor):
        return (tuple(a.shape), a.dtype)
    if isinstance(a, _SCALARS):
        return a
    # Storages, generators, opaque objects: equal by identity only, which would make every call
    # look new; what the graph sees of them is their kind.
    return type(a).__name__


def op_signature(args: tuple, kwargs: dict) -> tuple:
    """Flat, fast variant of `signature` for the per-op hot path of the dispatch mode."""
    out = []
    for a in args:
        if isinstance(a, (list, tuple)):
            out.append(tuple(_op_arg(x) for x in a))
        else:
            out.append(_op_arg(a))
    if kwargs:
        for k, v in kwargs.items():
            out.append((k, _op_arg(v)))
    return tuple(out)


def describe(sig: Any) -> str:
    """Short human text for a signature, e.g. '[20,1,50,50] f32'."""
    if isinstance(sig, tuple) and len(sig) == 2 and isinstance(sig[1], torch.dtype):
        dims = ",".join(str(d) for d in sig[0])
        return f"[{dims}] {str(sig[1]).replace('torch.', '')}"
    if isinstance(sig, tuple):
        return "(" + ", ".join(describe(s) for s in sig) + ")"
    return repr(sig)


# Objects we never look inside: code, classes, modules, and anything callable (an nn.Module,
# a tokenizer): only plain data holders (a graph batch, a dataclass, an ImageList) are walked.
_OPAQUE = (type, types.ModuleType, types.FunctionType, types.MethodType, torch.nn.Module, torch.Generator)
_MAX_ATTRS = 256


def holder_items(obj: Any) -> list[tuple[Any, Any]] | None:
    """(key, value) pairs of a container that is not a tuple or list: any Mapping, a dataclass,
    or an object holding its data as attributes (__dict__ and __slots__); None for anything else."""
    if isinstance(obj, Mapping):
        try:
            return list(obj.items())
        except Exception:  # a Mapping whose items() needs more than we know
            return None
    if isinstance(obj, _OPAQUE) or callable(obj):
        return None
    if dataclasses.is_dataclass(obj):
        return [(f.name, getattr(obj, f.name, None)) for f in dataclasses.fields(obj)]
    items: dict[str, Any] = {}
    attrs = getattr(obj, "__dict__", None)
    if isinstance(attrs, dict):
        items.update(attrs)
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and name not in items and hasattr(obj, name):
                items[name] = getattr(obj, name)
    if not items or len(items) > _MAX_ATTRS:
        return None
    return list(items.items())


def _rebuild(obj: Any, items: list[tuple[Any, Any]]) -> Any:
    """A copy of the holder `obj` with new values; the same type wherever we can make one."""
    if isinstance(obj, Mapping):
        try:
            new = copy.copy(obj)
            for k, v in items:
                new[k] = v
            return new
        except Exception:  # read-only Mappings, or ones whose copy shares state we cannot set
            return dict(items)
    new = copy.copy(obj)
    for k, v in items:
        object.__setattr__(new, k, v)  # frozen dataclasses too
    return new


def _map(obj: Any, fn, depth: int = 0) -> Any:
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if depth >= _MAX_DEPTH or isinstance(obj, _SCALARS):
        return obj
    if isinstance(obj, tuple):
        items = [_map(o, fn, depth + 1) for o in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
    if isinstance(obj, list):
        return [_map(o, fn, depth + 1) for o in obj]
    items = holder_items(obj)
    if items is None:
        return obj  # unknown: kept by reference
    new = [(k, _map(v, fn, depth + 1)) for k, v in items]
    if type(obj) is dict:
        return dict(new)
    if all(n is v for (_, n), (_, v) in zip(new, items)):
        return obj  # holds no tensor: nothing to rebuild
    return _rebuild(obj, [(k, n) for (k, n), (_, v) in zip(new, items) if n is not v])


def map_tensors(obj: Any, fn) -> Any:
    return _map(obj, fn)


def tensors_in(obj: Any, depth: int = 0):
    if isinstance(obj, torch.Tensor):
        yield obj
    elif depth < _MAX_DEPTH and not isinstance(obj, _SCALARS):
        if isinstance(obj, (tuple, list)):
            for o in obj:
                yield from tensors_in(o, depth + 1)
        else:
            for _, o in holder_items(obj) or ():
                yield from tensors_in(o, depth + 1)


def nbytes(obj: Any) -> int:
    return sum(t.numel() * t.element_size() for t in tensors_in(obj))


def snapshot(obj: Any) -> Any:
    """Detached copy, so later in-place updates by the model cannot alter what we replay."""
    return _map(obj, lambda t: t.detach().clone())


def perturb(obj: Any, generator: torch.Generator) -> Any:
    """Same shapes and dtypes, different values that stay valid inputs.

    - bool masks: about a third of the elements flipped, so the count of True changes;
    - 1-D sorted integer tensors with repeats (a graph batch vector): new segment sizes,
      still sorted, every value still present; strictly increasing ones (offsets, positions,
      aranges) describe structure rather than data and are kept;
    - other integers, and floats that hold only whole numbers (indices stored as float):
      resampled along their longest dimension (the one that varies: E of a (2, E) edge
      index, L of token ids) among the values observed in the same slice, so an index stays
      within the range of what it indexes while counts, maxima and uniques change;
    - floats: rows (first dimension with more than one element) permuted and scaled by one
      factor in [0.75, 1.25] per row, so a row keeps its internal order (a box stays a valid
      box); whole-number columns (a batch index column) are moved with their row, not scaled.
    """
    return _map(obj, lambda t: _perturb_tensor(t, generator))


def _perturb_tensor(t: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    t = t.detach()
    if t.numel() < 2 or t.is_sparse or t.is_quantized or t.is_complex():
        return t.clone()
    if t.dtype == torch.bool:
        flip = torch.rand(t.shape, generator=gen) < 1 / 3
        return t ^ flip.to(t.device)
    if not t.is_floating_point():
        return _perturb_whole_numbers(t, gen)
    whole = t == t.round()
    if bool(whole.all()):
        return _perturb_whole_numbers(t, gen)
    dim = next(d for d, size in enumerate(t.shape) if size > 1)
    perm = torch.randperm(t.shape[dim], generator=gen).to(t.device)
    out = t.index_select(dim, perm)
    shape = [1] * t.dim()
    shape[dim] = t.shape[dim]
    factor = (0.75 + 0.5 * torch.rand(shape, generator=gen, dtype=torch.float32)).to(t.device, t.dtype)
    if t.dim() >= 2 and dim != t.dim() - 1:
        # Whole-number columns (batch indices beside box coordinates) keep their values.
        column_whole = whole.reshape(-1, t.shape[-1]).all(0)
        factor = torch.where(column_whole, torch.ones((), dtype=t.dtype, device=t.device), factor)
    return out * factor


def _perturb_whole_numbers(t: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    if t.dim() == 1:
        steps = t[1:] - t[:-1]
        if bool((steps > 0).all()):
            return t.clone()  # offsets, positions: structure, not data
        if bool((steps >= 0).all()):
            # A batch vector: new segment sizes, each segment kept non-empty, still sorted.
            values = torch.unique_consecutive(t)
            extra = values[torch.randint(len(values), (t.numel() - len(values),), generator=gen).to(t.device)]
            return torch.cat([values, extra]).sort().values
    dim = max(range(t.dim()), key=lambda d: t.shape[d])
    rows = t.movedim(dim, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    picks = torch.randint(flat.shape[1], flat.shape, generator=gen).to(t.device)
    return flat.gather(1, picks).reshape(rows.shape).movedim(-1, dim).contiguous()
