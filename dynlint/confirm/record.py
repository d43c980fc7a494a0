"""The record run: the user's model on the user's batches, for a bounded number of steps.

While it runs, the tracker builds the per-step table (when the backend can),
the observer collects data-dependent ops, and the capturer keeps a bounded
number of input snapshots for every module that will be replayed.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import torch

from .findings import ConfirmError
from .observe import user_frame
from .replay import Capture
from .values import nbytes, signature, snapshot, tensors_in


class ModelError(ConfirmError):
    """The user's model raised while we ran it."""


class Capturer:
    """Keeps at most `per_module` snapshots per module and `max_bytes` in total.

    When a module's quota is full, a call with an input shape not yet kept
    replaces a duplicate: distinct shapes are worth more to the replay.

    Modules in `wanted` (their class holds a finding) are captured on every call.  While
    `probing` (the first recorded step), every other module call is snapshotted tentatively
    and kept only if a data-dependent op ran in the module's own code during that call
    (a free function it called, say): such a module is replayed from step 0 on, with the
    same inputs under every backend.
    """

    def __init__(self, wanted: set[str], per_module: int, max_bytes: int, observer):
        self.wanted = wanted
        self.per_module = per_module
        self.max_bytes = max_bytes
        self.observer = observer
        self.kept: dict[str, list[Capture]] = {}
        self.bytes = 0
        self.dropped_for_memory: dict[str, int] = {}
        self.probing = False
        self.active = True  # off during the warm-up: its inputs are the same as step 0's

    def __call__(self, name: str, module, args: tuple, kwargs: dict, tracker) -> Capture | None:
        if self.per_module <= 0 or not self.active:
            return None
        if name in self.wanted:
            in_sig = signature((args, kwargs))
            if self._slot(name, in_sig) is not False:
                self._keep(name, self._snapshot(args, kwargs, tracker, name, in_sig))
            return None
        if self.probing:
            return self._snapshot(args, kwargs, tracker, name, signature((args, kwargs)))
        return None

    def on_return(self, frame) -> None:
        """Keep a tentative snapshot when the call ran a data-dependent op of its own."""
        cap = frame.capture
        frame.capture = None
        if cap is not None and frame.sites and frame.name not in self.wanted:
            self.wanted.add(frame.name)
            self._keep(frame.name, cap)

    def _snapshot(self, args, kwargs, tracker, name: str, in_sig) -> Capture:
        # Our own clone must not show up as ops of the model.
        self.observer.paused += 1
        try:
            args_copy, kwargs_copy = snapshot((args, kwargs))
        finally:
            self.observer.paused -= 1
        new_in = in_sig not in getattr(tracker, "first_step", {}).get(name, ())
        return Capture(tracker.step, args_copy, kwargs_copy, in_sig, nbytes((args_copy, kwargs_copy)), new_in)

    def _slot(self, name: str, in_sig) -> int | None | bool:
        """None: room left; an index: the duplicate to replace; False: nothing worth keeping."""
        kept = self.kept.setdefault(name, [])
        if len(kept) < self.per_module:
            return None
        if any(c.in_sig == in_sig for c in kept):
            return False
        counts: dict = {}
        for c in kept:
            counts[c.in_sig] = counts.get(c.in_sig, 0) + 1
        victim = next((i for i in range(len(kept) - 1, -1, -1) if counts[kept[i].in_sig] > 1), None)
        return False if victim is None else victim

    def _keep(self, name: str, cap: Capture) -> None:
        victim = self._slot(name, cap.in_sig)
        if victim is False:
            return
        kept = self.kept[name]
        freed = kept[victim].nbytes if victim is not None else 0
        if self.bytes + cap.nbytes - freed > self.max_bytes and not self._make_room(cap.nbytes - freed, name):
            self.dropped_for_memory[name] = self.dropped_for_memory.get(name, 0) + 1
            return
        if victim is not None:
            kept.pop(victim)
        self.bytes += cap.nbytes - freed
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
    arguments, a Mapping (dict, UserDict, BatchEncoding) is keyword arguments; anything else
    (a graph batch object, a dataclass, a namedtuple, a list) is one positional argument,
    passed as it is: model(batch)."""
    if isinstance(batch, Mapping):
        bad = [k for k in batch if not isinstance(k, str)]
        if bad:
            raise ConfirmError(f"batch {step} is a {type(batch).__name__} with non-string keys {bad[:3]!r}; "
                               "a Mapping batch is passed as keyword arguments")
        args, kwargs = (), dict(batch.items())
    elif isinstance(batch, tuple) and not hasattr(batch, "_fields"):
        args, kwargs = batch, {}
    else:
        args, kwargs = (batch,), {}
    if next(tensors_in((args, kwargs)), None) is None:
        raise ConfirmError(
            f"batch {step} holds no tensor (got {type(batch).__name__}: {_short(batch)}); each batch must be "
            "a Tensor, a tuple of positional arguments, a Mapping of keyword arguments, or an object "
            "(dataclass, namedtuple, attributes) holding tensors, passed as model(batch)")
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




def model_error(exc: Exception, step_text: str, module: str | None, locator=None) -> ModelError:
    if module is not None and len(module) > 80:
        module = "..." + module[-77:]  # a very deep module path
    inside = f" inside module {module or '(root)'!r}" if module is not None else ""
    at = user_frame(exc, locator)
    at = f" at {at}" if at else ""
    return ModelError(f"the model raised at {step_text}{inside}{at}: {type(exc).__name__}: {exc}")


def record(model: torch.nn.Module, batches: Iterable, steps: int, backend, tracker, observer,
           after_step=None, warmup: int = 1, capturer: Capturer | None = None) -> int:
    """Run the model; returns the number of steps run.  Raises ModelError if it raises.

    Before step 0, batch 0 runs `warmup` times more: state a model sets on its first call
    (an anchor cache, lazy initialisation) must not pass for data dependence.  The tracker
    keeps the warm-up's rows apart and starts afresh after it.
    """
    run = 0
    with tracker:
        for step, batch in iterate_batches(batches, steps):
            args, kwargs = split_batch(batch, step)
            args, kwargs = backend.to_device((args, kwargs))
            if step == 0 and warmup > 0:
                if capturer is not None:
                    capturer.active = False
                for _ in range(warmup):
                    tracker.step = -1
                    observer.phase = "warm-up"
                    _run_step(model, args, kwargs, backend, tracker, observer, "step 0 (its warm-up run)")
                tracker.end_warmup()
                if capturer is not None:
                    capturer.active = True
            if capturer is not None:
                capturer.probing = step == 0
            tracker.step = step
            observer.phase = f"record:{step}"
            _run_step(model, args, kwargs, backend, tracker, observer, f"step {step}")
            run += 1
            if after_step is not None:
                after_step()
        if capturer is not None:
            capturer.probing = False
    return run


def _run_step(model, args, kwargs, backend, tracker, observer, step_text: str) -> None:
    try:
        with torch.no_grad(), observer:
            model(*args, **kwargs)
        backend.after_step()
    except Exception as exc:
        raise model_error(exc, step_text, tracker.failed_in, observer.locator) from exc
