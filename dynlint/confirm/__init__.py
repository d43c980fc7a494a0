"""dynlint confirm: run the model and prove or clear static findings.

`import dynlint.confirm` does not import torch; the work is in submodules.
The package itself is callable, so that `dynlint.confirm(model, batches,
paths=[...])` works whether `dynlint.confirm` resolves to this package or to
the function.
"""
from __future__ import annotations

import sys
import types


def run_confirm(model, batches, paths=(), **options):
    """See dynlint.confirm.run.run_confirm."""
    from .run import run_confirm as _run

    return _run(model, batches, paths, **options)


def __getattr__(name):
    if name in ("ConfirmResult", "DEFAULT_STEPS"):
        from . import run
        return getattr(run, name)
    if name == "ConfirmError":
        from .findings import ConfirmError
        return ConfirmError
    if name == "ModelError":
        from .record import ModelError
        return ModelError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _CallableModule(types.ModuleType):
    def __call__(self, model, batches, paths=(), **options):
        return run_confirm(model, batches, paths, **options)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["ConfirmError", "ConfirmResult", "ModelError", "run_confirm"]
