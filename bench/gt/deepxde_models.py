"""deepxde 1.15.0 on its pytorch backend (physics-informed neural networks and neural operators): forward
PDE and time-dependent PDE problems (Poisson, Burgers, heat with a hard initial condition), an ODE
system, an inverse problem with a trainable coefficient, and a DeepONet on a Cartesian-product operator
data set; deepxde's own geometries (Interval, Rectangle, TimeDomain, GeometryXTime) sample the
collocation points, its boundary and initial conditions (Dirichlet, Neumann, Robin, PointSet, IC) and
its automatic-differentiation helpers (`dde.grad.jacobian` / `hessian`) build the residuals; FNN, PFNN
and DeepONetCartesianProd networks; Adam (with learning-rate decay) and L-BFGS. Tiny sizes (16-48
collocation points, 16-unit layers), seeded, nothing downloaded.

Installed for suite j in a separate venv (/work/venv_j, which also sees the shared heavy venv's torch
2.14.1 through a .pth): deepxde 1.15.0 (scikit-optimize, matplotlib). The backend is chosen by the
environment variable DDE_BACKEND, set here before deepxde is imported.

The step is deepxde's own training loop for two iterations, `model._train_sgd(2, ...)` (each iteration:
the callbacks, the next training batch, the train step with the loss terms of every condition, backward,
the optimizer; then the display's test pass that `train` runs every `display_every` iterations and after
the last one: the losses copied to numpy, the metrics, the NaN check), or its L-BFGS loop
(`_train_pytorch_lbfgs`); eval: `model.predict` of the solution and of the PDE residual (an operator).
The model is compiled and trained for one iteration in the builder (`model.train`: the train state,
callbacks, first test pass), outside the step. deepxde keeps its collocation points as numpy arrays
and converts them with `torch.as_tensor` inside the step; in a GPU run its pytorch backend makes the GPU
the default device, here they are host-built (the recorder records less: reads of tensors derived from
the points alone are not recorded, the network's outputs and losses are device tensors).
"""
from __future__ import annotations

import os

os.environ.setdefault("DDE_BACKEND", "pytorch")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from . import step  # noqa: E402


def _dde(seed):
    import deepxde as dde
    dde.config.set_random_seed(seed)
    return dde


class _Vars(torch.nn.Module):
    """Holds an inverse problem's `dde.Variable`s as buffers (the same tensors), so that the recorder
    takes them for device memory, as the default device makes them in a GPU run."""

    def __init__(self, variables):
        super().__init__()
        for i, v in enumerate(variables):
            self.register_buffer(f"v{i}", v)


def _sgd_step(model, predict, iters=2):
    """The step: `iters` iterations of deepxde's SGD loop (train) or `predict(...)` (eval)."""
    def run(phase):
        if phase == "train":
            model._train_sgd(iters, display_every=1000, verbose=0)
            return model.train_state.loss_train
        with torch.enable_grad():     # the residual operator differentiates the network (as in a script)
            return predict()
    return step(run, eval_runs=(("eval",), {}), train_runs=(("train",), {}), net=model.net,
                variables=_Vars(model.external_trainable_variables))


def poisson_1d():
    """-u'' = pi^2 sin(pi x) on [-1, 1] with Dirichlet ends: FNN, Adam, the l2 relative error metric
    against the exact solution, an `OperatorPredictor` callback (the residual at fixed points every
    iteration); eval: the solution and the PDE residual by `predict`."""
    dde = _dde(0)
    geom = dde.geometry.Interval(-1, 1)

    def pde(x, y):
        return -dde.grad.hessian(y, x) - np.pi ** 2 * torch.sin(np.pi * x)

    bc = dde.icbc.DirichletBC(geom, lambda x: 0, lambda x, on_b: on_b)
    data = dde.data.PDE(geom, pde, bc, num_domain=16, num_boundary=2, solution=lambda x: np.sin(np.pi * x),
                        num_test=20)
    net = dde.nn.FNN([1, 16, 16, 1], "tanh", "Glorot uniform")
    model = dde.Model(data, net)
    model.compile("adam", lr=1e-3, metrics=["l2 relative error"])
    xs = geom.uniform_points(12, True)
    cb = dde.callbacks.OperatorPredictor(xs, op=pde, period=1, filename=os.devnull)
    model.train(iterations=1, display_every=1000, verbose=0, callbacks=[cb])
    return _sgd_step(model, lambda: (model.predict(xs), model.predict(xs, operator=pde)))


def burgers_resample():
    """Burgers' equation on [-1, 1] x [0, 1]: TimePDE with an initial condition and Dirichlet ends,
    loss weights, Adam with inverse-time decay, a `PDEPointResampler` redrawing the collocation points
    every iteration; eval: the solution and the residual."""
    dde = _dde(1)
    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 0.99))

    def pde(x, y):
        dy_x = dde.grad.jacobian(y, x, i=0, j=0)
        dy_t = dde.grad.jacobian(y, x, i=0, j=1)
        dy_xx = dde.grad.hessian(y, x, i=0, j=0)
        return dy_t + y * dy_x - 0.01 / np.pi * dy_xx

    bc = dde.icbc.DirichletBC(geomtime, lambda x: 0, lambda _, on_b: on_b)
    ic = dde.icbc.IC(geomtime, lambda x: -np.sin(np.pi * x[:, 0:1]), lambda _, on_initial: on_initial)
    data = dde.data.TimePDE(geomtime, pde, [bc, ic], num_domain=32, num_boundary=8, num_initial=8)
    net = dde.nn.FNN([2, 16, 16, 1], "tanh", "Glorot normal")
    model = dde.Model(data, net)
    model.compile("adam", lr=1e-3, loss_weights=[1, 10, 10], decay=("inverse time", 10, 0.5))
    resampler = dde.callbacks.PDEPointResampler(period=1)
    model.train(iterations=1, display_every=1000, verbose=0, callbacks=[resampler])
    xs = geomtime.random_points(24)
    return _sgd_step(model, lambda: (model.predict(xs), model.predict(xs, operator=pde)))


def inverse_poisson_2d():
    """An inverse problem on the unit square: -C * laplace(u) = f with the coefficient C a trainable
    `dde.Variable`, observations as a `PointSetBC`, Neumann and Robin conditions on parts of the
    boundary, Adam over the network and C (`external_trainable_variables`), a `VariableValue` callback
    reading C every iteration; eval: the solution and the residual."""
    dde = _dde(2)
    geom = dde.geometry.Rectangle([0, 0], [1, 1])
    C = dde.Variable(2.0)

    def pde(x, y):
        lap = dde.grad.hessian(y, x, i=0, j=0) + dde.grad.hessian(y, x, i=1, j=1)
        return -C * lap - 2 * np.pi ** 2 * torch.sin(np.pi * x[:, 0:1]) * torch.sin(np.pi * x[:, 1:2])

    def exact(x):
        return np.sin(np.pi * x[:, 0:1]) * np.sin(np.pi * x[:, 1:2])

    left = dde.icbc.DirichletBC(geom, lambda x: 0, lambda x, on_b: on_b and np.isclose(x[0], 0))
    right = dde.icbc.NeumannBC(geom, lambda x: -np.pi * np.sin(np.pi * x[:, 1:2]),
                               lambda x, on_b: on_b and np.isclose(x[0], 1))
    top = dde.icbc.RobinBC(geom, lambda x, y: y, lambda x, on_b: on_b and np.isclose(x[1], 1))
    obs_x = geom.random_points(12, random="pseudo")
    obs = dde.icbc.PointSetBC(obs_x, exact(obs_x))
    data = dde.data.PDE(geom, pde, [left, right, top, obs], num_domain=32, num_boundary=12, anchors=obs_x,
                        num_test=24, solution=exact)
    net = dde.nn.FNN([2, 16, 16, 1], "tanh", "Glorot uniform")
    model = dde.Model(data, net)
    model.compile("adam", lr=1e-3, external_trainable_variables=[C], metrics=["l2 relative error"])
    vv = dde.callbacks.VariableValue([C], period=1, filename=os.devnull)
    model.train(iterations=1, display_every=1000, verbose=0, callbacks=[vv])
    xs = geom.random_points(16)
    return _sgd_step(model, lambda: (model.predict(xs), model.predict(xs, operator=pde)))


def ode_system_pfnn():
    """A Lotka-Volterra-type ODE system on [0, 2] (two outputs, one initial condition per component,
    `dde.data.PDE` over a TimeDomain), a parallel FNN (PFNN: one subnetwork per output), the MSE loss;
    eval: the solution and both residuals."""
    dde = _dde(3)
    geom = dde.geometry.TimeDomain(0, 2)

    def ode(x, y):
        r, p = y[:, 0:1], y[:, 1:2]
        dr = dde.grad.jacobian(y, x, i=0)
        dp = dde.grad.jacobian(y, x, i=1)
        return [dr - (r - r * p), dp - (-p + r * p)]

    ic_r = dde.icbc.IC(geom, lambda x: 1.0, lambda _, on_initial: on_initial, component=0)
    ic_p = dde.icbc.IC(geom, lambda x: 0.5, lambda _, on_initial: on_initial, component=1)
    data = dde.data.PDE(geom, ode, [ic_r, ic_p], num_domain=24, num_boundary=2, num_test=16)
    net = dde.nn.PFNN([1, [16, 16], [16, 16], 2], "tanh", "Glorot normal")
    model = dde.Model(data, net)
    model.compile("adam", lr=1e-3)
    model.train(iterations=1, display_every=1000, verbose=0)
    xs = geom.uniform_points(10, True)
    return _sgd_step(model, lambda: (model.predict(xs), model.predict(xs, operator=ode)))


def deeponet():
    """A DeepONet for an antiderivative-type operator on a Cartesian-product data set (16 input
    functions at 10 sensors, 12 trunk points; random data): `TripleCartesianProd` with mini-batches of
    the branch input, `DeepONetCartesianProd`, the mean l2 relative error metric; eval: `predict` on a
    (branch, trunk) pair."""
    dde = _dde(4)
    rng = np.random.default_rng(5)
    xs = np.linspace(0, 1, 12, dtype=np.float32)[:, None]
    br = rng.standard_normal((16, 10)).astype(np.float32)
    y = (br.mean(1, keepdims=True) * xs.T).astype(np.float32)
    bt = rng.standard_normal((8, 10)).astype(np.float32)
    yt = (bt.mean(1, keepdims=True) * xs.T).astype(np.float32)
    data = dde.data.TripleCartesianProd(X_train=(br, xs), y_train=y, X_test=(bt, xs), y_test=yt)
    net = dde.nn.DeepONetCartesianProd([10, 16, 16], [1, 16, 16], "relu", "Glorot normal")
    model = dde.Model(data, net)
    model.compile("adam", lr=1e-3, metrics=["mean l2 relative error"])
    model.train(iterations=1, batch_size=4, display_every=1000, verbose=0)
    return _sgd_step(model, lambda: model.predict((bt[:4], xs)))


def heat_lbfgs():
    """The heat equation on [0, 1] x [0, 1] with the initial condition built into the network
    (`apply_output_transform`, a hard constraint) and Dirichlet ends, trained by L-BFGS (deepxde's
    `_train_pytorch_lbfgs` loop; 3 iterations per `torch.optim.LBFGS` step); eval: the solution and the residual."""
    dde = _dde(6)
    dde.optimizers.config.set_LBFGS_options(maxiter=3)
    dde.optimizers.config.LBFGS_options.update(iter_per_step=3, fun_per_step=4)   # torch LBFGS's own loop
    geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(0, 1), dde.geometry.TimeDomain(0, 1))

    def pde(x, y):
        return dde.grad.jacobian(y, x, i=0, j=1) - 0.4 * dde.grad.hessian(y, x, i=0, j=0)

    bc = dde.icbc.DirichletBC(geomtime, lambda x: 0, lambda _, on_b: on_b)
    data = dde.data.TimePDE(geomtime, pde, [bc], num_domain=32, num_boundary=8, num_test=16)
    net = dde.nn.FNN([2, 16, 16, 1], "tanh", "Glorot normal")
    net.apply_output_transform(lambda x, y: torch.sin(np.pi * x[:, 0:1]) + x[:, 1:2] * y)
    model = dde.Model(data, net)
    model.compile("L-BFGS")
    model.train(display_every=1000, verbose=0)
    xs = geomtime.random_points(16)

    def run(phase):
        if phase == "train":
            model._train_pytorch_lbfgs(verbose=0)
            return model.train_state.loss_train
        with torch.enable_grad():
            return model.predict(xs), model.predict(xs, operator=pde)
    return step(run, eval_runs=(("eval",), {}), train_runs=(("train",), {}), net=model.net)


MODELS = {
    "deepxde_poisson_1d": poisson_1d,
    "deepxde_burgers_resample": burgers_resample,
    "deepxde_inverse_poisson_2d": inverse_poisson_2d,
    "deepxde_ode_system_pfnn": ode_system_pfnn,
    "deepxde_deeponet": deeponet,
    "deepxde_heat_lbfgs": heat_lbfgs,
}
