"""Public API of `dynlint shapes`: scan a data loader for input dynamicity.

    r = dynlint.shapes.scan(loader, max_batches=1000)
    r.to_dict()["unique_shapes"], r.to_dict()["verdict"]
    dynlint.shapes.data_dynamicity(loader)   # the guides' drop-in report

Importing this module does not import torch.
"""
from __future__ import annotations

from .inputs.analysis import habana_verdict
from .inputs.distributed import simulate as simulate_ranks
from .inputs.distributed import worst_case_stalls
from .inputs.shapes import EmptyLoader, ScanError, ScanResult, data_dynamicity, scan
from .inputs.signature import Leaf, batch_signature, describe

__all__ = ["EmptyLoader", "Leaf", "ScanError", "ScanResult", "batch_signature", "data_dynamicity", "describe",
           "habana_verdict", "scan", "simulate_ranks", "worst_case_stalls"]
