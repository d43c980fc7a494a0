"""torchmetrics: the metrics a training loop calls in every validation step, as a loop calls them:
`metric(preds, target)` (forward: `update` plus the batch value) on two batches, then `compute()`
and `reset()`; plus the functional forms on the same batches. Classification (binary, multiclass
with `ignore_index`, multilabel; accuracy, F1, AUROC, average precision, PR curve with exact
thresholds, confusion matrix, calibration error, MCC, Cohen's kappa, EER, fixed-recall precision),
retrieval with query indexes (MAP, MRR, nDCG, precision@k, R-precision, hit rate, fall-out),
regression (MSE, MAE, MAPE, Pearson, Spearman, Kendall, R2, explained variance, concordance,
KL divergence), text (WER, CER, MER, edit distance, BLEU, CHRF, perplexity
with `ignore_index`, TER, EED), audio (SI-SNR, SI-SDR, SNR, SDR, permutation-invariant SI-SDR),
detection (IoU / GIoU / DIoU / CIoU with labels; `MeanAveragePrecision` is not run: both its
backends, pycocotools and faster_coco_eval, are compiled packages not installed here), panoptic
quality, segmentation (MeanIoU, generalized Dice), clustering (NMI, ARI), aggregation
(`MeanMetric` with nan handling, `CatMetric`), a `MetricCollection` with compute groups. Random
inputs; constructed outside the step.
"""
from __future__ import annotations

import torch

from . import gen, step

NC = 4


class Adapt(torch.nn.Module):
    """A metric fed from a batch that holds the inputs of several metrics: `pick(*batch)` returns
    this metric's arguments."""

    def __init__(self, metric, pick):
        super().__init__()
        self.metric, self.pick = metric, pick

    def forward(self, *args):
        return self.metric(*self.pick(*args))

    def compute(self):
        return self.metric.compute()

    def reset(self):
        self.metric.reset()


def _run_metrics(build_metrics, batches, functional=None):
    """A builder: the step runs each metric's forward on every batch, then compute() and reset();
    `functional(batch)` is called on every batch too."""
    def build():
        metrics = build_metrics()
        mods = torch.nn.ModuleList(metrics)
        data = batches()

        def run(data):
            out = []
            for batch in data:
                for m in mods:
                    out.append(m(*batch["args"], **batch.get("kw", {})))
                if functional is not None:
                    out.append(functional(*batch["args"], **batch.get("kw", {})))
            for m in mods:
                out.append(m.compute())
                m.reset()
            return out
        return step(run, eval_runs=((data,), {}), mods=mods)
    return build


# -- classification ------------------------------------------------------------------------
def _cls_batches(seed=101, n=24):
    g = gen(seed)
    out = []
    for i in range(2):
        logits = torch.randn(n, NC, generator=g)
        target = torch.randint(0, NC, (n,), generator=g)
        target[:3] = -1                         # ignored samples (ignore_index=-1)
        out.append({"args": (logits.softmax(-1), target)})
    return out


def multiclass():
    def metrics():
        from torchmetrics import classification as C
        kw = dict(num_classes=NC, ignore_index=-1)
        return [C.MulticlassAccuracy(**kw), C.MulticlassF1Score(average="macro", **kw),
                C.MulticlassAUROC(**kw), C.MulticlassAveragePrecision(**kw),
                C.MulticlassPrecisionRecallCurve(**kw), C.MulticlassConfusionMatrix(**kw),
                C.MulticlassCalibrationError(**kw), C.MulticlassMatthewsCorrCoef(**kw),
                C.MulticlassCohenKappa(**kw), C.MulticlassJaccardIndex(**kw),
                C.MulticlassRecallAtFixedPrecision(min_precision=0.3, **kw),
                C.MulticlassExactMatch(num_classes=NC, multidim_average="global")]

    def functional(preds, target):
        from torchmetrics.functional import classification as F
        return [F.multiclass_accuracy(preds, target, NC, ignore_index=-1),
                F.multiclass_auroc(preds, target, NC, ignore_index=-1),
                F.multiclass_precision_recall_curve(preds, target, NC, thresholds=5, ignore_index=-1)]
    return _run_metrics(metrics, _cls_batches, functional)


def binary_multilabel():
    def metrics():
        from torchmetrics import classification as C
        return [C.BinaryAccuracy(), C.BinaryAUROC(), C.BinaryAveragePrecision(), C.BinaryROC(),
                C.BinaryEER(), C.BinaryPrecisionAtFixedRecall(min_recall=0.5), C.BinaryCalibrationError(),
                C.BinaryF1Score(ignore_index=-1),
                C.MultilabelAveragePrecision(num_labels=NC), C.MultilabelRankingAveragePrecision(num_labels=NC),
                C.MultilabelF1Score(num_labels=NC), C.MultilabelAUROC(num_labels=NC)]

    def batches():
        g = gen(102)
        out = []
        for _ in range(2):
            p = torch.rand(16, generator=g)
            t = torch.randint(0, 2, (16,), generator=g)
            pm = torch.rand(16, NC, generator=g)
            tm = torch.randint(0, 2, (16, NC), generator=g)
            out.append({"args": (p, t, pm, tm)})
        return out

    def wrapped():            # binary metrics get (p, t), multilabel ones (pm, tm)
        return [Adapt(m, (lambda p, t, pm, tm: (pm, tm)) if type(m).__name__.startswith("Multilabel")
                      else (lambda p, t, pm, tm: (p, t))) for m in metrics()]

    def functional(p, t, pm, tm):
        from torchmetrics.functional import classification as F
        return [F.binary_auroc(p, t), F.binary_average_precision(p, t), F.binary_roc(p, t),
                F.multilabel_average_precision(pm, tm, NC)]
    return _run_metrics(wrapped, batches, functional)


# -- retrieval --------------------------------------------------------------------------------
def retrieval():
    def metrics():
        from torchmetrics import retrieval as R
        return [R.RetrievalMAP(), R.RetrievalMRR(), R.RetrievalNormalizedDCG(top_k=5), R.RetrievalPrecision(top_k=3),
                R.RetrievalRPrecision(), R.RetrievalHitRate(top_k=3), R.RetrievalFallOut(top_k=3),
                R.RetrievalRecall(top_k=3, empty_target_action="skip"), R.RetrievalAUROC()]

    def batches():
        g = gen(103)
        out = []
        for i in range(2):
            idx = torch.randint(0, 5, (30,), generator=g) + 5 * i
            out.append({"args": (torch.rand(30, generator=g), torch.randint(0, 2, (30,), generator=g).bool()),
                        "kw": {"indexes": idx}})
        return out

    def functional(preds, target, indexes):
        from torchmetrics.functional import retrieval as R
        return [R.retrieval_average_precision(preds, target), R.retrieval_normalized_dcg(preds, target, top_k=5),
                R.retrieval_reciprocal_rank(preds, target)]
    return _run_metrics(metrics, batches, functional)


# -- regression -------------------------------------------------------------------------------
def regression():
    def metrics():
        from torchmetrics import regression as M
        return [M.MeanSquaredError(), M.MeanAbsoluteError(), M.MeanAbsolutePercentageError(),
                M.PearsonCorrCoef(), M.SpearmanCorrCoef(), M.KendallRankCorrCoef(), M.R2Score(),
                M.ExplainedVariance(), M.ConcordanceCorrCoef(),
                M.SymmetricMeanAbsolutePercentageError(), M.LogCoshError(), M.TweedieDevianceScore(power=0)]

    def batches():
        g = gen(104)
        out = []
        for _ in range(2):
            t = torch.randn(20, generator=g)
            t[::5] = t[1::5]                 # ties (Spearman / Kendall ranks)
            out.append({"args": (t + 0.3 * torch.randn(20, generator=g), t)})
        return out

    def functional(preds, target):
        from torchmetrics.functional import regression as F
        return [F.spearman_corrcoef(preds, target), F.kendall_rank_corrcoef(preds, target), F.r2_score(preds, target),
                F.kl_divergence(preds.softmax(0)[None], target.softmax(0)[None])]
    return _run_metrics(metrics, batches, functional)


# -- text ------------------------------------------------------------------------------------
def text():
    def metrics():
        from torchmetrics import text as T
        return [T.WordErrorRate(), T.CharErrorRate(), T.MatchErrorRate(), T.WordInfoLost(), T.EditDistance(),
                T.BLEUScore(n_gram=2, smooth=True), T.CHRFScore(), T.TranslationEditRate(),
                T.ExtendedEditDistance()]

    def batches():
        return [{"args": (["the cat sat on the mat", "a quick brown fox"],
                          [["the cat sat on a mat"], ["the quick brown fox jumps"]])},
                {"args": (["hello world again", "speech recognition works"],
                          [["hello world"], ["speech recognition is hard"]])}]

    flat = ("WordErrorRate", "CharErrorRate", "MatchErrorRate", "WordInfoLost", "EditDistance")

    def wrapped():            # WER-like metrics take one reference per prediction
        return [Adapt(m, (lambda preds, refs: (preds, [r[0] for r in refs])) if type(m).__name__ in flat
                      else (lambda preds, refs: (preds, refs))) for m in metrics()]

    def functional(preds, refs):
        from torchmetrics.functional import text as F
        return [F.word_error_rate(preds, [r[0] for r in refs]), F.bleu_score(preds, refs)]
    return _run_metrics(wrapped, batches, functional)


def perplexity():
    def metrics():
        from torchmetrics.text import Perplexity
        return [Perplexity(ignore_index=-100)]

    def batches():
        g = gen(105)
        out = []
        for _ in range(2):
            t = torch.randint(0, 11, (2, 8), generator=g)
            t[:, -2:] = -100
            out.append({"args": (torch.randn(2, 8, 11, generator=g), t)})
        return out

    def functional(preds, target):
        from torchmetrics.functional.text import perplexity as ppl
        return ppl(preds, target, ignore_index=-100)
    return _run_metrics(metrics, batches, functional)


# -- audio -----------------------------------------------------------------------------------
def audio():
    def metrics():
        from torchmetrics import audio as A
        from torchmetrics.functional.audio import scale_invariant_signal_distortion_ratio as si_sdr
        return [A.ScaleInvariantSignalNoiseRatio(), A.ScaleInvariantSignalDistortionRatio(),
                A.SignalNoiseRatio(), A.SignalDistortionRatio(filter_length=32),
                A.PermutationInvariantTraining(si_sdr, mode="speaker-wise", eval_func="max"),
                A.PermutationInvariantTraining(si_sdr, mode="permutation-wise", eval_func="max")]

    def batches():
        g = gen(106)
        out = []
        for _ in range(2):
            t = torch.randn(2, 2, 400, generator=g)
            out.append({"args": (t.flip(1) + 0.1 * torch.randn(2, 2, 400, generator=g), t)})
        return out

    def functional(preds, target):
        from torchmetrics.functional import audio as F
        return [F.permutation_invariant_training(preds, target, F.scale_invariant_signal_distortion_ratio),
                F.signal_distortion_ratio(preds, target, filter_length=32)]
    return _run_metrics(metrics, batches, functional)


# -- detection, segmentation, clustering -------------------------------------------------------------
def detection():
    def metrics():
        from torchmetrics import detection as D
        return [D.IntersectionOverUnion(class_metrics=True), D.GeneralizedIntersectionOverUnion(),
                D.DistanceIntersectionOverUnion(), D.CompleteIntersectionOverUnion()]

    def batches():
        g = gen(107)
        out = []
        for k in range(2):
            preds, target = [], []
            for i in range(2):
                n = 3 + i + k
                xy = torch.rand(n, 2, generator=g) * 40
                b = torch.cat([xy, xy + 5 + torch.rand(n, 2, generator=g) * 20], 1)
                lab = torch.randint(0, 3, (n,), generator=g)
                preds.append({"boxes": b + torch.randn(n, 4, generator=g), "scores": torch.rand(n, generator=g),
                              "labels": lab})
                target.append({"boxes": b, "labels": lab})
            out.append({"args": (preds, target)})
        return out
    return _run_metrics(metrics, batches)


def segmentation():
    def metrics():
        from torchmetrics.detection import PanopticQuality
        from torchmetrics.segmentation import GeneralizedDiceScore, MeanIoU
        return [MeanIoU(num_classes=NC, input_format="index"), GeneralizedDiceScore(num_classes=NC, input_format="index"),
                PanopticQuality(things={1, 2}, stuffs={0, 3})]

    def batches():
        g = gen(108)
        out = []
        for _ in range(2):
            p = torch.randint(0, NC, (2, 16, 16), generator=g)
            t = torch.randint(0, NC, (2, 16, 16), generator=g)
            pan_p = torch.stack([p, torch.randint(0, 3, (2, 16, 16), generator=g)], -1)
            pan_t = torch.stack([t, torch.randint(0, 3, (2, 16, 16), generator=g)], -1)
            out.append({"args": (p, t, pan_p, pan_t)})
        return out

    def wrapped():
        return [Adapt(m, (lambda p, t, pan_p, pan_t: (pan_p, pan_t)) if type(m).__name__ == "PanopticQuality"
                      else (lambda p, t, pan_p, pan_t: (p, t))) for m in metrics()]
    return _run_metrics(wrapped, batches)


def clustering_aggregation():
    def metrics():
        from torchmetrics import CatMetric, MaxMetric, MeanMetric, MetricCollection
        from torchmetrics.classification import MulticlassAccuracy, MulticlassPrecision, MulticlassRecall
        from torchmetrics.clustering import AdjustedRandScore, NormalizedMutualInfoScore

        def clu(pred_lab, true_lab, values, probs):
            return pred_lab, true_lab

        def agg(pred_lab, true_lab, values, probs):
            return (values,)
        coll = MetricCollection([MulticlassAccuracy(num_classes=NC), MulticlassPrecision(num_classes=NC),
                                 MulticlassRecall(num_classes=NC)], compute_groups=True)
        return [Adapt(NormalizedMutualInfoScore(), clu), Adapt(AdjustedRandScore(), clu),
                Adapt(MeanMetric(nan_strategy="warn"), agg), Adapt(CatMetric(nan_strategy="ignore"), agg),
                Adapt(MaxMetric(), agg), Adapt(coll, lambda pred_lab, true_lab, values, probs: (probs, true_lab))]

    def batches():
        g = gen(109)
        out = []
        for _ in range(2):
            v = torch.randn(10, generator=g)
            v[3] = float("nan")
            out.append({"args": (torch.randint(0, NC, (20,), generator=g), torch.randint(0, NC, (20,), generator=g), v,
                                 torch.rand(20, NC, generator=g))})
        return out
    return _run_metrics(metrics, batches)


MODELS = {
    "tm_multiclass": multiclass(),
    "tm_binary_multilabel": binary_multilabel(),
    "tm_retrieval": retrieval(),
    "tm_regression": regression(),
    "tm_text": text(),
    "tm_perplexity": perplexity(),
    "tm_audio": audio(),
    "tm_detection_iou": detection(),
    "tm_segmentation_panoptic": segmentation(),
    "tm_clustering_aggregation": clustering_aggregation(),
}
