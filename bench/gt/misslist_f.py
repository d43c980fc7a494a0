"""Diagnoses of the suite-f misses (segmentation_models_pytorch 0.6.0, torchsde 0.2.6) at first look,
written by reading the code, checked with `dynlint check --explain` on the installed packages and,
for the scope causes, with a small fixture holding the same code (flagged or not by the same
dynlint, main 8efe6ef). Keys as in misslist.DIAGNOSES: (file prefix, function or code fragment).
Cause labels start with their group. Suite f has no executed false alarm at first look (FP_F is
empty); the three flagged lines that did not run are described in bench/results/firstlook.md."""
from __future__ import annotations

_SMP = "segmentation_models_pytorch/"
_SDE = "torchsde/"
ONE_HOT = "by design: one_hot label check (DYN217, --target hpu)"
CTOR = "scope: constructor of a plain class built in library code, its base in another file"
CALL = "kinds: a parameter rebound on a path the step does not take (`ta = self._start`)"

DIAGNOSES_F = {
    (_SMP + "losses/dice.py", "F.one_hot"): (
        ONE_HOT,
        "`F.one_hot((y_true * mask).to(torch.long), num_classes)` in `DiceLoss.forward` (model code) checks the "
        "labels' min/max on the host on CPU (and HPU); CUDA skips the check, so DYN217 is on only with "
        "`target = \"hpu\"` (it flags this line there, and line 108)"),
    (_SMP + "losses/jaccard.py", "F.one_hot"): (
        ONE_HOT, "the same `F.one_hot(...)` in `JaccardLoss.forward`; flagged by DYN217 with `target = \"hpu\"`"),
    (_SMP + "metrics/functional.py", "_handle_zero_division"): (
        "scope: cold by a wrong `-> float` return annotation",
        "`if torch.any(nans) and zero_division == \"warn\":` in `_handle_zero_division`, called only by "
        "`_compute_metric`, which is cold because it is 'declared to return Python floats' (`-> float`) although "
        "it returns a tensor score; so its callee is cold too. The metrics run on every evaluation batch "
        "(`iou_score`, `f1_score`, ...). A fixture without the annotation is flagged (DYN204, neutral code), with "
        "it not. The multiclass statistics are built on the host (`torch.zeros(batch, classes)` without a device, "
        "so that run's reads are `host_built`); the binary and multi-label ones are device tensors"),
    (_SMP + "utils/train.py", "Epoch.run"): (
        "scope: training loop cold by design (name `run`)",
        "`loss.cpu().detach().numpy()` and `metric_fn(y_pred, y).cpu().detach().numpy()` once per batch in the "
        "legacy `Epoch.run` loop (TrainEpoch/ValidEpoch): 'its name `run` is one of code that runs outside the "
        "model (... training loop ...)'; the per-batch loss read is the loop's, not the model's [fixed since "
        "scope30 for the loss copy (55): the loop calls `self.batch_update(x, y)`, overridden by `TrainEpoch` with "
        "a backward outside any loop, so it is the minibatch loop, model code whatever the name "
        "(reach._mark_batch_loops); the metric copy (62) stays missed: `metric_fn` is an item of `self.metrics`, "
        "its result has no kind]"),
    (_SDE + "_brownian/brownian_interval.py", "__init__"): (
        CTOR,
        "`if t0 > t1:` / `t0 = float(t0)` / `t1 = float(t1)` in `BrownianInterval.__init__` (`t0: Optional[Scalar]`, "
        "`Scalar = Union[float, Tensor]`): `sdeint`'s `check_contract` builds the default Brownian motion from "
        "`ts[0]`, `ts[-1]` on every solve (and users build it from them in the step), so the constructor runs in "
        "the step. Since attr27 a plain class built in model code runs its `__init__` there (a fixture whose "
        "`forward` builds `Interval(ts[0], ts[-1])` is flagged, tests/test_held_attribute_calls.py), but here "
        "the class's base `BaseBrownian` is in another file (its file alone cannot tell it is no module, so "
        "`__init__` stays cold) and `check_contract` is neutral library code (`sdeint` is a library function "
        "only user code calls), not model code"),
    (_SDE + "_brownian/brownian_interval.py", "__call__"): (
        CALL,
        "`ta = float(ta)` in `BrownianInterval.__call__`, reached from every solver step as `self.bm(t0, t1)` "
        "with `t0`, `t1` 0-d tensors from `ts`. Since attr27 the call is followed (`self.bm = bm`, `bm: "
        "BaseBrownian`, stored by the solvers' base in another file: every subclass's `__call__`; the base's "
        "`integrate` passes `self.step(curr_t, next_t, ...)` to the solvers' `step` overrides) and "
        "`tb = float(tb)` (597) is flagged DYN203. `ta` is not: on the point-evaluation path (`if tb is None: "
        "ta, tb = self._start, ta`) it is rebound to a float, and after the `if` the walk keeps either"),
}

FP_F: dict = {}
