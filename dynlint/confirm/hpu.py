"""Intel Gaudi adapter: real graph compilations in lazy mode.

UNTESTED ON HARDWARE.  Written against Intel's documented API
(`habana_frameworks.torch.core.mark_step`,
`habana_frameworks.torch.hpu.metrics.metric_global("graph_compilation")`);
only its logic is unit-tested, against a fake `habana_frameworks`.

A mark_step before and after each module call makes every module call its own
lazy graph (as Intel's detect_recompilation_auto_model does); the growth of the
graph_compilation counter across the call is that call's compile count.
"""
from __future__ import annotations

import os
from typing import Any

from .backend_base import Backend
from .findings import ConfirmError
from .tracker import Detector, Frame


class HpuUnavailable(ConfirmError):
    """No usable Gaudi: habana_frameworks missing, or not in lazy mode."""


def _lazy_mode_on(internal: Any) -> bool:
    probe = getattr(internal, "is_lazy", None)
    if callable(probe):
        return bool(probe())
    return os.environ.get("PT_HPU_LAZY_MODE", "") == "1"


class HpuDetector(Detector):
    def __init__(self, htcore: Any, metric: Any):
        self.htcore = htcore
        self.metric = metric

    def compilations(self) -> int:
        # stats() is a list of [name, value] pairs: TotalNumber, TotalTime, AvgTime.
        return int(dict(self.metric.stats()).get("TotalNumber", 0))

    def begin(self, frame: Frame) -> None:
        # Flush what the parent queued so far: it must not count against this call.
        self.htcore.mark_step()
        frame.state = self.compilations()

    def end(self, frame: Frame, out_sig: Any) -> int:
        self.htcore.mark_step()
        return max(0, self.compilations() - frame.state)


class HpuBackend(Backend):
    name = "hpu"
    device = "hpu"

    def __init__(self) -> None:
        try:
            import habana_frameworks.torch.core as htcore
            from habana_frameworks.torch.hpu.metrics import metric_global
        except ImportError as exc:
            raise HpuUnavailable(f"the hpu backend needs habana_frameworks: {exc}") from exc
        try:
            from habana_frameworks.torch.utils import internal
        except ImportError:
            internal = None
        if not _lazy_mode_on(internal):
            raise HpuUnavailable("the hpu backend needs lazy mode: run with PT_HPU_LAZY_MODE=1 "
                                 "(eager and torch.compile modes do not compile per module)")
        self.htcore = htcore
        self.metric = metric_global("graph_compilation")

    def detector(self) -> Detector:
        return HpuDetector(self.htcore, self.metric)

    def after_step(self) -> None:
        self.htcore.mark_step()
