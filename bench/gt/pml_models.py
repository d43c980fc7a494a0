"""pytorch_metric_learning (pml 2.9.0): metric-learning losses, miners, reducers, distances and
regularizers as its examples use them: a small embedding MLP (random weights) maps a batch of 16
random inputs to 8-d embeddings; the losses and miners take the embeddings and *realistic labels*
(5 classes of uneven size, one class with a single sample, so anchors without a positive exist).
Nothing is downloaded. The step is the embedding net, the miners and the losses (train: with
`backward()`; eval: the same losses under `no_grad`, as a validation loss).

Already installed in the shared venv for suite g (first look, issue 9; not installed by this
session): pytorch-metric-learning 2.9.0 (scikit-learn, numpy, tqdm, torch were there). faiss is
not installed: the accuracy run uses pml's torch `CustomKNN`.

* Pair and tuple losses on all pairs: Contrastive, MultiSimilarity, NTXent, SupCon, Circle,
  GeneralizedLiftedStructure, LiftedStructure, NPairs, Margin, TupletMargin, FastAP, Angular,
  SignalToNoiseRatioContrastive, IntraPairVariance, Instance, ThresholdConsistentMargin (TCM).
* Miners feeding losses, with the reducers: TripletMarginMiner (semihard, hard, all) ->
  TripletMarginLoss (AvgNonZeroReducer default, ThresholdReducer, `swap`, `smooth_loss`);
  MultiSimilarityMiner -> MultiSimilarityLoss; BatchHardMiner, BatchEasyHardMiner (the
  easy-positive / semihard-negative strategies) -> TripletMarginLoss; PairMarginMiner ->
  ContrastiveLoss (ClassWeightedReducer, MultipleReducers, PerAnchorReducer); DistanceWeightedMiner,
  HDCMiner, UniformHistogramMiner, AngularMiner -> pair/triplet losses; SNRDistance, DotProduct,
  LpDistance (p=1), CosineSimilarity as distances.
* Classification (proxy/weight) losses with regularizers: ArcFace (+ `get_logits`), SubCenterArcFace
  (+ `get_outliers`), CosFace, SphereFace, LargeMarginSoftmax, NormalizedSoftmax, ProxyNCA,
  ProxyAnchor, SoftTriple (2 centers per class), P2SGrad, with RegularFace, SparseCenters, CenterInvariant, LpRegularizer,
  ZeroMean as weight/embedding regularizers.
* Memory and self-supervised: CrossBatchMemory (Contrastive + a miner, two batches with
  `enqueue_mask`), SelfSupervisedLoss (TripletMargin, NTXent on two views), VICReg (`ref_emb`), Histogram,
  RankedList, SmoothAP (equal-size classes, as it requires), PNP, Manifold (no labels), DynamicSoftMargin,
  MultipleLosses (with miners), `ref_emb`/`ref_labels`.
* Evaluation (eval only): `AccuracyCalculator` (precision@1, R-precision, MAP@R, MAP, MRR) on
  query embeddings alone and on query/reference sets, through `CustomKNN`; `MatchFinder` on pairs.

MarginLoss and ProxyAnchorLoss reduce with their default DivisorReducer. Not covered: the
datasets module (downloads), faiss indexes (`FaissKNN`, `InferenceModel`), AMI/NMI (faiss kmeans), the
trainers and testers (record-keeper, dataloader and logging machinery around the same losses).
"""
from __future__ import annotations

import torch

from . import gen, step

N, IN, EMB = 16, 12, 8
# 5 classes of sizes 5, 4, 3, 3 and 1: the singleton anchor has no positive
LABELS = [0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4]


def _net(h=32, emb=EMB):
    return torch.nn.Sequential(torch.nn.Linear(IN, h), torch.nn.ReLU(), torch.nn.Linear(h, emb))


def _data(seed, n=N, labels=LABELS):
    x = torch.randn(n, IN, generator=gen(seed))
    y = torch.tensor(labels)[torch.randperm(len(labels), generator=gen(seed + 1))]
    return x, y


def _loss_step(net, fn, x, y, **parts):
    """A step that embeds `x` and calls `fn(emb, y)`; backward in train."""
    def run(x, y):
        emb = net(x)
        loss = fn(emb, y)
        if net.training:
            loss.backward()
            return loss.detach()
        return loss
    args = ((x, y), {})
    return step(run, eval_runs=args, train_runs=args, net=net, **parts)


def pair_losses():
    from pytorch_metric_learning import distances, losses
    net = _net()
    fns = [losses.ContrastiveLoss(pos_margin=0.0, neg_margin=1.0),
           losses.MultiSimilarityLoss(alpha=2, beta=50, base=0.5),
           losses.NTXentLoss(temperature=0.07), losses.SupConLoss(temperature=0.1),
           losses.CircleLoss(m=0.4, gamma=80), losses.GeneralizedLiftedStructureLoss(neg_margin=1, pos_margin=0),
           losses.LiftedStructureLoss(neg_margin=1, pos_margin=0), losses.NPairsLoss(),
           losses.MarginLoss(margin=0.2, nu=0.0, beta=1.2, num_classes=5, learn_beta=True),
           losses.TupletMarginLoss(margin=5.73, scale=64), losses.FastAPLoss(num_bins=10),
           losses.AngularLoss(alpha=40), losses.SignalToNoiseRatioContrastiveLoss(pos_margin=0, neg_margin=1),
           losses.IntraPairVarianceLoss(pos_eps=0.01, neg_eps=0.01),
           losses.InstanceLoss(gamma=64), losses.ThresholdConsistentMarginLoss(),
           losses.ContrastiveLoss(distance=distances.LpDistance(p=1, normalize_embeddings=False)),
           losses.ContrastiveLoss(distance=distances.DotProductSimilarity(), pos_margin=1, neg_margin=0)]
    x, y = _data(801)
    mods = torch.nn.ModuleList(fns)
    return _loss_step(net, lambda emb, y: sum(fn(emb, y) for fn in mods), x, y, mods=mods)


def miners_reducers():
    from pytorch_metric_learning import distances, losses, miners, reducers
    net = _net()
    cos = distances.CosineSimilarity()
    pairs = [
        (miners.TripletMarginMiner(margin=0.2, type_of_triplets="semihard"), losses.TripletMarginLoss(margin=0.2)),
        (miners.TripletMarginMiner(margin=0.2, type_of_triplets="hard", distance=cos),
         losses.TripletMarginLoss(margin=0.2, distance=cos, reducer=reducers.ThresholdReducer(low=0.0))),
        (miners.TripletMarginMiner(margin=0.2, type_of_triplets="all"),
         losses.TripletMarginLoss(margin=0.1, swap=True, smooth_loss=True)),
        (miners.MultiSimilarityMiner(epsilon=0.1), losses.MultiSimilarityLoss()),
        (miners.BatchHardMiner(), losses.TripletMarginLoss(margin=0.2)),
        (miners.BatchEasyHardMiner(pos_strategy="easy", neg_strategy="semihard"),
         losses.TripletMarginLoss(margin=0.2)),
        (miners.BatchEasyHardMiner(pos_strategy="hard", neg_strategy="all", allowed_neg_range=[0.0, 2.0]),
         losses.TripletMarginLoss(margin=0.2)),
        (miners.PairMarginMiner(pos_margin=0.2, neg_margin=0.8),
         losses.ContrastiveLoss(reducer=reducers.ClassWeightedReducer(torch.tensor([1.0, 2.0, 1.0, 1.0, 3.0])))),
        (miners.PairMarginMiner(pos_margin=0.2, neg_margin=0.8),
         losses.ContrastiveLoss(reducer=reducers.MultipleReducers(
             {"pos_loss": reducers.MeanReducer(), "neg_loss": reducers.AvgNonZeroReducer()}))),
        (miners.PairMarginMiner(pos_margin=0.1, neg_margin=0.9), losses.ContrastiveLoss(reducer=reducers.PerAnchorReducer())),
        (miners.DistanceWeightedMiner(cutoff=0.5, nonzero_loss_cutoff=1.4), losses.TripletMarginLoss(margin=0.2)),
        (miners.HDCMiner(filter_percentage=0.5), losses.ContrastiveLoss()),
        (miners.UniformHistogramMiner(num_bins=10, pos_per_bin=4, neg_per_bin=4), losses.ContrastiveLoss()),
        (miners.AngularMiner(angle=20), losses.AngularLoss()),
        (miners.MultiSimilarityMiner(epsilon=0.1, distance=distances.SNRDistance()),
         losses.ContrastiveLoss(distance=distances.SNRDistance(), reducer=reducers.SumReducer())),
    ]
    x, y = _data(811)
    mods = torch.nn.ModuleList([m for p in pairs for m in p])

    def fn(emb, y):
        return sum(loss(emb, y, miner(emb, y)) for miner, loss in pairs)
    return _loss_step(net, fn, x, y, mods=mods)


def classification_losses():
    from pytorch_metric_learning import losses, regularizers
    net = _net()
    c = 5
    fns = [losses.ArcFaceLoss(c, EMB, weight_regularizer=regularizers.RegularFaceRegularizer()),
           losses.SubCenterArcFaceLoss(num_classes=c, embedding_size=EMB, sub_centers=3),
           losses.CosFaceLoss(c, EMB, embedding_regularizer=regularizers.LpRegularizer()),
           losses.SphereFaceLoss(c, EMB, margin=4),
           losses.LargeMarginSoftmaxLoss(c, EMB, margin=3, weight_regularizer=regularizers.CenterInvariantRegularizer()),
           losses.NormalizedSoftmaxLoss(c, EMB, embedding_regularizer=regularizers.ZeroMeanRegularizer()),
           losses.ProxyNCALoss(c, EMB, softmax_scale=10),
           losses.ProxyAnchorLoss(c, EMB, margin=0.1, alpha=32),
           losses.SoftTripleLoss(c, EMB, centers_per_class=2,
                                 weight_regularizer=regularizers.SparseCentersRegularizer(c, 2)),
           losses.P2SGradLoss(descriptors_dim=EMB, num_classes=c)]
    arc, sub = fns[0], fns[1]
    x, y = _data(821)
    mods = torch.nn.ModuleList(fns)

    def fn(emb, y):
        total = sum(f(emb, y) for f in mods)
        logits = arc.get_logits(emb)
        total = total + torch.nn.functional.cross_entropy(logits, y) * 0.0
        if not net.training:
            outliers, dominant = sub.get_outliers(emb.detach(), y, threshold=75, return_dominant_centers=True)
            return total, outliers, dominant, logits.argmax(1)
        return total
    return _loss_step(net, fn, x, y, mods=mods)


def memory_selfsup():
    """Two batches per step (CrossBatchMemory fills its queue across them), two views for the
    self-supervised wrappers, equal-size classes for SmoothAP, a reference set for `ref_emb`."""
    from pytorch_metric_learning import losses, miners
    net = _net()
    xbm = losses.CrossBatchMemory(losses.ContrastiveLoss(), EMB, memory_size=24,
                                  miner=miners.MultiSimilarityMiner(epsilon=0.1))
    selfsup = [losses.SelfSupervisedLoss(losses.TripletMarginLoss()),
               losses.SelfSupervisedLoss(losses.NTXentLoss(), symmetric=False), losses.VICRegLoss()]
    fns = [losses.HistogramLoss(n_bins=10), losses.RankedListLoss(margin=0.4, Tn=10, Tp=0),
           losses.PNPLoss(),
           losses.DynamicSoftMarginLoss(num_bins=10),
           losses.MultipleLosses([losses.TripletMarginLoss(), losses.ContrastiveLoss()],
                                 miners=[miners.TripletMarginMiner(type_of_triplets="semihard"), None],
                                 weights=[1.0, 0.5])]
    smooth_ap = losses.SmoothAPLoss(temperature=0.01)
    manifold = losses.ManifoldLoss(l=EMB, K=4)   # unsupervised: proxies and random meta-classes
    x1, y1 = _data(831)
    x2, y2 = _data(833)
    xs, ys = _data(835, n=16, labels=[0] * 4 + [1] * 4 + [2] * 4 + [3] * 4)   # SmoothAP: equal classes
    xr, yr = _data(837)
    xv = x1 + 0.1 * torch.randn(x1.shape, generator=gen(839))
    enqueue = torch.zeros(N, dtype=torch.bool)
    enqueue[N // 2:] = True
    mods = torch.nn.ModuleList([xbm, *selfsup, *fns, smooth_ap, manifold])

    def run(x1, y1, x2, y2, xs, ys, xr, yr, xv, enqueue):
        e1, e2, ev, es, er = net(x1), net(x2), net(xv), net(xs), net(xr)
        loss = xbm(e1, y1) + xbm(e2, y2, enqueue_mask=enqueue)
        loss = loss + sum(f(e1, ev) for f in selfsup[:2]) + selfsup[2](e1, ref_emb=ev)
        loss = loss + sum(f(e1, y1) for f in fns) + smooth_ap(es, ys) + manifold(e1)
        loss = loss + losses.ContrastiveLoss()(e1, y1, ref_emb=er, ref_labels=yr)
        if net.training:
            loss.backward()
            return loss.detach()
        return loss
    args = ((x1, y1, x2, y2, xs, ys, xr, yr, xv, enqueue), {})
    return step(run, eval_runs=args, train_runs=args, net=net, mods=mods)


def evaluation():
    """Eval only: retrieval accuracy of the embeddings (the tester's job, run as a validation step)."""
    from pytorch_metric_learning.distances import CosineSimilarity, LpDistance
    from pytorch_metric_learning.utils.accuracy_calculator import AccuracyCalculator
    from pytorch_metric_learning.utils.inference import CustomKNN, MatchFinder
    net = _net()
    calc = AccuracyCalculator(include=("precision_at_1", "r_precision", "mean_average_precision_at_r",
                                       "mean_average_precision", "mean_reciprocal_rank"),
                              knn_func=CustomKNN(CosineSimilarity()), k="max_bin_count")
    calc_ref = AccuracyCalculator(include=("precision_at_1", "mean_average_precision_at_r"),
                                  knn_func=CustomKNN(LpDistance(normalize_embeddings=True)))
    finder = MatchFinder(distance=CosineSimilarity(), threshold=0.7)
    xq, yq = _data(841)
    xr, yr = _data(843)

    def run(xq, yq, xr, yr):
        q, r = net(xq), net(xr)
        res = calc.get_accuracy(q, yq)
        res2 = calc_ref.get_accuracy(q, yq, r, yr, ref_includes_query=False)
        matches = finder.get_matching_pairs(q, r)
        is_match = finder.is_match(q[:4], r[:4])
        return res, res2, matches, is_match
    args = ((xq, yq, xr, yr), {})
    return step(run, eval_runs=args, train_runs=None, net=net)


MODELS = {
    "pml_pair_losses": pair_losses,
    "pml_miners_reducers": miners_reducers,
    "pml_classification_losses": classification_losses,
    "pml_memory_selfsup": memory_selfsup,
    "pml_evaluation": evaluation,
}
