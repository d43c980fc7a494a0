"""Lengths read from a real loader: `--entry MOD:FACTORY --dim PATH:DIM`. Each batch gives
one length (its size along DIM, i.e. the longest item when the collate pads per batch),
weighted by its batch size, the per-batch histogram buckets are chosen for."""
from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from pathlib import Path

from .histogram import Histogram, LengthsError


def load_factory(entry: str):
    mod_name, sep, attr = entry.partition(":")
    if not sep or not mod_name or not attr:
        raise LengthsError(f"--entry expects MODULE:FACTORY, got {entry!r}")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))   # like `python -m`: modules next to the user
    try:
        module = importlib.import_module(mod_name)
        factory = getattr(module, attr)
    except Exception as exc:  # noqa: BLE001 - any import-time failure is the user's, report it
        raise LengthsError(f"cannot load {entry}: {type(exc).__name__}: {exc}") from None
    return factory


def parse_dim(spec: str | None):
    if spec is None:
        return None, -1
    path, sep, dim = spec.rpartition(":")
    if not sep:
        raise LengthsError(f"--dim expects PATH:DIM (e.g. input_ids:1), got {spec!r}")
    try:
        return path, int(dim)
    except ValueError:
        raise LengthsError(f"--dim: the dimension must be an integer, got {dim!r}") from None


def _leaf(batch, path):
    if path is None:
        return _first_array(batch)
    if isinstance(batch, Mapping):
        if path not in batch:
            raise LengthsError(f"--dim: batch has no key {path!r} (keys: {sorted(map(str, batch))})")
        return batch[path]
    if isinstance(batch, (tuple, list)) and path.lstrip("-").isdigit():
        return batch[int(path)]
    raise LengthsError(f"--dim: cannot find {path!r} in a {type(batch).__name__} batch")


def _first_array(batch):
    if hasattr(batch, "shape"):
        return batch
    items = batch.values() if isinstance(batch, Mapping) else batch if isinstance(batch, (list, tuple)) else ()
    for item in items:
        if hasattr(item, "shape") and len(item.shape) >= 1:
            return item
    raise LengthsError("no tensor in the batch; name one with --dim PATH:DIM")


def lengths_from_entry(entry: str, dim_spec: str | None, max_batches: int | None):
    factory = load_factory(entry)
    path, dim = parse_dim(dim_spec)
    try:
        loader = factory()
        lengths, sizes = [], []
        for i, batch in enumerate(loader):
            if max_batches is not None and i >= max_batches:
                break
            leaf = _leaf(batch, path)
            shape = tuple(leaf.shape)
            if len(shape) < 2 and dim not in (0, -1):
                raise LengthsError(f"--dim: leaf has shape {shape}, no dimension {dim}")
            lengths.append(int(shape[dim]))
            sizes.append(int(shape[0]) if len(shape) >= 2 else 1)
    except LengthsError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's factory or loader failed
        raise LengthsError(f"{entry} failed: {type(exc).__name__}: {exc}") from None
    if not lengths:
        raise LengthsError(f"{entry}: the loader yielded no batches")
    hist = Histogram.from_lengths(lengths, sizes)
    return hist, hist
