"""Code that runs in a step's methods but not as part of the step, found by the set-c hand
reading (bench/results/handread_c.md), through the real CLI:

* an opt-in record: `if self.collect_stats:` guarding nothing but Python numbers read from
  tensors and stored into attributes that no code of the module reads back (the step's result
  is the same with the flag off);
* the error path: a branch that always ends by raising, for every rule (a `nonzero` that
  only locates the bad element for the message), unless a path leaves it before the `raise`.

Each false alarm has a twin that stays flagged. The snippets are excerpts of
pytorch-metric-learning 2.9.0 (MIT), gpytorch 1.15.2 (MIT) and torch-geometric 2.8.1 (MIT).
"""
from _tree import findings

# pytorch-metric-learning `miners/angular_miner.py`, excerpted: the miner's statistics are
# kept only under `collect_stats`, in attributes the library's record keeper reads by name.
RECORDS = '''\
import numpy as np
import torch


class AngularMiner(torch.nn.Module):
    def __init__(self, angle=20, collect_stats=False):
        super().__init__()
        self.angle = np.radians(angle)
        self.collect_stats = collect_stats

    def forward(self, angles, threshold_condition):
        self.set_stats(angles, threshold_condition)
        return threshold_condition.nonzero()

    def set_stats(self, angles, threshold_condition):
        if self.collect_stats:
            with torch.no_grad():
                self.average_angle = np.degrees(torch.mean(angles).item())
                if torch.sum(threshold_condition) > 0:
                    self.average_angle_above_threshold = np.degrees(
                        torch.mean(angles[threshold_condition]).item()
                    )


class RunningMiner(torch.nn.Module):
    def __init__(self, collect_stats=False):
        super().__init__()
        self.collect_stats = collect_stats
        self.last_mean = 0.0

    def forward(self, angles):
        self.set_stats(angles)
        return angles * self.last_mean

    def set_stats(self, angles):
        if self.collect_stats:
            self.last_mean = torch.mean(angles).item()


class LoggingMiner(torch.nn.Module):
    def __init__(self, logger, collect_stats=False):
        super().__init__()
        self.collect_stats = collect_stats
        self.logger = logger

    def forward(self, angles):
        if self.collect_stats:
            self.logger.record("angle", torch.mean(angles).item())
        return angles


class ScaledMiner(torch.nn.Module):
    def __init__(self, collect_stats=False):
        super().__init__()
        self.collect_stats = collect_stats

    def forward(self, angles):
        scale = 1.0
        if self.collect_stats:
            scale = torch.mean(angles).item()
            self.scale_seen = scale
        return angles * scale
'''


def _findings(dynlint, path):
    """(line, code) of what `dynlint check` reports on one file."""
    return {(line, code) for _, line, code in findings(dynlint, path.parent, path.name, "--no-cache", "--isolated")}


def test_opt_in_record_is_not_the_step(dynlint, write):
    found = _findings(dynlint, write("miners.py", RECORDS))
    assert (13, "DYN102") in found                    # the miner's own nonzero
    assert not {line for line, _ in found} & set(range(15, 23))   # the record under collect_stats
    assert (37, "DYN201") in found                    # RunningMiner: forward reads last_mean back
    assert (48, "DYN201") in found                    # LoggingMiner: a call for its effect
    assert (60, "DYN201") in found                    # ScaledMiner: the local goes on to the step


# gpytorch `utils/interpolation.py`, excerpted: out-of-range points are located only to word
# the error. torch-geometric `utils/loop.py`, excerpted: the branch ends with `raise`, but its
# `if`s return before it: the mask read runs on the normal path.
ERROR_PATH = '''\
import torch


class Interpolation(torch.nn.Module):
    def forward(self, x_target, grid_mins):
        lt_min_mask = (x_target - grid_mins).lt(-1e-7)
        if lt_min_mask.sum().item():
            first_out_of_range = lt_min_mask.nonzero(as_tuple=False).squeeze(1)[0].item()
            raise RuntimeError("out of bounds at {}".format(first_out_of_range))
        return x_target


class RemoveSelfLoops(torch.nn.Module):
    def forward(self, edge_index, value, layout):
        mask = edge_index[0] != edge_index[1]
        if layout is not None:
            value = value[mask]
            count = int(mask.sum())
            if str(layout) == "torch.sparse_coo":
                return edge_index[:, :count], value
            raise ValueError("Unexpected sparse tensor layout")
        return edge_index[:, mask], value
'''


def test_error_path_is_not_the_step(dynlint, write):
    found = _findings(dynlint, write("interpolation.py", ERROR_PATH))
    assert (7, "DYN201") in found                     # the test itself runs every step
    assert (8, "DYN102") not in found                 # located only for the message
    assert (17, "DYN101") in found                    # a path returns before the raise:
    assert (18, "DYN203") in found                    # the branch runs on the normal path
