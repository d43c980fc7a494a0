"""torchrl 0.14.1 (reinforcement learning: environments, collectors, replay buffers, losses, value
estimators; on tensordict 0.14.3): policies and critics as tiny MLPs with random weights, on torchrl's
own pure-torch environments (`PendulumEnv`, `TicTacToeEnv`; no gym, nothing downloaded) and on seeded
synthetic transition batches. Random initialisation, seeded.

Installed for suite i in a separate venv (/work/venv_i, which also sees the shared heavy venv's torch
2.14.1 through a .pth): torchrl 0.14.1 (tensordict 0.14.3, pyvers, orjson). Only torchrl's files count
(tensordict is its container library, like torch: an op inside it is attributed to the torchrl frame
that called it).

The step is what an RL training script runs every iteration:

* collection (eval phase, no_grad): `env.rollout(...)` with the policy, or a `Collector`
  batch (the environment's `step`/`reset` with its transforms, the policy's exploration module,
  done/terminated bookkeeping, `step_mdp`);
* update (train phase): the value estimator (GAE / TD(lambda)) on a batch, the loss module, `backward`,
  `optimizer.step()`, the target-network updater, the replay buffer's sample and priority update.

Transition batches passed to the step are device tensors as in a GPU run (their leaves are passed along
as step inputs so the recorder's provenance sees them); the environments are given `gt.DEVICE`.
"""
from __future__ import annotations

import torch
from torch import nn

from . import DEVICE, gen, step

OBS, ACT, B = 3, 1, 32
PEND_OBS = 2      # the pendulum's observation: angle and angular velocity


def _leaves(td):
    """The tensors of a TensorDict, passed with it so that the recorder marks them as step inputs."""
    return [v for v in td.values(include_nested=True, leaves_only=True) if isinstance(v, torch.Tensor)]


def _learn(total, opt, *updaters, clip=None):
    """The update's tail: backward, optional clipping, the optimizer, the target-network updaters."""
    total.backward()
    if clip is not None:
        torch.nn.utils.clip_grad_norm_(clip, 1.0)
    opt.step()
    opt.zero_grad()
    for upd in updaters:
        upd.step()
    return total.detach()


def _mlp(i, o, h=16):
    return nn.Sequential(nn.Linear(i, h), nn.Tanh(), nn.Linear(h, o))


class _Q(nn.Module):
    """Q(s, a) from the observation and the action (two inputs, as torchrl's ValueOperator passes them)."""

    def __init__(self, obs=OBS, act=ACT):
        super().__init__()
        self.net = _mlp(obs + act, 1)

    def forward(self, obs, act):
        return self.net(torch.cat([obs, act], -1))


def _gaussian_actor(env=None, obs=OBS, act=ACT, low=-2.0, high=2.0):
    from tensordict.nn import NormalParamExtractor, TensorDictModule
    from torchrl.modules import ProbabilisticActor, TanhNormal
    net = nn.Sequential(_mlp(obs, 2 * act), NormalParamExtractor())
    mod = TensorDictModule(net, in_keys=["observation"], out_keys=["loc", "scale"])
    spec = env.action_spec if env is not None else None
    return ProbabilisticActor(mod, in_keys=["loc", "scale"], distribution_class=TanhNormal,
                              distribution_kwargs={"low": low, "high": high}, return_log_prob=True,
                              spec=spec)


def _spec():
    from torchrl.data import Bounded
    return Bounded(-2.0, 2.0, (ACT,))


def _pendulum(max_steps=None, transforms=True):
    from torchrl.envs import CatTensors, Compose, RewardSum, StepCounter, TransformedEnv, UnsqueezeTransform
    from torchrl.envs.custom.pendulum import PendulumEnv
    base = PendulumEnv(device=DEVICE)
    ts = [UnsqueezeTransform(-1, in_keys=["th", "thdot"], in_keys_inv=["th", "thdot"]),
          CatTensors(in_keys=["th", "thdot"], out_key="observation", del_keys=False)]
    if transforms:
        ts += [StepCounter(max_steps=max_steps), RewardSum()]
    env = TransformedEnv(base, Compose(*ts))
    env.set_seed(0)
    return env


def _synthetic(seed, n=B, discrete=None, obs=OBS, act=ACT):
    """A batch of transitions (seeded): observation, action, next reward/done/terminated/observation."""
    from tensordict import TensorDict
    g = gen(seed)
    done = torch.rand(n, 1, generator=g) < 0.15
    if discrete:
        a = torch.randint(0, discrete, (n,), generator=g)
        action = torch.nn.functional.one_hot(a, discrete).to(torch.long)
    else:
        action = torch.rand(n, act, generator=g) * 4 - 2
    return TensorDict({
        "observation": torch.randn(n, obs, generator=g),
        "action": action,
        "next": {"observation": torch.randn(n, obs, generator=g),
                 "reward": torch.randn(n, 1, generator=g),
                 "done": done, "terminated": done.clone(), "truncated": torch.zeros(n, 1, dtype=torch.bool)},
        "done": torch.zeros(n, 1, dtype=torch.bool), "terminated": torch.zeros(n, 1, dtype=torch.bool),
    }, batch_size=[n])


def ppo():
    """PPO on the pendulum: collection `env.rollout(16, actor)` (StepCounter truncation, RewardSum);
    update: GAE, ClipPPOLoss (entropy bonus, clipped value loss), backward, clipping, Adam."""
    from torchrl.modules import ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE
    torch.manual_seed(0)
    env = _pendulum(max_steps=10)
    actor = _gaussian_actor(env, obs=PEND_OBS)
    critic = ValueOperator(_mlp(PEND_OBS, 1), in_keys=["observation"])
    gae = GAE(gamma=0.99, lmbda=0.95, value_network=critic, average_gae=True)
    loss = ClipPPOLoss(actor, critic, clip_value=True, entropy_coeff=1e-3)
    opt = torch.optim.Adam(loss.parameters(), 1e-3)
    with torch.no_grad():
        data = env.rollout(24, actor, break_when_any_done=False)

    def run(data, leaves):
        if not loss.training:
            return env.rollout(24, actor, break_when_any_done=False)
        with torch.no_grad():
            gae(data)
        out = loss(data)
        total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
        return _learn(total, opt, clip=loss.parameters())
    args = ((data, _leaves(data)), {})
    return step(run, eval_runs=args, train_runs=args, loss=loss)


def collector_a2c():
    """A2C with a Collector on the pendulum (frames_per_batch 16, two batches; split
    trajectories); update: TD(lambda) advantage, A2CLoss, Adam."""
    from torchrl.collectors import Collector
    from torchrl.modules import ValueOperator
    from torchrl.objectives import A2CLoss
    from torchrl.objectives.value import TDLambdaEstimator
    torch.manual_seed(1)
    env = _pendulum(max_steps=7)
    actor = _gaussian_actor(env, obs=PEND_OBS)
    critic = ValueOperator(_mlp(PEND_OBS, 1), in_keys=["observation"])
    loss = A2CLoss(actor, critic)
    est = TDLambdaEstimator(gamma=0.99, lmbda=0.9, value_network=critic)
    opt = torch.optim.Adam(loss.parameters(), 1e-3)
    coll = Collector(env, actor, frames_per_batch=16, total_frames=-1, split_trajs=True,
                             device=DEVICE)
    it = iter(coll)
    data = next(it).reshape(-1)
    data = data[data["collector", "mask"]] if ("collector", "mask") in data.keys(True) else data

    def run(data, leaves):
        if not loss.training:
            return [next(it) for _ in range(2)]
        with torch.no_grad():
            est(data)
        out = loss(data)
        total = out["loss_objective"] + out["loss_critic"]
        return _learn(total, opt)
    args = ((data, _leaves(data)), {})
    return step(run, eval_runs=args, train_runs=args, loss=loss)


def sac_prb():
    """SAC on transitions from a prioritized replay buffer: sample, SACLoss (two Q-nets, learned
    temperature), Adam, SoftUpdate, the priority update from the loss's TD error. Eval: deterministic actor
    on a batch."""
    from torchrl.data import LazyTensorStorage, TensorDictPrioritizedReplayBuffer
    from torchrl.envs.utils import ExplorationType, set_exploration_type
    from torchrl.modules import ValueOperator
    from torchrl.objectives import SACLoss, SoftUpdate
    torch.manual_seed(2)
    actor = _gaussian_actor()
    qnet = ValueOperator(_Q(), in_keys=["observation", "action"])
    loss = SACLoss(actor, qnet, num_qvalue_nets=2, action_spec=_spec())
    loss.make_value_estimator(gamma=0.99)
    upd = SoftUpdate(loss, eps=0.99)
    opt = torch.optim.Adam(loss.parameters(), 1e-3)
    rb = TensorDictPrioritizedReplayBuffer(alpha=0.7, beta=0.5, storage=LazyTensorStorage(256), batch_size=16,
                                           priority_key="td_error")
    rb.extend(_synthetic(21, 96))
    obs = _synthetic(22, 16)

    def run(obs, leaves):
        if not loss.training:
            with set_exploration_type(ExplorationType.DETERMINISTIC):
                return actor(obs.clone())
        batch = rb.sample()
        out = loss(batch)
        total = out["loss_actor"] + out["loss_qvalue"] + out["loss_alpha"]
        _learn(total, opt, upd)
        rb.update_tensordict_priority(batch)
        return total.detach()
    args = ((obs, _leaves(obs)), {})
    return step(run, eval_runs=args, train_runs=args, loss=loss)


def dqn_tictactoe():
    """DQN on TicTacToe: collection by `env.rollout` with a QValueActor and epsilon-greedy exploration
    (action masks); update: DQNLoss (double DQN, smooth L1), HardUpdate, Adam on a replay-buffer sample."""
    from tensordict.nn import TensorDictSequential
    from torchrl.data import LazyTensorStorage, ReplayBuffer
    from torchrl.envs.custom.tictactoeenv import TicTacToeEnv
    from torchrl.modules import EGreedyModule, QValueActor
    from torchrl.objectives import DQNLoss, HardUpdate
    torch.manual_seed(3)
    env = TicTacToeEnv(device=DEVICE, single_player=True)
    env.set_seed(3)

    class Flat(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = _mlp(9, 9, 24)

        def forward(self, board):
            return self.net(board.flatten(-2).float())
    qnet = QValueActor(Flat(), in_keys=["board"], spec=env.action_spec)
    explore = EGreedyModule(env.action_spec, eps_init=0.5, action_mask_key="mask")
    policy = TensorDictSequential(qnet, explore)
    loss = DQNLoss(qnet, action_space=env.action_spec, delay_value=True, double_dqn=True)
    loss.set_keys(reward=("player0", "reward"))
    loss.make_value_estimator(gamma=0.9)
    upd = HardUpdate(loss, value_network_update_interval=1)
    opt = torch.optim.Adam(loss.parameters(), 1e-3)
    rb = ReplayBuffer(storage=LazyTensorStorage(128), batch_size=16)
    with torch.no_grad():
        rb.extend(env.rollout(40, policy, break_when_any_done=False).reshape(-1))
    start = env.reset()

    def run(start, leaves):
        if not loss.training:
            return env.rollout(12, policy, break_when_any_done=False)
        batch = rb.sample()
        out = loss(batch)
        return _learn(out["loss"], opt, upd)
    args = ((start, _leaves(start)), {})
    return step(run, eval_runs=args, train_runs=args, loss=loss, policy=policy)


def td3():
    """TD3 on synthetic transitions: TD3Loss (target policy smoothing, clipped double Q, delayed
    actor), SoftUpdate; eval: deterministic actor plus additive Gaussian exploration noise."""
    from tensordict.nn import TensorDictModule, TensorDictSequential
    from torchrl.data import Bounded
    from torchrl.modules import AdditiveGaussianModule, TanhModule, ValueOperator
    from torchrl.objectives import SoftUpdate, TD3Loss
    torch.manual_seed(4)
    spec = Bounded(-2.0, 2.0, (ACT,))
    actor = TensorDictSequential(TensorDictModule(_mlp(OBS, ACT), ["observation"], ["param"]),
                                 TanhModule(["param"], ["action"], spec=spec))
    qnet = ValueOperator(_Q(), in_keys=["observation", "action"])
    loss = TD3Loss(actor, qnet, action_spec=spec, num_qvalue_nets=2)
    loss.make_value_estimator(gamma=0.99)
    upd = SoftUpdate(loss, tau=0.05)
    opt = torch.optim.Adam(loss.parameters(), 1e-3)
    noise = AdditiveGaussianModule(spec, sigma_init=0.3, sigma_end=0.1, annealing_num_steps=10)
    explore = TensorDictSequential(actor, noise)
    data = _synthetic(41)

    def run(data, leaves):
        if not loss.training:
            out = explore(data.clone())
            noise.step(1)
            return out
        out = loss(data)
        total = out["loss_actor"] + out["loss_qvalue"]
        return _learn(total, opt, upd)
    args = ((data, _leaves(data)), {})
    return step(run, eval_runs=args, train_runs=args, loss=loss)


def cql_iql():
    """Offline RL on synthetic transitions: CQLLoss (conservative penalty, Lagrange) and IQLLoss
    (expectile value loss) in one step; eval: the stochastic actor's log-probability of the batch."""
    from torchrl.modules import ValueOperator
    from torchrl.objectives import CQLLoss, IQLLoss
    torch.manual_seed(5)
    actor = _gaussian_actor()
    q1 = ValueOperator(_Q(), in_keys=["observation", "action"])
    cql = CQLLoss(actor, q1, with_lagrange=True, num_random=4, action_spec=_spec())
    cql.make_value_estimator(gamma=0.99)
    actor2 = _gaussian_actor()
    q2 = ValueOperator(_Q(), in_keys=["observation", "action"])
    v2 = ValueOperator(_mlp(OBS, 1), in_keys=["observation"])
    iql = IQLLoss(actor2, q2, v2, num_qvalue_nets=2, expectile=0.7)
    iql.make_value_estimator(gamma=0.99)
    opt = torch.optim.Adam(list(cql.parameters()) + list(iql.parameters()), 1e-3)
    data = _synthetic(51)

    def run(data, leaves):
        if not cql.training:
            return actor(data.clone()).get("sample_log_prob", None)
        a = cql(data.clone())
        b = iql(data.clone())
        total = sum(v for k, v in a.items() if k.startswith("loss")) + \
            sum(v for k, v in b.items() if k.startswith("loss"))
        return _learn(total, opt)
    args = ((data, _leaves(data)), {})
    return step(run, eval_runs=args, train_runs=args, cql=cql, iql=iql)


def slice_replay():
    """Trajectory replay: pendulum rollouts (StepCounter truncation every 6 steps) stored flat in a
    replay buffer sampled by a `SliceSampler` (sub-trajectories of 4 steps, trajectory ends from the
    done/truncated flags, without strict length) and by its without-replacement twin; update: GAE on
    the slices, the discounted reward-to-go of REINFORCE (`ReinforceLoss`), Adam."""
    from torchrl.data import LazyTensorStorage, ReplayBuffer, SliceSampler, SliceSamplerWithoutReplacement
    from torchrl.modules import ValueOperator
    from torchrl.objectives import ReinforceLoss
    from torchrl.objectives.value import GAE
    torch.manual_seed(6)
    env = _pendulum(max_steps=6)
    actor = _gaussian_actor(env, obs=PEND_OBS)
    critic = ValueOperator(_mlp(PEND_OBS, 1), in_keys=["observation"])
    loss = ReinforceLoss(actor, critic)
    gae = GAE(gamma=0.95, lmbda=0.9, value_network=critic)
    opt = torch.optim.Adam(loss.parameters(), 1e-3)
    with torch.no_grad():
        traj = env.rollout(40, actor, break_when_any_done=False)
    rb = ReplayBuffer(storage=LazyTensorStorage(64), batch_size=12,
                      sampler=SliceSampler(slice_len=4, end_key=("next", "done"), strict_length=False))
    rb.extend(traj)
    rb2 = ReplayBuffer(storage=LazyTensorStorage(64), batch_size=8,
                       sampler=SliceSamplerWithoutReplacement(num_slices=2, end_key=("next", "done"),
                                                              strict_length=False))
    rb2.extend(traj)

    def run(traj, leaves):
        if not loss.training:
            return rb.sample(), rb2.sample()
        batch = rb.sample()
        with torch.no_grad():
            gae(batch)
        out = loss(batch)
        total = out["loss_actor"] + out["loss_value"]
        return _learn(total, opt)
    args = ((traj, _leaves(traj)), {})
    return step(run, eval_runs=args, train_runs=args, loss=loss)


MODELS = {
    "torchrl_ppo": ppo,
    "torchrl_collector_a2c": collector_a2c,
    "torchrl_sac_prb": sac_prb,
    "torchrl_dqn_tictactoe": dqn_tictactoe,
    "torchrl_td3": td3,
    "torchrl_cql_iql": cql_iql,
    "torchrl_slice_replay": slice_replay,
}
