"""torchdiffeq (adaptive ODE solvers): neural ODEs as its examples build them, with random
weights: an MLP vector field integrated by each solver family (Dormand-Prince 5 and 8, Bogacki-
Shampine, Fehlberg, adaptive Heun: error control and step-size selection; fixed-grid RK4, Euler,
midpoint with `step_size`, `perturb` and cubic interpolation; explicit and implicit Adams), tuple
states, decreasing time, `grid_points`/`jump_t` options, `odeint_dense` and `odeint_event` (a
bouncing ball). Train steps use `odeint_adjoint` and run the backward pass inside the step, since
the adjoint ODE is solved there (the seminorm `adjoint_options`, `adjoint_params`); eval steps
run `odeint` under `no_grad`. Tiny state sizes; nothing to download.
"""
from __future__ import annotations

import torch

from . import gen, step


class Field(torch.nn.Module):
    """dy/dt = MLP([y, t]); counts evaluations the way the examples do (`nfe`)."""

    def __init__(self, dim=4, hidden=16):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(dim + 1, hidden), torch.nn.Tanh(),
                                       torch.nn.Linear(hidden, dim))
        self.nfe = 0

    def forward(self, t, y):
        self.nfe += 1
        return self.net(torch.cat([y, t.expand(y.shape[0], 1)], -1))


class TupleField(torch.nn.Module):
    """A second-order system as a tuple state (position, velocity)."""

    def __init__(self, dim=3):
        super().__init__()
        self.acc = torch.nn.Linear(2 * dim, dim)

    def forward(self, t, state):
        x, v = state
        return v, self.acc(torch.cat([x, v], -1)).tanh()


def _y0(b=3, dim=4, seed=401):
    return torch.randn(b, dim, generator=gen(seed))


def solvers(methods, adjoint_method=None, **opts):
    """Each method in turn (eval: odeint; train: odeint_adjoint + backward)."""
    def build():
        from torchdiffeq import odeint, odeint_adjoint
        field = Field()
        y0 = _y0()
        t = torch.linspace(0.0, 1.0, 5)
        target = torch.randn(5, 3, 4, generator=gen(402))

        def run(y0, t, target):
            outs = []
            for method, options in methods:
                if field.training:
                    ys = odeint_adjoint(field, y0, t, rtol=1e-3, atol=1e-4, method=method, options=options,
                                        adjoint_method=adjoint_method, **opts)
                    loss = (ys - target).pow(2).mean()
                    loss.backward()
                    outs.append(loss.detach())
                else:
                    outs.append(odeint(field, y0, t, rtol=1e-3, atol=1e-4, method=method, options=options))
            return outs
        args = ((y0, t, target), {})
        return step(run, eval_runs=args, train_runs=args, field=field)
    return build


def tuple_and_reverse():
    """Tuple state, decreasing time, grid points and jumps (dopri5), dense output."""
    def build():
        from torchdiffeq import odeint, odeint_adjoint, odeint_dense
        field = TupleField()
        g = gen(403)
        x0, v0 = torch.randn(2, 3, generator=g), torch.randn(2, 3, generator=g)
        t = torch.tensor([1.0, 0.6, 0.2, 0.0])
        fwd = torch.linspace(0.0, 1.0, 4)

        def run(x0, v0):
            if field.training:
                xs, vs = odeint_adjoint(field, (x0, v0), fwd, rtol=1e-3, atol=1e-4, method="dopri5",
                                        adjoint_params=tuple(field.parameters()),
                                        adjoint_options=dict(norm="seminorm"))
                loss = xs.pow(2).mean() + vs.pow(2).mean()
                loss.backward()
                return loss.detach()
            back = odeint(field, (x0, v0), t, rtol=1e-3, atol=1e-4)
            jumps = odeint(field, (x0, v0), fwd, rtol=1e-3, atol=1e-4, method="dopri5",
                           options=dict(grid_points=torch.tensor([0.25, 0.5]), jump_t=torch.tensor([0.75])))
            flat = lambda t, y: torch.cat(field(t, y.chunk(2, -1)), -1)   # odeint_dense takes one tensor
            dense = odeint_dense(flat, torch.cat([x0, v0], -1), torch.tensor(0.0), torch.tensor(1.0),
                                      rtol=1e-3, atol=1e-4)
            mid = dense(torch.tensor(0.5))
            return back, jumps, mid
        args = ((x0, v0), {})
        return step(run, eval_runs=args, train_runs=args, field=field)
    return build


class Ball(torch.nn.Module):
    """A ball falling under gravity with a learnable drag; the event is the ground."""

    def __init__(self):
        super().__init__()
        self.drag = torch.nn.Parameter(torch.tensor(0.1))

    def forward(self, t, state):
        pos, vel = state
        return vel, -9.8 - self.drag * vel

    def hit_ground(self, t, state):
        return state[0]


def events():
    """`odeint_event` with both interfaces (plain and adjoint), then the trajectory up to the event
    time, as torchdiffeq's bouncing-ball example does; one bounce."""
    def build():
        from torchdiffeq import odeint, odeint_adjoint, odeint_event
        ball = Ball()
        pos0, vel0 = torch.tensor([1.0]), torch.tensor([0.5])

        def run(pos0, vel0):
            iface = odeint_adjoint if ball.training else odeint
            t0 = torch.tensor(0.0)
            kw = dict(adjoint_params=tuple(ball.parameters())) if ball.training else {}
            event_t, (pos, vel) = odeint_event(ball, (pos0, vel0), t0, event_fn=ball.hit_ground,
                                               reverse_time=False, atol=1e-6, rtol=1e-6,
                                               odeint_interface=iface, **kw)
            tt = torch.linspace(float(t0), float(event_t), 4)
            traj = odeint(ball, (pos0, vel0), tt, atol=1e-6, rtol=1e-6)
            # bounce: reflect the velocity, integrate to the next event
            event_t2, _ = odeint_event(ball, (pos[-1] + 1e-3, -0.9 * vel[-1]), event_t, event_fn=ball.hit_ground,
                                       atol=1e-6, rtol=1e-6, odeint_interface=iface, **kw)
            if ball.training:
                loss = (event_t2 - 1.0) ** 2 + traj[0].sum() * 0
                loss.backward()
                return loss.detach()
            return event_t2, traj
        args = ((pos0, vel0), {})
        return step(run, eval_runs=args, train_runs=args, ball=ball)
    return build


ADAPTIVE = [("dopri5", None), ("bosh3", None), ("fehlberg2", None), ("adaptive_heun", None),
            ("dopri8", dict(first_step=0.05))]
FIXED = [("rk4", dict(step_size=0.1)), ("euler", dict(step_size=0.1, perturb=True)),
         ("midpoint", dict(step_size=0.1, interp="cubic")), ("explicit_adams", dict(step_size=0.1)),
         ("implicit_adams", dict(step_size=0.1, max_iters=3))]

MODELS = {
    "torchdiffeq_adaptive": solvers(ADAPTIVE),
    "torchdiffeq_fixed_grid": solvers(FIXED, adjoint_method="rk4", adjoint_options=dict(step_size=0.1)),
    "torchdiffeq_tuple_reverse_dense": tuple_and_reverse(),
    "torchdiffeq_events": events(),
}
