"""Public API of `dynlint compiles`: do graph compilations settle?

    with dynlint.compiles.watch() as w:
        for batch in loader:
            train_step(batch)
            w.step()
    w.report().to_dict()   # {"compiles": ..., "steps": [{"step": 0, "compiles": 2}, ...], "settled": ...}

    dynlint.compiles.analyse(["metricslog-rank0.json", "trace_dir"]).to_dict()

Importing this module does not import torch.
"""
from __future__ import annotations

from .inputs.compiles import (
                              CompileEvent,
                              CompileLog,
                              CompileReport,
                              CompilesError,
                              Watch,
                              analyse,
                              mark_step,
                              read,
                              render_text,
                              watch,
)

__all__ = ["CompileEvent", "CompileLog", "CompileReport", "CompilesError", "Watch", "analyse", "mark_step",
           "read", "render_text", "watch"]
