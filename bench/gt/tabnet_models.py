"""pytorch_tabnet 4.1.0 (TabNet: attentive feature selection with sparsemax/entmax masks, ghost batch
norm, categorical embeddings, grouped features): classifier, regressor, multi-task classifier and the
self-supervised pretrainer on seeded random numpy tables (96 rows, 7 features, two of them
categorical); random weights, nothing downloaded.

Installed for suite h in a separate venv (/work/venv_h, which also sees the shared heavy venv's torch
2.14.1 through a .pth): pytorch-tabnet 4.1.0 (scikit-learn, scipy, numpy were there). pytorch_tabnet
ships no `__init__.py` (a namespace package; bench/groundtruth.py's `Roots` takes its `__path__`).

Each estimator is set up by its own `fit(..., max_epochs=1)` in the builder (networks, optimizer,
metrics, callbacks, loaders; outside the step); its device is then the harness's accelerator
stand-in (`gt.DEVICE`), as `device_name="cuda"` would make it. The step is what `fit` runs every
epoch and what a user calls to predict:

* train: `_train_epoch` over two batches of its own train DataLoader (built outside the step, like a
  loader's workers; host tensors, as in a GPU run, which `_train_batch` moves to the device): per
  batch the callbacks, `_train_batch` (augmentation where set, the network, the loss minus the
  sparsity term, `backward`, gradient clipping, `optimizer.step()`, `loss.item()`);
* eval: `_predict_epoch` on a validation loader (per-batch scores to numpy, the metrics of the
  validation set, as `fit` runs after every epoch), then `predict` / `predict_proba` and `explain`
  (feature-importance masks per sample) on a numpy array, as a user predicts.
"""
from __future__ import annotations

import itertools

import numpy as np

from . import DEVICE, step

ROWS, FEATS = 96, 7
CAT_IDXS, CAT_DIMS = [1, 4], [5, 3]


def _table(seed, rows=ROWS):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, FEATS)).astype(np.float32)
    for i, d in zip(CAT_IDXS, CAT_DIMS):
        x[:, i] = rng.integers(0, d, rows)
    return x, rng


def _batches(loader, n=2):
    return list(itertools.islice(iter(loader), n))


def _setup(est, x, y, eval_y=None, **fit_kw):
    """Fit one epoch (outside the step), then hand the estimator the accelerator stand-in."""
    est.fit(x, y, eval_set=[(x[:32], y[:32] if eval_y is None else eval_y)], max_epochs=1, batch_size=32,
            virtual_batch_size=16, drop_last=False, **fit_kw)
    est.device = DEVICE
    if getattr(est, "augmentations", None) is not None:
        est.augmentations.device = DEVICE
    return est


def _supervised(est, x, y, xv, eval_metric, augmentations=None, explain=True, proba=True):
    _setup(est, x, y, eval_metric=eval_metric, augmentations=augmentations)
    train_loader, valid_loaders = est._construct_loaders(x, y, [(x[:32], y[:32])])
    train, valid = _batches(train_loader), _batches(valid_loaders[0])

    def run(xv):
        if est.network.training:
            est._train_epoch(train)
            return est.history.epoch_metrics.get("lr")
        est._predict_epoch("val_0", valid)
        out = [est.predict(xv)]
        if proba:
            out.append(est.predict_proba(xv))
        if explain:
            out.append(est.explain(xv, normalize=True))
        est.network.eval()        # (`_predict_epoch` leaves the network in train mode, as in `fit`)
        return out
    args = ((xv,), {})
    return step(run, eval_runs=args, train_runs=args, net=est.network)


def classifier():
    """TabNetClassifier: sparsemax masks, categorical embeddings, grouped features (two groups), class
    ClassificationSMOTE; validation AUC/accuracy/balanced accuracy/logloss."""
    from pytorch_tabnet.augmentations import ClassificationSMOTE
    from pytorch_tabnet.tab_model import TabNetClassifier
    x, rng = _table(1201)
    y = (x[:, 0] + rng.normal(size=ROWS) > 0).astype(np.int64) + (x[:, 2] > 1).astype(np.int64)
    est = TabNetClassifier(n_d=8, n_a=8, n_steps=3, cat_idxs=CAT_IDXS, cat_dims=CAT_DIMS, cat_emb_dim=2,
                           grouped_features=[[0, 2], [3, 5, 6]], mask_type="sparsemax", seed=0, verbose=0)
    # multi-class: accuracy, balanced accuracy and log loss ("auc" is binary only)
    return _supervised(est, x, y, x[:24], ["accuracy", "balanced_accuracy", "logloss"],
                       augmentations=ClassificationSMOTE(p=0.8, seed=0))


def binary_classifier():
    """TabNetClassifier on two classes, entmax masks, no categorical features: validation AUC."""
    from pytorch_tabnet.tab_model import TabNetClassifier
    x, rng = _table(1211)
    y = (x[:, 3] - x[:, 0] > 0).astype(np.int64)
    est = TabNetClassifier(n_d=8, n_a=8, n_steps=2, mask_type="entmax", seed=0, verbose=0)
    return _supervised(est, x, y, x[:24], ["auc", "accuracy"])


def regressor():
    """TabNetRegressor (entmax masks, categorical embeddings) with RegressionSMOTE; MSE/MAE/RMSE/RMSLE."""
    from pytorch_tabnet.augmentations import RegressionSMOTE
    from pytorch_tabnet.tab_model import TabNetRegressor
    x, rng = _table(1221)
    y = (x[:, 0] * 2 + x[:, 3] + 0.1 * rng.normal(size=ROWS)).astype(np.float32).reshape(-1, 1)
    y = np.abs(y)    # rmsle needs non-negative targets
    est = TabNetRegressor(n_d=8, n_a=8, n_steps=3, cat_idxs=CAT_IDXS, cat_dims=CAT_DIMS, mask_type="entmax",
                          seed=0, verbose=0)
    return _supervised(est, x, y, x[:24], ["mse", "mae", "rmse", "rmsle"],
                       augmentations=RegressionSMOTE(p=0.8, seed=0), proba=False)


def multitask():
    """TabNetMultiTaskClassifier: two classification targets, sparsemax, validation log loss."""
    from pytorch_tabnet.multitask import TabNetMultiTaskClassifier
    x, rng = _table(1231)
    y = np.stack([(x[:, 0] > 0).astype(np.int64), (x[:, 2] > 0.5).astype(np.int64) + (x[:, 3] > 0)], 1)
    est = TabNetMultiTaskClassifier(n_d=8, n_a=8, n_steps=2, cat_idxs=CAT_IDXS, cat_dims=CAT_DIMS, seed=0, verbose=0)
    return _supervised(est, x, y, x[:24], ["logloss"], explain=False)


def pretrainer():
    """TabNetPretrainer (self-supervised: random obfuscation, reconstruction loss), then prediction of
    the reconstruction on a validation loader and a numpy array."""
    from pytorch_tabnet.pretraining import TabNetPretrainer
    x, _ = _table(1241)
    est = TabNetPretrainer(n_d=8, n_a=8, n_steps=2, cat_idxs=CAT_IDXS, cat_dims=CAT_DIMS, mask_type="sparsemax",
                           seed=0, verbose=0)
    est.fit(x, eval_set=[x[:32]], max_epochs=1, batch_size=32, virtual_batch_size=16, drop_last=False,
            pretraining_ratio=0.5)
    est.device = DEVICE
    train_loader, valid_loaders = est._construct_loaders(x, [x[:32]])
    train, valid = _batches(train_loader), _batches(valid_loaders[0])
    xv = x[:24]

    def run(xv):
        if est.network.training:
            est._train_epoch(train)
            return est.history.epoch_metrics.get("lr")
        est._predict_epoch("val_0", valid)
        out = est.predict(xv)
        est.network.eval()
        return out
    args = ((xv,), {})
    return step(run, eval_runs=args, train_runs=args, net=est.network)


MODELS = {
    "tabnet_classifier": classifier,
    "tabnet_binary_classifier": binary_classifier,
    "tabnet_regressor": regressor,
    "tabnet_multitask": multitask,
    "tabnet_pretrainer": pretrainer,
}
