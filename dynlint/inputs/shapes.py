"""`dynlint shapes`: scan a data loader's batches and report its input dynamicity."""
from __future__ import annotations

import io
import math
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from . import analysis
from .distributed import round_robin, sampler_shards, simulate
from .signature import Signature, batch_signature, compact, describe, to_json


class ScanError(Exception):
    """A loader that cannot be scanned (raises, is empty, is not iterable); the CLI exits 2."""


class EmptyLoader(ScanError):
    """The loader yielded no batch at all."""


@dataclass
class ScanResult:
    signatures: list[Signature]  # unique, in order of first appearance
    sequence: list[int]  # per batch: index into signatures
    stopped_by: str  # "end", "max_batches" or "max_seconds"
    seconds: float = 0.0  # wall time; shown in text only, so JSON stays byte-identical across runs
    loader: dict = field(default_factory=dict)  # batch_size, drop_last, dataset_size when known
    distributed: dict | None = None

    # ---- raw numbers -------------------------------------------------------------------------
    @property
    def batches(self) -> int:
        return len(self.sequence)

    @property
    def unique_shapes(self) -> int:
        return len(self.signatures)

    @property
    def complete(self) -> bool:
        return self.stopped_by == "end"

    def _stats(self):
        counts = [0] * len(self.signatures)
        first = [-1] * len(self.signatures)
        last = [-1] * len(self.signatures)
        for step, i in enumerate(self.sequence):
            counts[i] += 1
            if first[i] < 0:
                first[i] = step
            last[i] = step
        return counts, first, last

    def counts(self) -> dict[str, int]:
        """{readable signature: batches}, most frequent first."""
        return {row["signature"]: row["count"] for row in self.shapes()}

    def shapes(self) -> list[dict]:
        counts, first, last = self._stats()
        order = sorted(range(len(counts)), key=lambda i: (-counts[i], first[i]))
        total = max(self.batches, 1)
        return [{"signature": describe(self.signatures[i]), "count": counts[i],
                 "percent": round(100.0 * counts[i] / total, 3), "first_step": first[i],
                 "last_step": last[i], "compact": repr(compact(self.signatures[i])),
                 "leaves": to_json(self.signatures[i])} for i in order]

    # ---- judgement ---------------------------------------------------------------------------
    @property
    def verdict(self) -> str:
        return analysis.habana_verdict(self.unique_shapes)

    def summary(self) -> dict:
        counts, first, last = self._stats()
        desc = sorted(counts, reverse=True)
        singletons = sum(1 for c in counts if c == 1)
        return {
            "effective_shapes": analysis.effective_shapes(counts),
            "shapes_covering_95pct": analysis.coverage(desc, 0.95),
            "shapes_covering_99pct": analysis.coverage(desc, 0.99),
            # Good-Turing: the share of batches whose shape was seen once estimates the chance
            # that the next batch brings a shape not seen yet (0 means the scan has saturated).
            "new_shape_probability": round(singletons / self.batches, 4) if self.batches else 0.0,
            "saturation": analysis.saturation(first, self.batches),
            "varying_dims": analysis.varying_dims(self.signatures, counts),
            "partial_batch": analysis.partial_batches(self.signatures, counts, first, last,
                                                      self.batches, self.complete),
        }

    def hints(self, summary: dict | None = None) -> list[str]:
        s = summary or self.summary()
        out = []
        n = self.unique_shapes
        if n > 1 and s["shapes_covering_99pct"] == 1:
            out.append(f"{n} shapes, but 1 shape covers 99% of batches: the rest are rare "
                       "(a compile each, early or late)")
        elif n > 1:
            out.append(f"{s['shapes_covering_95pct']} shapes cover 95% of batches, "
                       f"{s['shapes_covering_99pct']} cover 99%; effective shapes {s['effective_shapes']}")
        pb = s["partial_batch"]
        if pb and pb["last_batch_only"]:
            out.append(f"the last batch is partial ({pb['last_batch_size']} of {pb['batch_size']}): "
                       "use drop_last=True, or pad the batch dimension, to save one shape and its compile")
        elif pb:
            out.append(f"{pb['smaller_batches']} batches are smaller than {pb['batch_size']} "
                       f"({pb['smaller_shapes']} shapes): pad the batch dimension or use a fixed batch size")
        seen = set()
        for row in s["varying_dims"]:
            if row["dim"] == 0 or row["group"] in seen:
                continue
            seen.add(row["group"])
            names = ", ".join([f"{row['path'] or 'batch'}:{row['dim']}", *row["tied_with"]])
            out.append(f"{names} varies ({row['values']} values, {row['min']}..{row['max']}, "
                       f"median {row['median']}): pad to bucket boundaries (`dynlint buckets`)"
                       + (", or resize/crop images to one size" if self._is_image_dim(row) else ""))
        late = s["saturation"]["late_shapes"] - (1 if pb and pb["last_batch_only"] else 0)
        if late > 0:  # the partial last batch is explained above
            out.append(f"{late} shape{'s' if late > 1 else ''} first appeared in the second half of the scan: "
                       "expect compiles late in training, not only at warm-up")
        if not self.complete:
            out.append(f"sampled {self.batches} batches (stopped by {self.stopped_by.replace('_', '-')}); "
                       f"chance the next batch has a new shape ~ {s['new_shape_probability']:.1%}")
        return out

    def _is_image_dim(self, row) -> bool:
        return any(leaf.path == row["path"] and leaf.shape and len(leaf.shape) == 4 and row["dim"] >= 2
                   for sig in self.signatures for leaf in sig)

    # ---- output ------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        s = self.summary()
        out = {"batches": self.batches, "unique_shapes": self.unique_shapes, "shapes": self.shapes(),
               "verdict": self.verdict, "complete": self.complete, "stopped_by": self.stopped_by,
               **s, "hints": self.hints(s), "loader": self.loader}
        if self.distributed is not None:
            out["distributed"] = self.distributed
        return out


def _loader_facts(loader) -> dict:
    facts = {}
    for name in ("batch_size", "drop_last"):
        value = getattr(loader, name, None)
        if isinstance(value, (int, bool)):
            facts[name] = value
    dataset = getattr(loader, "dataset", None)
    try:
        facts["dataset_size"] = len(dataset) if dataset is not None else None
    except TypeError:
        facts["dataset_size"] = None
    try:
        facts["batches_per_epoch"] = len(loader)
    except TypeError:
        facts["batches_per_epoch"] = None
    return {k: v for k, v in facts.items() if v is not None}


def _progress(total, enabled):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="batch", file=sys.stderr, desc="dynlint shapes", leave=False,
                dynamic_ncols=True)


def _iterate(loader, max_batches, max_seconds, progress, on_batch):
    if not isinstance(loader, Iterable):
        raise ScanError(f"expected a DataLoader or another iterable of batches, got {type(loader).__name__}")
    start = time.perf_counter()
    stopped = "end"
    n = 0
    try:
        iterator = iter(loader)
    except Exception as exc:
        raise ScanError(f"iter(loader) raised {type(exc).__name__}: {exc}") from exc
    while True:
        if max_batches is not None and n >= max_batches:
            stopped = "max_batches"
            break
        if max_seconds is not None and time.perf_counter() - start >= max_seconds:
            stopped = "max_seconds"
            break
        try:
            batch = next(iterator)
        except StopIteration:
            break
        except Exception as exc:
            raise ScanError(f"the loader raised {type(exc).__name__} at batch {n}: {exc}") from exc
        on_batch(batch)
        n += 1
        if progress is not None:
            progress.update(1)
    return stopped, time.perf_counter() - start


def scan(loader, max_batches: int | None = None, max_seconds: float | None = None, *,
         progress: bool | None = None, world_size: int | None = None, shard: str = "auto") -> ScanResult:
    """Walk the loader's batches (all, or up to max_batches / max_seconds) and record shapes.

    progress: None shows a bar on stderr only when stderr is a terminal."""
    if max_batches is not None and max_batches < 1:
        raise ScanError("max_batches must be at least 1")
    index: dict[Signature, int] = {}
    signatures: list[Signature] = []
    sequence: list[int] = []

    def record(batch):
        sig = batch_signature(batch)
        i = index.get(sig)
        if i is None:
            i = index[sig] = len(signatures)
            signatures.append(sig)
        sequence.append(i)

    if progress is None:
        progress = sys.stderr.isatty()
    facts = _loader_facts(loader)
    total = max_batches if max_batches is not None else facts.get("batches_per_epoch")
    if max_batches is not None and facts.get("batches_per_epoch"):
        total = min(max_batches, facts["batches_per_epoch"])
    bar = _progress(total, progress)
    try:
        stopped, seconds = _iterate(loader, max_batches, max_seconds, bar, record)
    finally:
        if bar is not None:
            bar.close()
    if not sequence:
        raise EmptyLoader("the loader yielded no batches (empty dataset, or batch_size larger than "
                        "the dataset with drop_last=True?)")
    result = ScanResult(signatures, sequence, stopped, seconds, facts)
    if world_size:
        result.distributed = simulate_world(result, loader, world_size, shard, max_batches)
    return result


def simulate_world(result: ScanResult, loader, world_size: int, shard: str, max_batches=None) -> dict:
    """Shard the loader over world_size ranks and count compile stall steps (see distributed.py)."""
    if world_size < 1:
        raise ScanError("--world-size must be at least 1")
    shards = sampler_shards(loader, world_size) if shard in ("auto", "sampler") else None
    if shard == "sampler" and shards is None:
        raise ScanError("--shard sampler needs a torch DataLoader over a map-style dataset with a "
                        "plain batch size; use --shard batches")
    if shards is None:
        per_rank = round_robin(result.sequence, world_size)
        how = "batches"  # batch i to rank i % N
    else:
        per_rank = []
        limit = math.ceil(max_batches / world_size) if max_batches else None
        for rank_loader in shards:
            seq: list[Signature] = []
            _iterate(rank_loader, limit, None, None, lambda b, seq=seq: seq.append(batch_signature(b)))
            per_rank.append(seq)
        how = "sampler"  # DistributedSampler(num_replicas=N, rank=r), same batch size and collate
    report = simulate(per_rank)
    report["shard"] = how
    return report


def render_text(result: ScanResult, top: int = 20, d: dict | None = None) -> str:
    d = d or result.to_dict()
    out = io.StringIO()
    rows = d["shapes"][:top] if top else d["shapes"]
    width = max([len(r["signature"]) for r in rows] + [9])
    out.write(f"{'shape':<{width}}  {'count':>7}  {'%':>6}  {'first':>6}  {'last':>6}\n")
    for r in rows:
        out.write(f"{r['signature']:<{width}}  {r['count']:>7}  {r['percent']:>6.2f}  "
                  f"{r['first_step']:>6}  {r['last_step']:>6}\n")
    if len(d["shapes"]) > len(rows):
        out.write(f"... {len(d['shapes']) - len(rows)} more shapes (--top 0 shows all)\n")
    out.write(f"\nNumber of unique shapes: {d['unique_shapes']} in {d['batches']} batches\n{d['verdict']}\n")
    if d["varying_dims"]:
        out.write("\nvarying dimensions:\n")
        for row in d["varying_dims"]:
            tied = f"  varies with {', '.join(row['tied_with'])}" if row["tied_with"] else ""
            out.write(f"  {row['path'] or 'batch'}:{row['dim']}  {row['values']} values  "
                      f"min {row['min']}  median {row['median']}  max {row['max']}{tied}\n")
    sat = d["saturation"]
    out.write(f"\nsaturation: 95% of shapes seen by batch {sat['step_95']}, all by batch {sat['step_all']}; "
              f"{sat['late_shapes']} first seen in the second half\n")
    if "distributed" in d:
        w = d["distributed"]
        out.write(f"\n{w['world_size']} ranks ({w['shard']} sharding), {w['steps']} steps, "
                  f"{w['unique_shapes']} shapes: compile stall steps {w['stall_steps_per_rank_cache']} with "
                  f"per-rank caches, {w['stall_steps_shared_cache']} with a shared recipe cache "
                  f"(worst case N*(S-1)+1 = {w['bound']}); compiles per rank {w['compiles_per_rank']}\n")
        out.write("  warm up every bucket shape on every rank before step 0 to remove these stalls\n")
    if d["hints"]:
        out.write("\n" + "".join(f"- {h}\n" for h in d["hints"]))
    if result.seconds:
        out.write(f"\nscanned {d['batches']} batches in {result.seconds:.2f} s "
                  f"({d['batches'] / result.seconds:,.0f} batches/s)\n")
    return out.getvalue()


def render_csv(d: dict) -> str:
    import csv

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["signature", "count", "percent", "first_step", "last_step"])
    for r in d["shapes"]:
        writer.writerow([r["signature"], r["count"], r["percent"], r["first_step"], r["last_step"]])
    return out.getvalue()


def data_dynamicity(loader, max_batches: int | None = None, file=None) -> dict:
    """Drop-in for the guides' `data_dynamicity(dataloader)`: prints the Shape | Count table, the
    `Number of unique shapes` line and the guides' verdict; returns {shape: count}.

    Shapes are shown in the guides' tuple form with real key names (never salted hashes)."""
    out = file or sys.stdout
    try:
        result = scan(loader, max_batches=max_batches, progress=False)
    except EmptyLoader:
        out.write(f"\nNumber of unique shapes: 0\n{analysis.habana_verdict(0)}\n")
        return {}
    rows = result.shapes()
    width = max([len(r["compact"]) for r in rows] + [5]) + 2
    rule = "=" * (width + 12)
    out.write(f"{rule}\n|{'Shape':<{width}}|{'Count':<9}|\n{rule}\n")
    for r in rows:
        out.write(f"|{r['compact']:<{width}}|{r['count']:<9}|\n{'-' * (width + 12)}\n")
    out.write(f"\nNumber of unique shapes: {result.unique_shapes}\n{result.verdict}\n")
    counts, _, _ = result._stats()
    return {compact(sig): c for sig, c in sorted(zip(result.signatures, counts), key=lambda p: -p[1])}
