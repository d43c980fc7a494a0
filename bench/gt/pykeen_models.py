"""pykeen 1.11.1 (knowledge-graph embeddings): interaction models trained with pykeen's own sLCWA and
LCWA training loops and evaluated with its filtered rank-based evaluator, on a tiny random knowledge
graph built in memory (24 entities, 3 relations, ~130 distinct triples, 12 held out for evaluation;
nothing is downloaded: no pykeen dataset is used). Random initialisation, seeded.

Installed for suite h in a separate venv (/work/venv_h, which also sees the shared heavy venv's torch
2.14.1 through a .pth): pykeen 1.11.1 (class-resolver, torch-max-mem, pandas, ...). Run the harness
with that venv's python.

The step is what pykeen runs every iteration:

* train: `TrainingLoop._train_epoch` -- the body of `TrainingLoop.train`'s epoch loop -- over two
  batches that pykeen's own DataLoader built (outside the step, as its workers do on the host:
  instance creation and negative sampling, with filtering where the run says so). Per batch it runs
  the callbacks' `pre_batch` (zero_grad), `_forward_pass` (`_process_batch`: scoring, the loss with
  the negative-sampling filter masks, regularisation; the non-finite-loss check, `backward`,
  `loss.item()`), then gradient clipping, `optimizer.step()` and `model.post_parameter_update()`
  (constraints such as TransE's entity normalisation);
* eval: `RankBasedEvaluator(filtered=True).evaluate(model, test_triples, additional_filter_triples=
  [train_triples])` -- what pykeen's evaluation loop and early stopper call every validation: the
  filter triples, the batch loop (`predict` on all entities for head and tail, the sparse positive
  filter via `nonzero`, `filter_scores_`), the ranks and the metrics of `finalize()`.

The evaluation and filter triples are step inputs (device tensors as in a GPU run); the
DataLoader's batches are not (host tensors, as in a GPU run; `_process_batch` moves them to
`model.device`).
"""
from __future__ import annotations

import itertools

import torch

from . import gen, step

N_ENT, N_REL = 24, 3


def _triples(seed, n=140):
    g = gen(seed)
    h = torch.randint(0, N_ENT, (n,), generator=g)
    r = torch.randint(0, N_REL, (n,), generator=g)
    t = torch.randint(0, N_ENT, (n,), generator=g)
    tri = torch.unique(torch.stack([h, r, t], 1), dim=0)
    tri = tri[tri[:, 0] != tri[:, 2]]
    perm = torch.randperm(len(tri), generator=gen(seed + 1))
    return tri[perm]


def _factories(seed, inverse=False):
    from pykeen.triples import CoreTriplesFactory
    tri = _triples(seed)
    n_test = 12
    train, test = tri[n_test:], tri[:n_test]
    tf = CoreTriplesFactory.create(mapped_triples=train, num_entities=N_ENT, num_relations=N_REL,
                                   create_inverse_triples=inverse)
    return tf, train, test


def _kge_run(model_fn, seed, loop="slcwa", inverse=False, sampler=None, sampler_kwargs=None,
             label_smoothing=0.0, clip=1.0, batch_size=16, loss=None, loss_kwargs=None):
    """A model trained for one step (two batches) by pykeen's training loop; eval: filtered ranks."""
    from pykeen.evaluation import RankBasedEvaluator
    from pykeen.training import LCWATrainingLoop, SLCWATrainingLoop
    from pykeen.training.callbacks import (GradientNormClippingTrainingCallback, MultiTrainingCallback,
                                           OptimizerTrainingCallback)
    tf, train, test = _factories(seed, inverse)
    torch.manual_seed(seed)
    kw = {"triples_factory": tf, "random_seed": seed}
    if loss is not None:
        kw.update(loss=loss, loss_kwargs=loss_kwargs)
    model = model_fn(**kw)
    if loop == "slcwa":
        tl = SLCWATrainingLoop(model=model, triples_factory=tf, optimizer="adam", negative_sampler=sampler or "basic",
                               negative_sampler_kwargs=sampler_kwargs)
    else:
        tl = LCWATrainingLoop(model=model, triples_factory=tf, optimizer="adam")
    loader = tl._create_training_data_loader(tf, sampler=None, batch_size=batch_size, drop_last=False, shuffle=True)
    batches = list(itertools.islice(iter(loader), 2))
    pre = [GradientNormClippingTrainingCallback(max_norm=clip)] if clip else []
    cb = MultiTrainingCallback(callbacks=[OptimizerTrainingCallback(pre_step_callbacks=pre)])
    for c in [cb, *pre]:      # (pykeen 1.11.1's `_train` leaves pre-step callbacks unregistered)
        c.register_training_loop(tl)
    evaluator = RankBasedEvaluator(filtered=True)

    def run(train, test):
        if model.training:
            return tl._train_epoch(batches=batches, callbacks=cb, sub_batch_size=None, label_smoothing=label_smoothing,
                                   slice_size=None, epoch=1, only_size_probing=False)
        res = evaluator.evaluate(model, test, batch_size=8, additional_filter_triples=[train], use_tqdm=False)
        return res.get_metric("both.realistic.inverse_harmonic_mean_rank"), res.get_metric("hits@10")
    args = ((train, test), {})
    return step(run, eval_runs=args, train_runs=args, model=model)


def transe_slcwa():
    """TransE (margin ranking loss, entity normalisation constraint) with the basic negative sampler,
    filtered by a Python-set filterer (the masks reach the step), gradient clipping."""
    from pykeen.models import TransE
    return _kge_run(TransE, 1101, sampler="basic", sampler_kwargs={"num_negs_per_pos": 2, "filtered": True})


def rotate_nssa():
    """RotatE with the self-adversarial negative-sampling loss and the Bernoulli sampler, filtered by
    a Bloom filter."""
    from pykeen.models import RotatE
    return _kge_run(RotatE, 1111, sampler="bernoulli", loss="nssa",
                    sampler_kwargs={"num_negs_per_pos": 3, "filtered": True, "filterer": "bloom"})


def distmult_lcwa():
    """DistMult (LpRegularizer) with the LCWA loop, BCE-with-logits on the dense labels, label smoothing."""
    from pykeen.models import DistMult
    return _kge_run(DistMult, 1121, loop="lcwa", label_smoothing=0.1, loss="bcewithlogits")


def complex_lcwa():
    """ComplEx with the LCWA loop and the softmax cross-entropy loss."""
    from pykeen.models import ComplEx
    return _kge_run(ComplEx, 1131, loop="lcwa", loss="crossentropy")


def conve_lcwa():
    """ConvE (inverse triples, batch norm, 2-d convolution) with the LCWA loop and BCE."""
    from pykeen.models import ConvE
    return _kge_run(lambda **kw: ConvE(embedding_dim=16, output_channels=4, **kw), 1141, loop="lcwa",
                    inverse=True, loss="bcewithlogits", batch_size=16)


def evaluators():
    """Eval only: a DistMult model scored by the other evaluators a validation can use -- the
    classification evaluator (dense positive masks), the sampled and macro rank-based evaluators
    (relation prediction and entity restriction with ranks are not implemented / fail in pykeen
    1.11.1) -- and pykeen.predict's `predict_target` (tails of a query, filtered by the training
    triples) and `predict_triples`, as a user queries a trained model."""
    from pykeen.evaluation import ClassificationEvaluator, MacroRankBasedEvaluator, SampledRankBasedEvaluator
    from pykeen.models import DistMult
    from pykeen.predict import predict_target, predict_triples
    from pykeen.triples import CoreTriplesFactory
    tf, train, test = _factories(1201)
    model = DistMult(triples_factory=tf, random_seed=1201)
    test_tf = CoreTriplesFactory.create(mapped_triples=test, num_entities=N_ENT, num_relations=N_REL)
    sampled = SampledRankBasedEvaluator(test_tf, additional_filter_triples=[train], num_negatives=6)
    classification, macro = ClassificationEvaluator(), MacroRankBasedEvaluator(filtered=True)

    def run(train, test):
        out = [ev.evaluate(model, test, batch_size=8, additional_filter_triples=[train], use_tqdm=False).to_flat_dict()
               for ev in (classification, macro, sampled)]
        out.append(predict_target(model, head=0, relation=1, triples_factory=tf).filter_triples(train).df)
        out.append(predict_triples(model, triples=test).process(factory=tf).df)
        return out
    args = ((train, test), {})
    return step(run, eval_runs=args, train_runs=None, model=model)


def _named(cls_name, seed, **kw):
    def build():
        import pykeen.models as m
        cls = getattr(m, cls_name)
        extra = kw.get("model_kwargs", {})
        rest = {k: v for k, v in kw.items() if k != "model_kwargs"}
        return _kge_run(lambda **k: cls(**extra, **k), seed, **rest)
    return build


MODELS = {
    "pykeen_transe_slcwa": transe_slcwa,
    "pykeen_rotate_nssa": rotate_nssa,
    "pykeen_distmult_lcwa": distmult_lcwa,
    "pykeen_complex_lcwa": complex_lcwa,
    "pykeen_conve_lcwa": conve_lcwa,
    "pykeen_transh_softplus": _named("TransH", 1151, loss="softplus"),
    "pykeen_tucker_lcwa": _named("TuckER", 1161, loop="lcwa", model_kwargs={"embedding_dim": 16}),
    "pykeen_rgcn_slcwa": _named("RGCN", 1171, model_kwargs={"embedding_dim": 16, "num_layers": 2}),
    "pykeen_compgcn_slcwa": _named("CompGCN", 1181, inverse=True, model_kwargs={"embedding_dim": 16}),
    "pykeen_boxe_slcwa": _named("BoxE", 1191, model_kwargs={"embedding_dim": 16}),
    "pykeen_transe_lcwa_margin": _named("TransE", 1211, loop="lcwa", loss="marginranking"),
    "pykeen_pairre_doublemargin": _named("PairRE", 1221, loss="doublemargin", sampler="basic",
                                         sampler_kwargs={"num_negs_per_pos": 2, "filtered": True}),
    "pykeen_nodepiece_infonce": _named("NodePiece", 1231, inverse=True, loss="infonce", sampler="basic",
                                       sampler_kwargs={"num_negs_per_pos": 3, "filtered": True},
                                       model_kwargs={"embedding_dim": 16, "num_tokens": 4}),
    "pykeen_evaluators": evaluators,
}
