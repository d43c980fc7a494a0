"""The record run: the user's model on the user's batches, for a bounded number of steps.

While it runs, the tracker builds the per-step table (when the backend can),
the observer collects data-dependent ops, and the capturer keeps a bounded
number of input snapshots for every module that will be replayed.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

from .findings import ConfirmError
from .replay import Capture
from .values import nbytes, signature, snapshot, tensors_in


class ModelError(ConfirmError):
    """The user's model raised while we ran it."""


class Capturer:
    """Keeps at most `per_module` snapshots per module and `max_bytes` in total.

    When a module's quota is full, a call with an input shape not yet kept
    replaces a duplicate: distinct shapes are worth more to the replay.
    """

    def __init__(self, wanted: set[str], per_module: int, max_bytes: int, observer):
        self.wanted = wanted
        self.per_module = per_module
        self.max_bytes = max_bytes
        self.observer = observer
        self.kept: dict[str, list[Capture]] = {}
        self.bytes = 0
        self.dropped_for_memory: dict[str, int] = {}

    def __call__(self, name: str, module, args: tuple, kwargs: dict, tracker) -> None:
        if name not in self.wanted or self.per_module <= 0:
            return
        kept = self.kept.setdefault(name, [])
        in_sig = signature((args, kwargs))
        victim = None
        if len(kept) >= self.per_module:
            if any(c.in_sig == in_sig for c in kept):
                return
            counts: dict = {}
            for c in kept:
                counts[c.in_sig] = counts.get(c.in_sig, 0) + 1
            victim = next((i for i in range(len(kept) - 1, -1, -1) if counts[kept[i].in_sig] > 1), None)
            if victim is None:
                return
        size = nbytes((args, kwargs))
        freed = kept[victim].nbytes if victim is not None else 0
        if self.bytes + size - freed > self.max_bytes and not self._make_room(size - freed, name):
            self.dropped_for_memory[name] = self.dropped_for_memory.get(name, 0) + 1
            return
        # Our own clone must not show up as ops of the model.
        self.observer.paused += 1
        try:
            args_copy, kwargs_copy = snapshot((args, kwargs))
        finally:
            self.observer.paused -= 1
        cap = Capture(tracker.step, args_copy, kwargs_copy, in_sig, size)
        if victim is not None:
            kept.pop(victim)
        self.bytes += size - freed
        kept.append(cap)


    def _make_room(self, needed: int, name: str) -> bool:
        """Evict later snapshots of modules that hold more than `name` does, so that a module
        seen late still gets its first snapshots once the memory cap is reached."""
        mine = len(self.kept.get(name, ()))
        while self.bytes + needed > self.max_bytes:
            richest = max(self.kept, key=lambda n: len(self.kept[n]), default=None)
            if richest is None or len(self.kept[richest]) <= max(mine + 1, 1):
                return False
            self.bytes -= self.kept[richest].pop().nbytes
            self.dropped_for_memory[richest] = self.dropped_for_memory.get(richest, 0) + 1
        return True


def split_batch(batch: Any, step: int) -> tuple[tuple, dict]:
    """The factory contract: a Tensor is one positional argument, a tuple is the positional
    arguments, a dict is keyword arguments; anything else is one positional argument."""
    if isinstance(batch, dict):
        bad = [k for k in batch if not isinstance(k, str)]
        if bad:
            raise ConfirmError(f"batch {step} is a dict with non-string keys {bad[:3]!r}; "
                               "a dict batch is passed as keyword arguments")
        args, kwargs = (), dict(batch)
    elif isinstance(batch, tuple) and not hasattr(batch, "_fields"):
        args, kwargs = batch, {}
    else:
        args, kwargs = (batch,), {}
    if next(tensors_in((args, kwargs)), None) is None:
        raise ConfirmError(
            f"batch {step} holds no tensor (got {type(batch).__name__}: {_short(batch)}); each batch must be "
            "a Tensor, a tuple of positional arguments, or a dict of keyword arguments, containing tensors")
    return args, kwargs


def _short(obj: Any, limit: int = 60) -> str:
    text = repr(obj)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def iterate_batches(batches: Iterable, steps: int):
    if isinstance(batches, torch.Tensor):
        raise ConfirmError("batches is a single Tensor; iterating it would split it along dim 0. "
                           "Return a list of batches instead, e.g. [tensor]")
    try:
        iterator = iter(batches)
    except TypeError:
        raise ConfirmError(f"batches must be iterable (a list, a generator, a DataLoader); "
                           f"got {type(batches).__name__}") from None
    step = 0
    while step < steps:
        try:
            batch = next(iterator)
        except StopIteration:
            return
        except Exception as exc:
            raise ConfirmError(f"producing batch {step} raised {type(exc).__name__}: {exc}") from exc
        yield step, batch
        step += 1


def record(model: torch.nn.Module, batches: Iterable, steps: int, backend, tracker, observer,
           after_step=None) -> int:
    """Run the model; returns the number of steps run.  Raises ModelError if it raises."""
    run = 0
    with tracker:
        for step, batch in iterate_batches(batches, steps):
            args, kwargs = split_batch(batch, step)
            args, kwargs = backend.to_device((args, kwargs))
            tracker.step = step
            observer.phase = f"record:{step}"
            try:
                with torch.no_grad(), observer:
                    model(*args, **kwargs)
                backend.after_step()
            except Exception as exc:
                where = tracker.failed_in
                if where is not None and len(where) > 80:
                    where = "..." + where[-77:]  # a very deep module path
                inside = f" inside module {where or '(root)'!r}" if where is not None else ""
                raise ModelError(f"the model raised at step {step}{inside}: {type(exc).__name__}: {exc}") from exc
            run += 1
            if after_step is not None:
                after_step()
    return run



