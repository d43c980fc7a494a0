"""Choosing K: each bucket is one more shape to compile, each padded position is compute
thrown away. With W ranks the worst case is W*(K-1)+1 compile stalls (a new shape on one rank
stalls the others, the guides' N*(S-1)+1 bound); padding is paid every epoch, split over ranks.

    seconds(K) = compile_seconds * (W*(K-1) + 1) + waste(K) * token_seconds * epochs / W

waste(K) is the optimal padding from one DP run, so the whole curve is exact."""
from __future__ import annotations

from dataclasses import asdict, dataclass

# Compile time per shape: the HabanaAI/vllm-fork#201 warm-up log shows 15-40 s per bucket on
# Gaudi; torch.compile on GPU is similar for a mid-size model. A padded position costs about
# what a real one does: 1 us is a mid-size model at ~1M tokens/s. Both are overridable.
DEFAULT_COMPILE_SECONDS = 20.0
DEFAULT_TOKEN_SECONDS = 1e-6


@dataclass
class CostInputs:
    compile_seconds: float = DEFAULT_COMPILE_SECONDS
    token_seconds: float = DEFAULT_TOKEN_SECONDS
    epochs: float = 1.0
    world_size: int = 1

    def validate(self) -> None:
        if self.compile_seconds < 0 or self.token_seconds < 0 or self.epochs <= 0:
            raise ValueError("compile seconds and token seconds must be >= 0, epochs > 0")
        if self.world_size < 1:
            raise ValueError(f"world size must be >= 1, got {self.world_size}")


def seconds(k: int, objective: float, inputs: CostInputs) -> tuple[float, float]:
    """(compile seconds, padding seconds) for K buckets whose padding costs `objective`."""
    w = inputs.world_size
    compile_s = inputs.compile_seconds * (w * (k - 1) + 1)
    padding_s = objective * inputs.token_seconds * inputs.epochs / w
    return compile_s, padding_s


def recommend(curve, inputs: CostInputs) -> dict:
    """The K (from the optimal buckets for K = 1..k_max) with the least total seconds."""
    inputs.validate()
    rows = []
    for b in curve:
        compile_s, padding_s = seconds(b.k, b.objective, inputs)
        rows.append({"k": b.k, "shapes": b.shapes, "waste": b.waste,
                     "compile_seconds": round(compile_s, 3), "padding_seconds": round(padding_s, 3),
                     "total_seconds": round(compile_s + padding_s, 3)})
    best = min(rows, key=lambda r: (r["compile_seconds"] + r["padding_seconds"], r["k"]))
    chosen = next(b for b in curve if b.k == best["k"])
    return {"k": best["k"], "boundaries": chosen.boundaries, "inputs": asdict(inputs),
            "formula": "compile_seconds*(world_size*(K-1)+1) + waste(K)*token_seconds*epochs/world_size",
            "curve": rows}
