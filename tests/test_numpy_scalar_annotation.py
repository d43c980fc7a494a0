"""A numpy scalar type as a declared result (session 31, hand-read set b's bit-flipping
environment): a method declared `-> np.float32` hands back a numpy scalar, whose `.item()` is
numpy's, not a tensor read (`annotations._NUMPY_SCALARS`, as `-> np.ndarray` already was),
through the real CLI. A method declared `-> torch.Tensor` and one declared nothing stay.
"""
import json

# stable-baselines3 2.9.2 (MIT) `common/envs/bit_flipping_env.py` `BitFlippingEnv.step` and
# `compute_reward`, reduced; the method is defined below its caller, as there.
SOURCE = '''\
import numpy as np
import torch


class Env(torch.nn.Module):
    def forward(self, obs):
        reward = float(self.compute_reward(obs["achieved_goal"], obs["desired_goal"], None).item())
        cost = self.compute_cost(obs["achieved_goal"]).item()
        other = self.compute_other(obs["achieved_goal"]).item()
        return reward, cost, other

    def compute_reward(self, achieved_goal, desired_goal, _info) -> np.float32:
        distance = np.linalg.norm(achieved_goal - desired_goal, axis=-1)
        return -(distance > 0).astype(np.float32)

    def compute_cost(self, achieved_goal) -> torch.Tensor:
        return achieved_goal.float().sum()

    def compute_other(self, achieved_goal):
        return achieved_goal.float().sum()
'''


def _line(text, needle):
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_item_of_a_declared_numpy_scalar_is_no_tensor_read(dynlint, write):
    path = write("bit_flipping_env.py", SOURCE)
    proc = dynlint("check", "--format", "json", "--no-cache", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    found = {(f["line"], f["code"]) for f in json.loads(proc.stdout)}
    assert _line(SOURCE, "reward = float(self.compute_reward(") not in {line for line, _ in found}, found
    assert (_line(SOURCE, "cost = self.compute_cost("), "DYN201") in found, found
    assert (_line(SOURCE, "other = self.compute_other("), "DYN201") in found, found


def test_numpy_scalar_annotations():
    import ast

    from dynlint.analysis import kinds as K
    from dynlint.analysis.annotations import annotation_kind

    def kind(text):
        return annotation_kind(ast.parse(text, mode="eval").body)

    assert kind("np.float32") & K.ARRAY and K.level(kind("np.float32")) == K.NOT
    assert kind("Optional[numpy.int64]") & K.ARRAY
    # a dtype of torch spelled alike, a tensor: unchanged
    assert not kind("torch.float32") & K.ARRAY
    assert K.level(kind("torch.Tensor")) != K.NOT
