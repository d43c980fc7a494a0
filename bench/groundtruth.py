#!/usr/bin/env python
"""Runtime ground truth for dynlint: which lines of real third-party models run data-dependent ops.

For each model in MODELS (torchvision detection/classification/segmentation, transformers
built from tiny configs; never any downloaded weights) this script runs forward passes on
random, seeded inputs -- eval mode under `no_grad`, and where cheap train mode with labels or
targets so that the losses run too -- under

* a `TorchDispatchMode` that records every aten op tagged `torch.Tag.dynamic_output_shape`
  (`aten.index.Tensor` only when one of its indices is a bool/uint8 mask) or
  `torch.Tag.data_dependent_output` (`aten._local_scalar_dense`: `.item()`, `bool(t)`,
  `int(t)`, tensors as sizes...), plus `torchvision::nms`, which carries no tag but keeps a
  data-dependent number of boxes, and `aten.is_nonzero` (`bool(t)` under inference mode). Each op is attributed to the innermost Python frame whose
  file lies in the model's package source (transformers/ or torchvision/), skipping torch
  internals; the package frames further out are kept as "callers" (a call site such as
  `box_ops.batched_nms(...)` whose callee runs the op);
* a `TorchFunctionMode` that records the device-to-host copies which dispatch nothing on a CPU
  run -- `.cpu()`, `.to("cpu")`, `.tolist()`, `.numpy()`/`np.asarray`, printing a tensor -- as
  `host-copy:cpu|to|tolist|numpy|format` ops, when the tensor is one that a GPU run holds on
  the device (`Provenance`: the model's parameters and buffers, the step's inputs and what is
  computed from them; copies of tensors built on the host are not recorded). Host syncs of
  host-built tensors stay recorded as before, counted under the site's `host_built`. Every
  `.tolist()` / `.numpy()` call is still noted apart as `host_reads` (not ground truth);
* `sys.settrace`, limited to the package files, for line coverage of the runs.

Output (JSON, `--out`):

    {"meta": {...versions, package roots...},
     "models": {NAME: {"status": "ok" | "error" | "timeout", "error": str, "seconds": float,
                       "phases": {"eval": "ok", "train": "error: ..."},
                       "files": {"transformers/models/bert/modeling_bert.py": {
                           "dynamic":  {"123": {"ops": {"aten._local_scalar_dense": 4},
                                                "phases": ["eval"], "via": ["aminmax"],
                                                "host_built": {"aten._local_scalar_dense": 1}},
                                        "130": {"ops": {"host-copy:cpu": 2}, ...}},
                           "callers":  {"88": ["torchvision.nms"]},
                           "host_reads": {"77": ["tolist"]},
                           "executed": "1-2,5,9-14"}}}}}      # line ranges

File keys are relative to the directory holding the package (site-packages).
`via` lists the op dispatched just before a host sync (e.g. `aminmax` for one_hot's range
check, `any`/`eq` for `x in t`), which helps classify misses.

Usage:

    python bench/groundtruth.py --out bench/results/gt.json            # all models (~10 min)
    python bench/groundtruth.py --models bert,fasterrcnn --out /tmp/gt.json   # substring filter
    python bench/groundtruth.py --list
    python bench/groundtruth.py --suite new --out bench/results/gt_new.json   # the six packages of
                                        # issue 9 (kornia, diffusers, monai, segment_anything,
                                        # x_transformers, whisper; builders in bench/gt/)
    python bench/groundtruth.py --suite b --out bench/results/gt_b.json   # ultralytics and
                                        # torch_geometric (detection, graph learning)
    python bench/groundtruth.py --suite c --out bench/results/gt_c.json   # timm, torchmetrics,
                                        # torchaudio (vision backbones, metrics, audio)
    python bench/groundtruth.py --suite d --out bench/results/gt_d.json   # effdet, demucs,
                                        # torchdiffeq, open_clip (detection, music separation,
                                        # ODE solvers, vision-language)
    python bench/groundtruth.py --suite e --out bench/results/gt_e.json   # speechbrain (ASR
                                        # training and decoding, speaker embeddings)
    python bench/groundtruth.py --suite f --out bench/results/gt_f.json   # segmentation_models_pytorch,
                                        # torchsde (segmentation losses and metrics, SDE solvers)
    python bench/groundtruth.py --suite g --out bench/results/gt_g.json   # pytorch_metric_learning,
                                        # gpytorch + linear_operator (metric learning, Gaussian processes)
    python bench/groundtruth.py --suite h --out bench/results/gt_h.json   # pykeen, pytorch_tabnet
                                        # (knowledge-graph embeddings, attentive tabular networks)
    python bench/groundtruth.py --suite i --out bench/results/gt_i.json   # torchrl, sbi
                                        # (reinforcement learning, simulation-based inference)
    python bench/groundtruth.py --suite j --out bench/results/gt_j.json   # botorch, deepxde
                                        # (Bayesian optimisation, physics-informed networks)
    python bench/groundtruth.py --suite k --out bench/results/gt_k.json   # k_diffusion, normflows
                                        # (diffusion samplers, normalizing flows)

Everything is seeded; a failing model (or phase) is recorded and the run goes on. Each model
has a time limit (`--timeout`, default 240 s). Use `--threads` to limit torch's intra-op
threads (default 2).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import signal
import sys
import time
import traceback
import weakref
from collections import Counter

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

_MASK_DTYPES = (torch.bool, torch.uint8)
# untagged but dynamic or host-reading. `bool(t)` under `torch.inference_mode()` (ultralytics'
# predictors) dispatches `aten.is_nonzero` itself instead of its decomposition into
# `_local_scalar_dense`, and that op carries no tag although it reads the value on the host.
_EXTRA_DYNAMIC = {"torchvision.nms.default": "torchvision.nms", "aten.is_nonzero.default": "aten.is_nonzero"}
_HOST_READS = {"tolist", "numpy"}
_FORWARDERS = {"__torch_function__", "__torch_dispatch__"}


# ---------------------------------------------------------------------------------------
# Recording
# ---------------------------------------------------------------------------------------
class Roots:
    """Maps code filenames to package-relative paths (None outside the packages)."""

    def __init__(self, packages: list[str]):
        self.dirs = []
        for name in packages:
            mod = __import__(name)
            # a namespace package (pytorch_tabnet ships no __init__.py) has no __file__
            pkg_dir = (os.path.dirname(os.path.realpath(mod.__file__)) if getattr(mod, "__file__", None)
                       else os.path.realpath(list(mod.__path__)[0]))
            self.dirs.append((pkg_dir + os.sep, os.path.dirname(pkg_dir) + os.sep))
        self._cache: dict[str, str | None] = {}

    def rel(self, filename: str) -> str | None:
        try:
            return self._cache[filename]
        except KeyError:
            pass
        rel = None
        if not filename.startswith("<"):
            real = os.path.realpath(filename)
            for pkg_dir, base in self.dirs:
                if real.startswith(pkg_dir):
                    rel = real[len(base):]
                    break
        self._cache[filename] = rel
        return rel


class FileRecord:
    __slots__ = ("dynamic", "callers", "host_reads", "executed")

    def __init__(self):
        self.dynamic: dict[int, dict] = {}
        self.callers: dict[int, set] = {}
        self.host_reads: dict[int, set] = {}
        self.executed: set[int] = set()

    def to_json(self) -> dict:
        return {
            "dynamic": {str(k): {"ops": dict(sorted(v["ops"].items())),
                                 "phases": sorted(v["phases"]),
                                 "via": sorted(v["via"]),
                                 **({"host_built": dict(sorted(v["host_built"].items()))}
                                    if v.get("host_built") else {})}
                        for k, v in sorted(self.dynamic.items())},
            "callers": {str(k): sorted(v) for k, v in sorted(self.callers.items())},
            "host_reads": {str(k): sorted(v) for k, v in sorted(self.host_reads.items())},
            "executed": to_ranges(self.executed),
        }


def to_ranges(lines) -> str:
    """Sorted line numbers as a compact string: "3-5,9,12-13"."""
    out, start, prev = [], None, None
    for n in sorted(lines):
        if prev is not None and n == prev + 1:
            prev = n
            continue
        if start is not None:
            out.append(f"{start}-{prev}" if prev != start else f"{start}")
        start = prev = n
    if start is not None:
        out.append(f"{start}-{prev}" if prev != start else f"{start}")
    return ",".join(out)


def from_ranges(text: str) -> list[int]:
    out: list[int] = []
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


# ---------------------------------------------------------------------------------------
# Provenance: which tensors of this CPU run would live in accelerator memory on a GPU/HPU
# ---------------------------------------------------------------------------------------
_DEVICE_ATTR = torch._C.TensorBase.device


class Provenance:
    """Which tensors of a CPU run would be device memory in an accelerator run ("device-derived").

    On a CPU run a `.cpu()`, `.tolist()` or print of a tensor dispatches nothing, yet on an
    accelerator it is a device-to-host copy that waits for the device -- but only when the tensor
    lives on the device, and a tensor built from Python values without `device=` does not. So the
    recorder follows provenance, without tensor subclasses:

    * roots: the model's parameters and buffers (and whatever else its `_apply` moves, as
      `model.to(device)` would: torchmetrics' states) and every tensor of the step's inputs;
    * an aten op with any device-derived tensor input makes its outputs device-derived
      (`zeros_like`, `new_zeros`, in-place ops that return `self`, ...);
    * the device objects that `x.device` returns in the step are remembered by identity, with
      the provenance of `x`. A factory or `.to()` whose device is the `.device` of a
      device-derived tensor, a device-derived tensor, `gt.DEVICE` (the harness's stand-in for
      the accelerator) or an accelerator string/index makes device memory; `.cpu()` or a
      `"cpu"` string makes host memory; anything else is undecided, and nothing is recorded or
      re-marked for it: the `.device` of a host-built tensor (or a host-built `.to(other)`:
      such code follows whatever tensor it is given, and a harness tensor built without
      `device=` would be on the accelerator in a GPU run), and a device object built in the
      step -- `torch.device("cpu")` for an explicit host copy cannot be told apart from
      demucs' `th.device(device)`, which rebuilds the compute device;
    * `.cpu()` / `.to(<host>)` return host memory: on CPU they return the tensor itself, so the
      recorder hands back an alias (`view_as`) to keep the moved tensor apart from its source.

    Approximations, all towards recording less: `.to(torch.device("cpu"))` is not recorded (one
    kornia RANSAC line); `str(x.device)` reads as the host, so a harness hands a package
    `gt.DEVICE` (or lets it take `x.device`), never `"cpu"` (a package that keeps its device
    as a string is handed `gt.DEVICE_NAME`, a `"cpu"` string known by identity); tensors a
    harness builds inside the step without `device=` are host-built, so their copies are not recorded; `dst.copy_(src)`
    into a host tensor is not recorded.
    """

    def __init__(self):
        self._tensors: dict[int, weakref.ref] = {}
        # id -> (device object, on the accelerator?): strong refs keep the ids unique
        self._devices: dict[int, tuple] = {}
        try:
            from gt import DEVICE, DEVICE_NAME
            self.note_device(DEVICE, True)
            self.note_device(DEVICE_NAME, True)
        except ImportError:
            pass

    def is_dev(self, t) -> bool:
        ref = self._tensors.get(id(t))
        return ref is not None and ref() is t

    def set(self, t, on_device: bool) -> None:
        key = id(t)
        if on_device:
            tensors = self._tensors
            if key in tensors and tensors[key]() is t:
                return

            def gone(ref, key=key, tensors=tensors):
                if tensors.get(key) is ref:
                    del tensors[key]
            try:
                tensors[key] = weakref.ref(t, gone)
            except TypeError:
                pass
        elif self.is_dev(t):
            del self._tensors[key]

    def set_tree(self, obj, on_device: bool = True, _depth: int = 0) -> None:
        if isinstance(obj, torch.Tensor):
            self.set(obj, on_device)
        elif _depth < 8 and isinstance(obj, (list, tuple)):
            for o in obj:
                self.set_tree(o, on_device, _depth + 1)
        elif _depth < 8 and isinstance(obj, dict):
            for o in obj.values():
                self.set_tree(o, on_device, _depth + 1)

    def set_module(self, model) -> None:
        """Mark what `model.to(device)` moves: `_apply` with a function that marks and returns
        the tensor unchanged (it reaches parameters, buffers and any override's state)."""
        def mark(t):
            self.set(t, True)
            return t
        try:
            model._apply(mark)
        except Exception:
            pass
        for t in list(model.parameters()) + list(model.buffers()):
            self.set(t, True)

    def any_dev(self, args, kwargs) -> bool:
        is_dev = self.is_dev
        for group in (args, kwargs.values() if kwargs else ()):
            for a in group:
                if isinstance(a, torch.Tensor):
                    if is_dev(a):
                        return True
                elif isinstance(a, (list, tuple)):
                    for b in a:
                        if isinstance(b, torch.Tensor) and is_dev(b):
                            return True
        return False

    def note_device(self, dev, on_device: bool) -> None:
        self._devices[id(dev)] = (dev, on_device)

    def device_arg(self, dev):
        """Where a `device=` / `.to()` target puts memory in a GPU run: True (the accelerator),
        False (the host) or None (undecided: the device of a host-built tensor)."""
        if isinstance(dev, torch.Tensor):
            return True if self.is_dev(dev) else None
        seen = self._devices.get(id(dev))    # (first: `gt.DEVICE_NAME` is a string known by identity)
        if seen is not None and seen[0] is dev:
            return True if seen[1] else None
        if isinstance(dev, str):
            return dev[:3] != "cpu"
        if isinstance(dev, int) and not isinstance(dev, bool):
            return True
        return None      # a device object built in the step: `torch.device("cpu")` or a rebuilt one


class Recorder:
    """Collects dynamic ops, host reads and coverage for one model."""

    def __init__(self, roots: Roots):
        self.roots = roots
        self.files: dict[str, FileRecord] = {}
        self.phase = ""
        self.unattributed: Counter = Counter()
        self.last_op = ""

    def file(self, rel: str) -> FileRecord:
        rec = self.files.get(rel)
        if rec is None:
            rec = self.files[rel] = FileRecord()
        return rec

    def _package_frames(self, frame):
        rel_of = self.roots.rel
        while frame is not None:
            rel = rel_of(frame.f_code.co_filename)
            # a tensor subclass's __torch_function__ (monai's MetaTensor) only forwards the op:
            # the site is the package line that called the torch function
            if rel is not None and frame.f_code.co_name not in _FORWARDERS:
                yield rel, frame.f_lineno
            frame = frame.f_back

    def dynamic(self, op: str, via: str, host_built: bool = False) -> None:
        frames = self._package_frames(sys._getframe(2))
        first = next(frames, None)
        if first is None:
            self.unattributed[op] += 1
            return
        rel, line = first
        site = self.file(rel).dynamic.setdefault(line, {"ops": Counter(), "phases": set(), "via": set()})
        site["ops"][op] += 1
        if host_built:      # a host sync of a tensor that is host memory on an accelerator too
            site.setdefault("host_built", Counter())[op] += 1
        site["phases"].add(self.phase)
        if via:
            site["via"].add(via)
        seen = {first}
        for rel, line in frames:
            if (rel, line) not in seen:
                seen.add((rel, line))
                self.file(rel).callers.setdefault(line, set()).add(op)

    def host_read(self, name: str) -> None:
        first = next(self._package_frames(sys._getframe(2)), None)
        if first is not None:
            self.file(first[0]).host_reads.setdefault(first[1], set()).add(name)

    # -- coverage ----------------------------------------------------------------------
    def tracer(self):
        rel_of, files, tracers = self.roots.rel, self, {}

        def global_trace(frame, event, arg):
            fn = frame.f_code.co_filename
            local = tracers.get(fn, 0)
            if local == 0:
                rel = rel_of(fn)
                if rel is None:
                    local = None
                else:
                    lines = files.file(rel).executed

                    def local(frame, event, arg, _add=lines.add):
                        if event == "line":
                            _add(frame.f_lineno)
                        return local
                tracers[fn] = local
            return local
        return global_trace


class DynamicOps(TorchDispatchMode):
    def __init__(self, recorder: Recorder, prov: Provenance | None = None):
        super().__init__()
        self.rec = recorder
        self.kinds: dict = {}
        self.prov = prov

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        kind = self.kinds.get(func, 0)
        if kind == 0:
            kind = self.kinds[func] = _classify(func)
        if kind is not None:
            if kind == "index":
                if any(isinstance(i, torch.Tensor) and i.dtype in _MASK_DTYPES
                       for i in (args[1] if len(args) > 1 else ()) or ()):
                    self.rec.dynamic("aten.index.Tensor(bool)", "")
            elif kind == "one_hot":
                if (args[1] if len(args) > 1 else kwargs.get("num_classes", -1)) == -1:
                    self.rec.dynamic("aten.one_hot", "")
            else:
                sync = kind.startswith("aten._local") or kind == "aten.is_nonzero"
                host_built = sync and self.prov is not None and not self.prov.any_dev(args, kwargs)
                self.rec.dynamic(kind, self.rec.last_op if sync else "", host_built)
        out = func(*args, **kwargs)
        if self.prov is not None and self.prov.any_dev(args, kwargs):
            self.prov.set_tree(out)                 # results of device memory stay on the device
        name = func.overloadpacket.__name__ if hasattr(func, "overloadpacket") else str(func)
        if name != "_local_scalar_dense":
            self.rec.last_op = name
        return out


def _classify(func):
    name = str(func)
    if name in _EXTRA_DYNAMIC:
        return _EXTRA_DYNAMIC[name]
    tags = getattr(func, "tags", ())
    if torch.Tag.dynamic_output_shape in tags:
        if func.overloadpacket is torch.ops.aten.index:
            return "index"
        if func.overloadpacket is torch.ops.aten.one_hot:
            return "one_hot"
        return "aten." + func.overloadpacket.__name__
    if torch.Tag.data_dependent_output in tags:
        return "aten." + func.overloadpacket.__name__
    return None


class HostReads(TorchFunctionMode):
    """Notes `.tolist()`/`.numpy()` calls (`host_reads`, any tensor), records the host copies of
    device-derived tensors as `host-copy:*` ops, and keeps the provenance of device objects and
    device moves (see `Provenance`)."""

    def __init__(self, recorder: Recorder, prov: Provenance):
        super().__init__()
        self.rec = recorder
        self.prov = prov

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name in _HOST_READS:
            self.rec.host_read(name)
        prov = self.prov
        self_t = args[0] if args and isinstance(args[0], torch.Tensor) else None
        if self_t is None:
            return _factory(func, args, kwargs, prov)
        if name == "__get__":
            out = func(*args, **kwargs)
            if getattr(func, "__self__", None) is _DEVICE_ATTR:
                prov.note_device(out, prov.is_dev(self_t))
            return out
        if name in _HOST_COPIES:
            if prov.is_dev(self_t) and _copies_elements(name, self_t):
                self.rec.dynamic(_HOST_COPIES[name], "")
            return func(*args, **kwargs)
        target = _move_target(name, args, kwargs, prov)
        if target is None:
            return _factory(func, args, kwargs, prov)
        src_dev = prov.is_dev(self_t)
        if src_dev and not target and not kwargs.get("non_blocking", False):
            self.rec.dynamic("host-copy:" + name, "")
        out = func(*args, **kwargs)
        if out is self_t and target != src_dev and isinstance(out, torch.Tensor):
            try:                       # on CPU the move returned the tensor itself: keep it apart
                out = out.view_as(out)
            except Exception:
                return out
        if isinstance(out, torch.Tensor):
            prov.set(out, target)
        return out


# host copies of a tensor's elements: method name -> recorded op. `__format__` of a 0-d tensor
# calls `.item()` (already recorded as `aten._local_scalar_dense`); printing runs with the
# dispatch modes disabled, so it is recorded here.
_HOST_COPIES = {"tolist": "host-copy:tolist", "numpy": "host-copy:numpy", "__array__": "host-copy:numpy",
                "__format__": "host-copy:format", "__repr__": "host-copy:format"}


def _factory(func, args, kwargs, prov: Provenance):
    """Any other call; a `device=` argument decides where its results live (`torch.zeros(...,
    device=d)`, `x.new_zeros(..., device=d)`, `torch.tensor(v, device=d)`)."""
    out = func(*args, **kwargs)
    dev = kwargs.get("device")
    if dev is not None:
        where = prov.device_arg(dev)
        if where is not None:
            prov.set_tree(out, where)
    return out


def _copies_elements(name: str, t) -> bool:
    try:
        if t.numel() == 0:
            return False
        return not (name == "__format__" and t.dim() == 0)
    except Exception:
        return False


def _move_target(name: str, args, kwargs, prov: Provenance):
    """For `.cpu()` / `.to(...)`: True (moves to the accelerator), False (to the host), None (no
    device move -- `.to(dtype)`, any other method -- or an undecided one)."""
    if name == "cpu":
        return False
    if name != "to":
        return None
    dev = kwargs.get("device", kwargs.get("other"))
    if dev is None and len(args) > 1 and not isinstance(args[1], torch.dtype):
        dev = args[1]
    if dev is None:
        return None
    return prov.device_arg(dev)


# ---------------------------------------------------------------------------------------
# Inputs and model builders
# ---------------------------------------------------------------------------------------
def seed_all(seed: int = 0) -> None:
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy as np
        np.random.seed(seed)
    except ImportError:
        pass


def _gen():
    return torch.Generator().manual_seed(1234)


def det_images(n=2, h=192, w=224):
    g = _gen()
    return [torch.rand(3, h - 16 * i, w, generator=g) for i in range(n)]


def det_targets(images, masks=False, keypoints=False, num_classes=91):
    g = _gen()
    out = []
    for i, img in enumerate(images):
        _, h, w = img.shape
        n = 3 + i
        xy = torch.rand(n, 2, generator=g) * torch.tensor([w * 0.6, h * 0.6])
        wh = 8 + torch.rand(n, 2, generator=g) * torch.tensor([w * 0.35, h * 0.35])
        boxes = torch.cat([xy, xy + wh], 1)
        t = {"boxes": boxes, "labels": torch.randint(1, num_classes, (n,), generator=g)}
        if masks:
            m = torch.zeros(n, h, w, dtype=torch.uint8)
            for j, b in enumerate(boxes.round().long().tolist()):
                m[j, b[1]:b[3], b[0]:b[2]] = 1
            t["masks"] = m
        if keypoints:
            kp = torch.zeros(n, 17, 3)
            kp[..., 0] = boxes[:, None, 0] + torch.rand(n, 17, generator=g) * wh[:, None, 0]
            kp[..., 1] = boxes[:, None, 1] + torch.rand(n, 17, generator=g) * wh[:, None, 1]
            kp[..., 2] = (torch.rand(n, 17, generator=g) > 0.3).float()
            t["keypoints"] = kp
        out.append(t)
    return out


def tv_detection(fn_name, masks=False, keypoints=False, **kw):
    def build():
        import torchvision
        fn = getattr(torchvision.models.detection, fn_name)
        model = fn(weights=None, weights_backbone=None, **kw)
        imgs = det_images()
        targets = det_targets(imgs, masks=masks, keypoints=keypoints,
                              num_classes=kw.get("num_classes", 2 if keypoints else 91))
        return model, [((imgs,), {})], [((imgs, targets), {})]
    return build


def tv_classifier(fn_name, size=64, train=True, batch=2, **kw):
    def build():
        import torchvision
        fn = getattr(torchvision.models, fn_name)
        model = fn(weights=None, **kw)
        x = torch.rand(batch, 3, size, size, generator=_gen())
        return model, [((x,), {})], [((x,), {})] if train else []
    return build


def tv_segmentation(fn_name, size=96, **kw):
    def build():
        import torchvision
        fn = getattr(torchvision.models.segmentation, fn_name)
        model = fn(weights=None, weights_backbone=None, **kw)
        x = torch.rand(2, 3, size, size, generator=_gen())
        return model, [((x,), {})], [((x,), {})]
    return build


def tv_video(fn_name):
    def build():
        import torchvision
        model = getattr(torchvision.models.video, fn_name)(weights=None)
        x = torch.rand(1, 3, 4, 56, 56, generator=_gen())
        return model, [((x,), {})], []
    return build


def tv_raft():
    import torchvision
    model = torchvision.models.optical_flow.raft_small(weights=None)
    g = _gen()
    a, b = torch.rand(1, 3, 128, 128, generator=g), torch.rand(1, 3, 128, 128, generator=g)
    return model, [((a, b), {"num_flow_updates": 2})], []


# -- transformers ------------------------------------------------------------------------
TEXT = dict(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
            intermediate_size=37, max_position_embeddings=64, type_vocab_size=2,
            pad_token_id=0, bos_token_id=1, eos_token_id=2)
DEC = dict(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
           num_key_value_heads=2, intermediate_size=37, max_position_embeddings=64,
           pad_token_id=0, bos_token_id=1, eos_token_id=2, head_dim=8)
S2S = dict(vocab_size=99, d_model=32, encoder_layers=2, decoder_layers=2,
           encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=37,
           decoder_ffn_dim=37, max_position_embeddings=64, pad_token_id=0, bos_token_id=1,
           eos_token_id=2, decoder_start_token_id=2, encoder_layerdrop=0.3, decoder_layerdrop=0.3)
VIS = dict(image_size=32, patch_size=8, num_channels=3, hidden_size=32, num_hidden_layers=2,
           num_attention_heads=4, intermediate_size=37)


def ids(batch=2, seq=16, vocab=99, low=3, pad=True, g=None):
    g = g or _gen()
    x = torch.randint(low, vocab, (batch, seq), generator=g)
    mask = torch.ones(batch, seq, dtype=torch.long)
    if pad and batch > 1:
        mask[1, seq - seq // 4:] = 0
        x[1, seq - seq // 4:] = 0
    return x, mask


def text_inputs(seq=16, labels=None, num_labels=2, token_type=False, pad=True, **extra):
    """kwargs for a text model; labels: None, 'cls', 'lm' (labels=input_ids, pads -100), 'tok'."""
    def make(cfg):
        vocab = getattr(cfg, "vocab_size", 99)
        x, mask = ids(seq=seq, vocab=vocab, pad=pad)
        kw = {"input_ids": x, "attention_mask": mask, **{k: v(cfg) if callable(v) else v
                                                        for k, v in extra.items()}}
        if token_type:
            kw["token_type_ids"] = torch.zeros_like(x)
        train = dict(kw)
        if labels == "cls":
            train["labels"] = torch.tensor([0, num_labels - 1])
        elif labels == "lm":
            lab = x.clone()
            lab[mask == 0] = -100
            train["labels"] = lab
        elif labels == "tok":
            train["labels"] = torch.randint(0, num_labels, x.shape, generator=_gen())
        elif labels == "s2s":
            lab, _ = ids(seq=seq // 2, vocab=vocab, pad=False)
            lab[1, -2:] = -100
            train["labels"] = lab
        return kw, (train if labels else None)
    return make


def hf(model_type, cls_name, config, inputs, train=True, post=None, **from_config):
    """A transformers model built from a tiny config; `inputs(cfg)` -> (eval_kwargs, train_kwargs).

    The default attention/experts implementations are kept (sdpa, grouped_mm...), as a user
    would get them; `from_config` may override them (e.g. experts_implementation="eager")."""
    def build():
        import transformers
        cfg = transformers.AutoConfig.for_model(model_type, **config)
        if post is not None:
            post(cfg)
        cls = getattr(transformers, cls_name)
        model = cls._from_config(cfg, **from_config)
        ev, tr = inputs(cfg)
        runs_train = [((), tr)] if (train and tr is not None) else []
        return model, [((), ev)], runs_train
    return build


def _cfg(base, **kw):
    d = dict(base)
    d.update(kw)
    return d


def pixel_inputs(size=32, channels=3, batch=2, labels=None, num_labels=3, key="pixel_values", **extra):
    def make(cfg):
        x = torch.rand(batch, channels, size, size, generator=_gen())
        kw = {key: x, **{k: v(cfg) if callable(v) else v for k, v in extra.items()}}
        tr = dict(kw)
        if labels == "cls":
            tr["labels"] = torch.tensor([0, num_labels - 1][:batch])
        elif labels == "seg":
            tr["labels"] = torch.randint(0, num_labels, (batch, size, size), generator=_gen())
        elif callable(labels):
            tr.update(labels(cfg))
        return kw, (tr if labels else None)
    return make


def det_labels(n_images=2, num_classes=3, masks_size=None):
    def make(cfg):
        g = _gen()
        out = []
        for i in range(n_images):
            n = 2 + i
            cxcy = 0.25 + 0.5 * torch.rand(n, 2, generator=g)
            wh = 0.1 + 0.3 * torch.rand(n, 2, generator=g)
            t = {"class_labels": torch.randint(0, num_classes, (n,), generator=g),
                 "boxes": torch.cat([cxcy, wh], 1)}
            if masks_size:
                t["masks"] = (torch.rand(n, masks_size, masks_size, generator=g) > 0.5).float()
            out.append(t)
        return {"labels": out}
    return make


def audio_inputs(n=1600, labels=None, key="input_values", pad=True, vocab=32):
    def make(cfg):
        g = _gen()
        x = torch.randn(2, n, generator=g)
        mask = torch.ones(2, n, dtype=torch.long)
        if pad:
            mask[1, n - n // 4:] = 0
            x[1, n - n // 4:] = 0
        kw = {key: x, "attention_mask": mask}
        tr = dict(kw)
        if labels == "ctc":
            lab = torch.randint(1, vocab, (2, 6), generator=g)
            lab[1, 4:] = -100
            tr["labels"] = lab
        elif labels == "cls":
            tr["labels"] = torch.tensor([0, 1])
        return kw, (tr if labels else None)
    return make


def _tiny_resnet_backbone():
    import transformers
    return transformers.ResNetConfig(embedding_size=8, hidden_sizes=[8, 16, 16, 16], depths=[1, 1, 1, 1],
                                     out_features=["stage2", "stage3", "stage4"])


def _detr_like(model_type, cls_name, extra=None, masks=False, size=64):
    def build():
        import transformers
        cfg_kw = dict(d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
                      decoder_attention_heads=4, encoder_ffn_dim=32, decoder_ffn_dim=32,
                      num_queries=10, num_labels=3, use_timm_backbone=False, use_pretrained_backbone=False,
                      backbone=None, backbone_config=_tiny_resnet_backbone())
        cfg_kw.update(extra or {})
        cfg = transformers.AutoConfig.for_model(model_type, **cfg_kw)
        model = getattr(transformers, cls_name)._from_config(cfg)
        g = _gen()
        x = torch.rand(2, 3, size, size, generator=g)
        pm = torch.ones(2, size, size, dtype=torch.long)
        pm[1, :, size * 3 // 4:] = 0
        ev = {"pixel_values": x, "pixel_mask": pm}
        tr = dict(ev)
        tr.update(det_labels(masks_size=size if masks else None)(cfg))
        return model, [((), ev)], [((), tr)]
    return build


def _vlm_llava():
    import transformers
    vision = dict(model_type="clip_vision_model", **_cfg(VIS, image_size=16, patch_size=4,
                                                        projection_dim=32))
    text = dict(model_type="llama", **DEC)
    cfg = transformers.LlavaConfig(vision_config=vision, text_config=text, image_token_index=98,
                                   vision_feature_layer=-1, image_seq_length=16)
    model = transformers.LlavaForConditionalGeneration._from_config(cfg)
    x, mask = ids(seq=24, vocab=90)
    x[:, 2:18] = 98                      # 16 image tokens per row
    pv = torch.rand(2, 3, 16, 16, generator=_gen())
    ev = {"input_ids": x, "attention_mask": mask, "pixel_values": pv}
    lab = x.clone()
    lab[x == 98] = -100
    lab[mask == 0] = -100
    return model, [((), ev)], [((), dict(ev, labels=lab))]


def _qwen2_vl():
    import transformers
    text = dict(_cfg(DEC, vocab_size=120, num_key_value_heads=2, hidden_size=32, head_dim=8),
                rope_scaling={"type": "mrope", "mrope_section": [1, 1, 2]})
    vision = dict(depth=1, embed_dim=32, hidden_size=32, num_heads=4, patch_size=4,
                  spatial_merge_size=2, temporal_patch_size=2, in_channels=3)
    cfg = transformers.Qwen2VLConfig(text_config=text, vision_config=vision, image_token_id=100,
                                     video_token_id=101, vision_start_token_id=102,
                                     vision_end_token_id=103, **{k: v for k, v in text.items()
                                                                 if k not in ("rope_scaling",)})
    model = transformers.Qwen2VLForConditionalGeneration._from_config(cfg)
    # one 8x8 image per sample: grid (1, 2, 2) patches of 4 -> 4 patches, merged 2x2 -> 1 token
    grid = torch.tensor([[1, 4, 4], [1, 4, 4]])
    n_patches = int(grid.prod(-1).sum())
    pv = torch.rand(n_patches, 3 * 2 * 4 * 4, generator=_gen())
    x, mask = ids(seq=20, vocab=99)
    x[:, 1] = 102
    x[:, 2:6] = 100
    x[:, 6] = 103
    mm = torch.zeros_like(x)
    mm[:, 2:6] = 1
    ev = {"input_ids": x, "attention_mask": mask, "pixel_values": pv, "image_grid_thw": grid,
          "mm_token_type_ids": mm}
    lab = x.clone()
    lab[mask == 0] = -100
    return model, [((), ev)], [((), dict(ev, labels=lab))]


def _sam():
    import transformers
    vision = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, image_size=64,
                  patch_size=8, output_channels=16, mlp_dim=64, window_size=4,
                  global_attn_indexes=[1], num_pos_feats=8)
    cfg = transformers.SamConfig(vision_config=vision,
                                 prompt_encoder_config=dict(hidden_size=16, image_size=64, patch_size=8,
                                                            mask_input_channels=4),
                                 mask_decoder_config=dict(hidden_size=16, num_hidden_layers=2,
                                                          num_attention_heads=2, mlp_dim=32,
                                                          iou_head_hidden_dim=16))
    model = transformers.SamModel._from_config(cfg)
    g = _gen()
    ev = {"pixel_values": torch.rand(1, 3, 64, 64, generator=g),
          "input_points": torch.rand(1, 1, 2, 2, generator=g) * 64,
          "input_labels": torch.tensor([[[1, -1]]])}
    ev2 = {"pixel_values": ev["pixel_values"],
           "input_boxes": torch.tensor([[[4.0, 4.0, 40.0, 50.0]]])}
    return model, [((), ev), ((), ev2)], []


def _clip(model_type, cls_name):
    def build():
        import transformers
        cfg = transformers.AutoConfig.for_model(
            model_type, text_config=dict(_cfg(TEXT, max_position_embeddings=32)),
            vision_config=dict(VIS), projection_dim=16)
        model = getattr(transformers, cls_name)._from_config(cfg)
        x, mask = ids(seq=12)
        pv = torch.rand(2, 3, 32, 32, generator=_gen())
        ev = {"input_ids": x, "attention_mask": mask, "pixel_values": pv}
        return model, [((), ev)], [((), dict(ev, return_loss=True))]
    return build


def _owlvit():
    import transformers
    cfg = transformers.OwlViTConfig(text_config=dict(_cfg(TEXT, max_position_embeddings=16)),
                                    vision_config=dict(VIS), projection_dim=32)
    model = transformers.OwlViTForObjectDetection._from_config(cfg)
    x, mask = ids(batch=4, seq=8)
    pv = torch.rand(2, 3, 32, 32, generator=_gen())
    return model, [((), {"input_ids": x, "attention_mask": mask, "pixel_values": pv})], []


def _blip():
    import transformers
    cfg = transformers.BlipConfig(text_config=dict(_cfg(TEXT, encoder_hidden_size=32)),
                                  vision_config=dict(VIS), projection_dim=16)
    model = transformers.BlipForConditionalGeneration._from_config(cfg)
    x, mask = ids(seq=12)
    pv = torch.rand(2, 3, 32, 32, generator=_gen())
    ev = {"input_ids": x, "attention_mask": mask, "pixel_values": pv}
    return model, [((), ev)], [((), dict(ev, labels=x))]


def _whisper():
    import transformers
    cfg = transformers.WhisperConfig(vocab_size=99, num_mel_bins=8, d_model=32, encoder_layers=2,
                                     decoder_layers=2, encoder_attention_heads=4,
                                     decoder_attention_heads=4, encoder_ffn_dim=37,
                                     decoder_ffn_dim=37, max_source_positions=16,
                                     max_target_positions=32, pad_token_id=0, bos_token_id=1,
                                     eos_token_id=2, decoder_start_token_id=3, encoder_layerdrop=0.3,
                                     decoder_layerdrop=0.3)
    model = transformers.WhisperForConditionalGeneration._from_config(cfg)
    feats = torch.randn(2, 8, 32, generator=_gen())
    lab, _ = ids(seq=8, pad=False)
    lab[1, -2:] = -100
    return model, [((), {"input_features": feats, "decoder_input_ids": lab.clamp(min=3)})], \
        [((), {"input_features": feats, "labels": lab})]


def _speecht5():
    import transformers
    cfg = transformers.SpeechT5Config(vocab_size=99, hidden_size=32, encoder_layers=2, decoder_layers=2,
                                      encoder_attention_heads=4, decoder_attention_heads=4,
                                      encoder_ffn_dim=37, decoder_ffn_dim=37, num_mel_bins=8,
                                      speech_decoder_prenet_units=16, speech_decoder_postnet_units=16,
                                      speech_decoder_postnet_layers=2, reduction_factor=2,
                                      max_text_positions=64, max_speech_positions=256,
                                      pad_token_id=0, decoder_start_token_id=2)
    model = transformers.SpeechT5ForTextToSpeech._from_config(cfg)
    x, mask = ids(seq=12)
    g = _gen()
    spec = torch.randn(2, 10, 8, generator=g)
    ev = {"input_ids": x, "attention_mask": mask, "decoder_input_values": spec}
    return model, [((), ev)], [((), {"input_ids": x, "attention_mask": mask, "labels": spec})]


def _vits():
    import transformers
    cfg = transformers.VitsConfig(vocab_size=38, hidden_size=16, num_hidden_layers=2,
                                  num_attention_heads=2, ffn_dim=32, flow_size=8,
                                  spectrogram_bins=16, upsample_initial_channel=16,
                                  upsample_rates=[4, 4], upsample_kernel_sizes=[8, 8],
                                  resblock_kernel_sizes=[3], resblock_dilation_sizes=[[1, 3]],
                                  duration_predictor_filter_channels=16, prior_encoder_num_flows=2,
                                  prior_encoder_num_wavenet_layers=1, depth_separable_num_layers=2,
                                  duration_predictor_flow_bins=4, duration_predictor_num_flows=2)
    model = transformers.VitsModel._from_config(cfg)
    x, mask = ids(seq=10, vocab=38)
    return model, [((), {"input_ids": x, "attention_mask": mask})], []


def _fastspeech2():
    import transformers
    cfg = transformers.FastSpeech2ConformerConfig(
        vocab_size=40, hidden_size=16, encoder_layers=1, decoder_layers=1,
        encoder_num_attention_heads=2, decoder_num_attention_heads=2,
        encoder_linear_units=32, decoder_linear_units=32, duration_predictor_channels=16,
        pitch_predictor_channels=16, energy_predictor_channels=16, speech_decoder_postnet_units=16,
        speech_decoder_postnet_layers=2, num_mel_bins=8, max_source_positions=64)
    model = transformers.FastSpeech2ConformerModel._from_config(cfg)
    x, mask = ids(seq=10, vocab=40)
    g = _gen()
    dur = torch.randint(1, 3, (2, 10), generator=g) * mask
    frames = int(dur.sum(1).max())
    tr = {"input_ids": x, "attention_mask": mask, "duration_labels": dur,
          "spectrogram_labels": torch.randn(2, frames, 8, generator=g),
          "pitch_labels": torch.randn(2, 10, 1, generator=g),
          "energy_labels": torch.randn(2, 10, 1, generator=g)}
    return model, [((), {"input_ids": x, "attention_mask": mask})], [((), tr)]


def _mask2former():
    import transformers
    cfg = transformers.Mask2FormerConfig(
        backbone_config=dict(model_type="swin", embed_dim=16, depths=[1, 1, 1, 1],
                             num_heads=[1, 1, 2, 2], image_size=64, window_size=4,
                             out_features=["stage1", "stage2", "stage3", "stage4"]),
        feature_size=32, mask_feature_size=32, hidden_dim=32, encoder_feedforward_dim=32,
        dim_feedforward=32, encoder_layers=1, decoder_layers=2, num_attention_heads=2,
        num_queries=8, num_labels=3, train_num_points=64, use_pretrained_backbone=False)
    model = transformers.Mask2FormerForUniversalSegmentation._from_config(cfg)
    g = _gen()
    pv = torch.rand(2, 3, 64, 64, generator=g)
    masks = [(torch.rand(n, 64, 64, generator=g) > 0.5).float() for n in (2, 3)]
    cls = [torch.randint(0, 3, (n,), generator=g) for n in (2, 3)]
    return model, [((), {"pixel_values": pv})], [((), {"pixel_values": pv, "mask_labels": masks,
                                                         "class_labels": cls})]


def _layoutlm():
    import transformers
    cfg = transformers.LayoutLMConfig(**TEXT)
    model = transformers.LayoutLMForTokenClassification._from_config(cfg)
    x, mask = ids()
    g = _gen()
    a = torch.randint(0, 500, (2, 16, 2), generator=g)
    bbox = torch.cat([a, a + torch.randint(1, 400, (2, 16, 2), generator=g)], -1)
    ev = {"input_ids": x, "attention_mask": mask, "bbox": bbox}
    return model, [((), ev)], [((), dict(ev, labels=torch.randint(0, 2, (2, 16), generator=g)))]


def _tapas():
    import transformers
    cfg = transformers.TapasConfig(**_cfg(TEXT, type_vocab_sizes=[3, 32, 32, 10, 10, 10, 10]))
    model = transformers.TapasForQuestionAnswering._from_config(cfg)
    x, mask = ids()
    g = _gen()
    tt = torch.zeros(2, 16, 7, dtype=torch.long)
    tt[:, 4:, 0] = 1
    tt[:, 4:, 1] = torch.arange(12) % 3 + 1
    tt[:, 4:, 2] = torch.arange(12) // 3 + 1
    ev = {"input_ids": x, "attention_mask": mask, "token_type_ids": tt}
    return model, [((), ev)], []


def _patchtst():
    import transformers
    cfg = transformers.PatchTSTConfig(num_input_channels=2, context_length=32, patch_length=4,
                                      patch_stride=4, d_model=16, num_attention_heads=2,
                                      num_hidden_layers=1, ffn_dim=32, prediction_length=8)
    model = transformers.PatchTSTForPrediction._from_config(cfg)
    g = _gen()
    x = torch.randn(2, 32, 2, generator=g)
    return model, [((), {"past_values": x})], [((), {"past_values": x,
                                                      "future_values": torch.randn(2, 8, 2, generator=g)})]


def _videomae():
    import transformers
    cfg = transformers.VideoMAEConfig(image_size=32, patch_size=8, num_frames=4, tubelet_size=2,
                                      hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                      intermediate_size=37, decoder_hidden_size=32,
                                      decoder_num_hidden_layers=1, decoder_num_attention_heads=4,
                                      decoder_intermediate_size=37)
    model = transformers.VideoMAEForPreTraining._from_config(cfg)
    pv = torch.rand(2, 4, 3, 32, 32, generator=_gen())
    n = (4 // 2) * (32 // 8) ** 2
    m = torch.zeros(2, n, dtype=torch.bool)
    m[:, : n // 2] = True
    return model, [((), {"pixel_values": pv, "bool_masked_pos": m})], []


def _encodec():
    import transformers
    cfg = transformers.EncodecConfig(hidden_size=16, num_filters=4, num_residual_layers=1,
                                     upsampling_ratios=[4, 2], codebook_size=32, codebook_dim=16,
                                     target_bandwidths=[1.5, 3.0], sampling_rate=2000,
                                     num_lstm_layers=1)
    model = transformers.EncodecModel._from_config(cfg)
    x = torch.randn(2, 1, 400, generator=_gen())
    return model, [((), {"input_values": x})], []


def _bigbird():
    import transformers
    cfg = transformers.BigBirdConfig(**_cfg(TEXT, max_position_embeddings=128, block_size=4,
                                            num_random_blocks=2, attention_type="block_sparse"))
    model = transformers.BigBirdForSequenceClassification._from_config(cfg)
    ev, tr = text_inputs(seq=64, labels="cls")(cfg)
    return model, [((), ev)], [((), tr)]


def _reformer():
    import transformers
    cfg = transformers.ReformerConfig(vocab_size=99, hidden_size=32, num_attention_heads=2,
                                      attention_head_size=16, attn_layers=["local", "lsh"],
                                      axial_pos_shape=[4, 8], axial_pos_embds_dim=[16, 16],
                                      feed_forward_size=37, local_attn_chunk_length=8,
                                      lsh_attn_chunk_length=8, num_buckets=4, num_hashes=1,
                                      max_position_embeddings=32, is_decoder=True, pad_token_id=0,
                                      eos_token_id=2)
    model = transformers.ReformerModelWithLMHead._from_config(cfg)
    ev, tr = text_inputs(seq=32, labels="lm")(cfg)
    return model, [((), ev)], [((), tr)]


def _longformer(cls_name="LongformerForSequenceClassification", labels="cls"):
    def build():
        import transformers
        cfg = transformers.LongformerConfig(**_cfg(TEXT, max_position_embeddings=80,
                                                   attention_window=[8, 8]))
        model = getattr(transformers, cls_name)._from_config(cfg)
        ev, tr = text_inputs(seq=32, labels=labels)(cfg)
        gmask = torch.zeros_like(ev["input_ids"])
        gmask[:, 0] = 1
        gmask[0, 5] = 1
        ev["global_attention_mask"] = gmask
        tr["global_attention_mask"] = gmask
        return model, [((), ev)], [((), tr)]
    return build


def _led():
    import transformers
    cfg = transformers.LEDConfig(**_cfg(S2S, max_encoder_position_embeddings=64,
                                        max_decoder_position_embeddings=64, attention_window=[8, 8]))
    model = transformers.LEDForConditionalGeneration._from_config(cfg)
    ev, tr = text_inputs(seq=32, labels="s2s")(cfg)
    gmask = torch.zeros_like(ev["input_ids"])
    gmask[:, 0] = 1
    ev["global_attention_mask"] = gmask
    tr["global_attention_mask"] = gmask
    return model, [((), ev)], [((), tr)]


def _funnel():
    import transformers
    cfg = transformers.FunnelConfig(vocab_size=99, block_sizes=[1, 1, 1], num_decoder_layers=1,
                                    d_model=32, n_head=4, d_head=8, d_inner=37, pad_token_id=0)
    model = transformers.FunnelForSequenceClassification._from_config(cfg)
    ev, tr = text_inputs(labels="cls", token_type=True)(cfg)
    return model, [((), ev)], [((), tr)]


def _canine():
    import transformers
    cfg = transformers.CanineConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                    intermediate_size=37, downsampling_rate=4, num_hash_buckets=64,
                                    num_hash_functions=4, local_transformer_stride=8)
    model = transformers.CanineForSequenceClassification._from_config(cfg)
    x, mask = ids(seq=32, vocab=1000)
    ev = {"input_ids": x, "attention_mask": mask}
    return model, [((), ev)], [((), dict(ev, labels=torch.tensor([0, 1])))]


def _luke():
    import transformers
    cfg = transformers.LukeConfig(**_cfg(TEXT, entity_vocab_size=20, entity_emb_size=16))
    model = transformers.LukeForEntityClassification._from_config(cfg)
    x, mask = ids()
    g = _gen()
    ent = {"entity_ids": torch.randint(1, 20, (2, 1), generator=g),
           "entity_attention_mask": torch.ones(2, 1, dtype=torch.long),
           "entity_position_ids": torch.tensor([[[1, 2, -1, -1]], [[3, -1, -1, -1]]])}
    ev = {"input_ids": x, "attention_mask": mask, **ent}
    return model, [((), ev)], [((), dict(ev, labels=torch.tensor([0, 1])))]


def _vilt():
    import transformers
    cfg = transformers.ViltConfig(**_cfg(TEXT, max_position_embeddings=40, image_size=32, patch_size=8,
                                         max_image_length=8, num_labels=3, modality_type_vocab_size=2))
    model = transformers.ViltForQuestionAnswering._from_config(cfg)
    x, mask = ids(seq=12)
    g = _gen()
    pv = torch.rand(2, 3, 32, 48, generator=g)
    pm = torch.ones(2, 32, 48, dtype=torch.long)
    pm[1, :, 32:] = 0
    ev = {"input_ids": x, "attention_mask": mask, "pixel_values": pv, "pixel_mask": pm}
    return model, [((), ev)], [((), dict(ev, labels=torch.rand(2, 3, generator=g)))]


def _speech_to_text():
    import transformers
    cfg = transformers.Speech2TextConfig(vocab_size=99, d_model=32, encoder_layers=2, decoder_layers=2,
                                         encoder_attention_heads=4, decoder_attention_heads=4,
                                         encoder_ffn_dim=37, decoder_ffn_dim=37, input_feat_per_channel=8,
                                         input_channels=1, conv_kernel_sizes=[5, 5], conv_channels=16,
                                         max_source_positions=64, max_target_positions=32,
                                         pad_token_id=0, bos_token_id=1, eos_token_id=2,
                                         decoder_start_token_id=2)
    model = transformers.Speech2TextForConditionalGeneration._from_config(cfg)
    g = _gen()
    feats = torch.randn(2, 40, 8, generator=g)
    mask = torch.ones(2, 40, dtype=torch.long)
    mask[1, 30:] = 0
    lab, _ = ids(seq=8, pad=False)
    lab[1, -2:] = -100
    return model, [((), {"input_features": feats, "attention_mask": mask,
                         "decoder_input_ids": lab.clamp(min=3)})], \
        [((), {"input_features": feats, "attention_mask": mask, "labels": lab})]


def _bart_seqcls():
    import transformers
    cfg = transformers.BartConfig(**_cfg(S2S, num_labels=3))
    model = transformers.BartForSequenceClassification._from_config(cfg)
    x, mask = ids()
    x[0, -1] = 2
    x[1, 11] = 2                      # one <eos> per row, before the padding
    ev = {"input_ids": x, "attention_mask": mask}
    return model, [((), ev)], [((), dict(ev, labels=torch.tensor([0, 2])))]


def _longformer_qa():
    import transformers
    cfg = transformers.LongformerConfig(**_cfg(TEXT, max_position_embeddings=80, attention_window=[8, 8],
                                               sep_token_id=2))
    model = transformers.LongformerForQuestionAnswering._from_config(cfg)
    x, mask = ids(seq=32, pad=False)
    x[:, 5] = 2
    x[:, 6] = 2
    x[:, 31] = 2                      # question </s></s> context </s>
    ev = {"input_ids": x, "attention_mask": mask}
    return model, [((), ev)], [((), dict(ev, start_positions=torch.tensor([8, 9]),
                                         end_positions=torch.tensor([10, 12])))]


def _xlm_nomask():
    import transformers
    cfg = transformers.XLMConfig(**_cfg(TEXT, pad_index=0))
    model = transformers.XLMWithLMHeadModel._from_config(cfg)
    x, _ = ids()
    return model, [((), {"input_ids": x}), ((), {"input_ids": x, "lengths": torch.tensor([16, 12])})], []


def _wav2vec2_pretraining():
    import transformers
    from transformers.models.wav2vec2.modeling_wav2vec2 import (_compute_mask_indices,
                                                                _sample_negative_indices)
    cfg = transformers.Wav2Vec2Config(vocab_size=32, hidden_size=32, num_hidden_layers=2,
                                      num_attention_heads=4, intermediate_size=37,
                                      conv_dim=(16, 16, 16), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3),
                                      num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2,
                                      feat_extract_norm="group", do_stable_layer_norm=False,
                                      layerdrop=0.3, codevector_dim=16, proj_codevector_dim=16,
                                      num_codevectors_per_group=4, num_codevector_groups=2,
                                      num_negatives=4, mask_time_prob=0.3, mask_time_length=2)
    model = transformers.Wav2Vec2ForPreTraining._from_config(cfg)
    ev, _ = audio_inputs()(cfg)
    n_frames = int(model._get_feat_extract_output_lengths(ev["input_values"].shape[1]))
    np_rng_state = __import__("numpy").random.get_state()
    mask_time = _compute_mask_indices((2, n_frames), mask_prob=0.3, mask_length=2, min_masks=2)
    negatives = _sample_negative_indices((2, n_frames), 4, mask_time_indices=mask_time)
    __import__("numpy").random.set_state(np_rng_state)
    tr = dict(ev, mask_time_indices=torch.tensor(mask_time, dtype=torch.bool),
              sampled_negative_indices=torch.tensor(negatives, dtype=torch.long))
    return model, [((), ev)], [((), tr)]


def _funnel_pretraining():
    import transformers
    cfg = transformers.FunnelConfig(vocab_size=99, block_sizes=[1, 1, 1], num_decoder_layers=1,
                                    d_model=32, n_head=4, d_head=8, d_inner=37, pad_token_id=0)
    model = transformers.FunnelForPreTraining._from_config(cfg)
    ev, tr = text_inputs(labels="tok", num_labels=2)(cfg)
    return model, [((), ev)], [((), tr)]


def _beit_mim():
    import transformers
    cfg = transformers.BeitConfig(**_cfg(VIS, vocab_size=64, use_mask_token=True))
    model = transformers.BeitForMaskedImageModeling._from_config(cfg)
    pv = torch.rand(2, 3, 32, 32, generator=_gen())
    m = torch.zeros(2, 16, dtype=torch.bool)
    m[:, ::3] = True
    ev = {"pixel_values": pv, "bool_masked_pos": m}
    labels = torch.randint(0, 64, (int(m.sum()),), generator=_gen())
    return model, [((), ev)], [((), dict(ev, labels=labels))]


def _generate(model_type, cls_name, config, enc_dec=False):
    """`generate()` with greedy decoding: the decoding loop, its stopping criteria, the caches."""
    def build():
        import transformers
        cfg = transformers.AutoConfig.for_model(model_type, **config)
        model = getattr(transformers, cls_name)._from_config(cfg)
        x, mask = ids(seq=8)
        if not enc_dec:                  # left padding, as for batched decoder-only generation
            x, mask = x.flip(1), mask.flip(1)
        kw = {"input_ids": x, "attention_mask": mask, "max_new_tokens": 4, "do_sample": False,
              "pad_token_id": 0}

        class Gen(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.m = model

            def forward(self, **kw):
                return self.m.generate(**kw)
        return Gen(), [((), kw)], []
    return build


def _dec(model_type, cls="ForCausalLM", **over):
    prefix = over.pop("prefix")
    cfg = {k: v for k, v in _cfg(DEC, **over).items() if v is not None}
    return hf(model_type, prefix + cls, cfg, text_inputs(labels="lm"))


def _moe(model_type, prefix, experts=None, **over):
    cfg = {k: v for k, v in _cfg(DEC, output_router_logits=True, intermediate_size=32, **over).items()
           if v is not None}
    kw = {"experts_implementation": experts} if experts else {}
    return hf(model_type, prefix + "ForCausalLM", cfg, text_inputs(labels="lm"), **kw)


def _switch():
    import transformers
    cfg = transformers.SwitchTransformersConfig(vocab_size=99, d_model=32, d_kv=8, d_ff=37,
                                                num_layers=2, num_decoder_layers=2, num_heads=4,
                                                num_experts=4, expert_capacity=4,
                                                encoder_sparse_step=1, decoder_sparse_step=1,
                                                pad_token_id=0, eos_token_id=1,
                                                decoder_start_token_id=0)
    model = transformers.SwitchTransformersForConditionalGeneration._from_config(cfg)
    ev, tr = text_inputs(labels="s2s")(cfg)
    ev["decoder_input_ids"] = tr["labels"].clamp(min=0)
    return model, [((), ev)], [((), tr)]


def _nllb_moe():
    import transformers
    cfg = transformers.NllbMoeConfig(**_cfg(S2S, num_experts=4, expert_capacity=4,
                                            encoder_sparse_step=1, decoder_sparse_step=1,
                                            router_z_loss_coef=0.01, router_aux_loss_coef=0.01))
    model = transformers.NllbMoeForConditionalGeneration._from_config(cfg)
    ev, tr = text_inputs(labels="s2s")(cfg)
    ev["decoder_input_ids"] = tr["labels"].clamp(min=0)
    return model, [((), ev)], [((), tr)]


def _t5():
    import transformers
    cfg = transformers.T5Config(vocab_size=99, d_model=32, d_kv=8, d_ff=37, num_layers=2, num_heads=4,
                                pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
    model = transformers.T5ForConditionalGeneration._from_config(cfg)
    ev, tr = text_inputs(labels="s2s")(cfg)
    ev["decoder_input_ids"] = tr["labels"].clamp(min=0)
    return model, [((), ev)], [((), tr)]


def _s2s(model_type, cls_name, **over):
    def build():
        import transformers
        cfg = transformers.AutoConfig.for_model(model_type, **_cfg(S2S, **over))
        model = getattr(transformers, cls_name)._from_config(cfg)
        ev, tr = text_inputs(labels="s2s")(cfg)
        ev["decoder_input_ids"] = tr["labels"].clamp(min=3)
        return model, [((), ev)], [((), tr)]
    return build


def _wav2vec2_like(model_type, cls_name, labels="ctc", **over):
    base = dict(vocab_size=32, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                intermediate_size=37, conv_dim=(16, 16, 16), conv_stride=(5, 2, 2),
                conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2,
                mask_time_prob=0.2, mask_time_length=2, pad_token_id=0, ctc_loss_reduction="mean",
                do_stable_layer_norm=True, feat_extract_norm="layer", num_feat_extract_layers=3)
    base.update(over)
    return hf(model_type, cls_name, base, audio_inputs(labels=labels))


MODELS: dict = {
    # -- torchvision detection --------------------------------------------------------
    "tv_fasterrcnn_mobilenet_v3_large_fpn": tv_detection("fasterrcnn_mobilenet_v3_large_fpn",
                                                         min_size=192, max_size=224),
    "tv_fasterrcnn_resnet50_fpn_v2": tv_detection("fasterrcnn_resnet50_fpn_v2", min_size=160, max_size=192,
                                                  rpn_pre_nms_top_n_test=200, rpn_post_nms_top_n_test=100),
    "tv_maskrcnn_resnet50_fpn": tv_detection("maskrcnn_resnet50_fpn", masks=True, min_size=160,
                                             max_size=192, box_score_thresh=0.0,
                                             rpn_post_nms_top_n_test=100),
    "tv_keypointrcnn_resnet50_fpn": tv_detection("keypointrcnn_resnet50_fpn", keypoints=True,
                                                 min_size=160, max_size=192, box_score_thresh=0.0,
                                                 rpn_post_nms_top_n_test=50, box_detections_per_img=8),
    "tv_retinanet_resnet50_fpn": tv_detection("retinanet_resnet50_fpn", min_size=160, max_size=192,
                                              score_thresh=0.001, detections_per_img=20),
    "tv_fcos_resnet50_fpn": tv_detection("fcos_resnet50_fpn", min_size=160, max_size=192,
                                         score_thresh=0.001, detections_per_img=20),
    "tv_ssd300_vgg16": tv_detection("ssd300_vgg16"),
    "tv_ssdlite320_mobilenet_v3_large": tv_detection("ssdlite320_mobilenet_v3_large"),
    # -- torchvision classification / segmentation / video / flow (mostly static) ---------
    "tv_resnet18": tv_classifier("resnet18"),
    "tv_mobilenet_v3_small": tv_classifier("mobilenet_v3_small"),
    "tv_efficientnet_b0": tv_classifier("efficientnet_b0"),
    "tv_convnext_tiny": tv_classifier("convnext_tiny"),
    "tv_swin_t": tv_classifier("swin_t", train=False),
    "tv_vit_b_16": tv_classifier("vit_b_16", size=224, batch=1, train=False),
    "tv_googlenet": tv_classifier("googlenet", init_weights=True, aux_logits=True),
    "tv_inception_v3": tv_classifier("inception_v3", size=96, init_weights=True, aux_logits=False),
    "tv_regnet_y_400mf": tv_classifier("regnet_y_400mf"),
    "tv_shufflenet_v2_x0_5": tv_classifier("shufflenet_v2_x0_5"),
    "tv_squeezenet1_1": tv_classifier("squeezenet1_1"),
    "tv_maxvit_t": tv_classifier("maxvit_t", size=224, batch=1, train=False),
    "tv_deeplabv3_mobilenet_v3_large": tv_segmentation("deeplabv3_mobilenet_v3_large", aux_loss=True),
    "tv_fcn_resnet50": tv_segmentation("fcn_resnet50", size=64),
    "tv_lraspp_mobilenet_v3_large": tv_segmentation("lraspp_mobilenet_v3_large"),
    "tv_r3d_18": tv_video("r3d_18"),
    "tv_raft_small": tv_raft,
    # -- transformers: encoders ---------------------------------------------------------
    "hf_bert": hf("bert", "BertForSequenceClassification", _cfg(TEXT, num_labels=3),
                  text_inputs(labels="cls", token_type=True)),
    "hf_bert_mlm": hf("bert", "BertForMaskedLM", TEXT, text_inputs(labels="lm")),
    "hf_roberta": hf("roberta", "RobertaForTokenClassification", _cfg(TEXT, pad_token_id=1),
                     text_inputs(labels="tok", num_labels=2)),
    "hf_distilbert": hf("distilbert", "DistilBertForQuestionAnswering",
                        dict(vocab_size=99, dim=32, n_layers=2, n_heads=4, hidden_dim=37,
                             max_position_embeddings=64, pad_token_id=0),
                        text_inputs(labels=None, start_positions=torch.tensor([1, 3]),
                                    end_positions=torch.tensor([4, 5]))),
    "hf_albert": hf("albert", "AlbertForSequenceClassification",
                    _cfg(TEXT, embedding_size=16, num_labels=3), text_inputs(labels="cls")),
    "hf_electra": hf("electra", "ElectraForPreTraining", _cfg(TEXT, embedding_size=16),
                     text_inputs(labels="tok", num_labels=2)),
    "hf_deberta_v2": hf("deberta-v2", "DebertaV2ForSequenceClassification",
                        _cfg(TEXT, relative_attention=True, position_buckets=8, max_relative_positions=16,
                             pos_att_type=["p2c", "c2p"], num_labels=3),
                        text_inputs(labels="cls")),
    "hf_longformer": _longformer(),
    "hf_longformer_qa": _longformer_qa,
    "hf_big_bird": _bigbird,
    "hf_reformer": _reformer,
    "hf_funnel": _funnel,
    "hf_funnel_pretraining": _funnel_pretraining,
    "hf_xlnet": hf("xlnet", "XLNetLMHeadModel",
                   dict(vocab_size=99, d_model=32, n_layer=2, n_head=4, d_inner=37, pad_token_id=0),
                   text_inputs(labels="lm")),
    "hf_canine": _canine,
    "hf_luke": _luke,
    "hf_layoutlm": _layoutlm,
    "hf_tapas": _tapas,
    "hf_esm": hf("esm", "EsmForMaskedLM", _cfg(TEXT, vocab_size=33, mask_token_id=4, pad_token_id=1,
                                               position_embedding_type="rotary", token_dropout=True),
                 text_inputs(labels="lm")),
    "hf_mpnet": hf("mpnet", "MPNetForSequenceClassification", _cfg(TEXT, num_labels=3),
                   text_inputs(labels="cls")),
    "hf_xlm": hf("xlm", "XLMWithLMHeadModel", _cfg(TEXT, pad_index=0), text_inputs(labels="lm")),
    "hf_xlm_lengths": _xlm_nomask,
    "hf_mobilebert": hf("mobilebert", "MobileBertForSequenceClassification",
                        _cfg(TEXT, embedding_size=16, intra_bottleneck_size=16, true_hidden_size=16,
                             num_feedforward_networks=1), text_inputs(labels="cls")),
    "hf_squeezebert": hf("squeezebert", "SqueezeBertForSequenceClassification",
                         _cfg(TEXT, embedding_size=32, intermediate_size=32), text_inputs(labels="cls")),
    "hf_vilt": _vilt,
    # -- transformers: decoders ---------------------------------------------------------
    "hf_gpt2": hf("gpt2", "GPT2LMHeadModel",
                  dict(vocab_size=99, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                       pad_token_id=0, bos_token_id=1, eos_token_id=2),
                  text_inputs(labels="lm")),
    "hf_gpt2_seqcls": hf("gpt2", "GPT2ForSequenceClassification",
                         dict(vocab_size=99, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                              pad_token_id=0, num_labels=3),
                         text_inputs(labels="cls")),
    "hf_llama": _dec("llama", prefix="Llama"),
    "hf_llama_seqcls": hf("llama", "LlamaForSequenceClassification", _cfg(DEC, num_labels=3),
                          text_inputs(labels="cls")),
    "hf_mistral": _dec("mistral", prefix="Mistral", sliding_window=8),
    "hf_qwen2": _dec("qwen2", prefix="Qwen2"),
    "hf_gemma2": _dec("gemma2", prefix="Gemma2", sliding_window=8),
    "hf_phi3": _dec("phi3", prefix="Phi3"),
    "hf_gpt_neox": _dec("gpt_neox", prefix="GPTNeoX"),
    "hf_opt": hf("opt", "OPTForCausalLM",
                 dict(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                      ffn_dim=37, word_embed_proj_dim=32, max_position_embeddings=64,
                      pad_token_id=0), text_inputs(labels="lm")),
    "hf_bloom": hf("bloom", "BloomForCausalLM",
                   dict(vocab_size=99, hidden_size=32, n_layer=2, n_head=4, pad_token_id=0),
                   text_inputs(labels="lm")),
    "hf_falcon": _dec("falcon", prefix="Falcon", new_decoder_architecture=True, num_kv_heads=2,
                      head_dim=None),
    "hf_mamba": hf("mamba", "MambaForCausalLM",
                   dict(vocab_size=99, hidden_size=32, num_hidden_layers=2, state_size=8,
                        expand=2, conv_kernel=4, pad_token_id=0),
                   text_inputs(labels="lm")),
    "hf_gptj": hf("gptj", "GPTJForCausalLM",
                  dict(vocab_size=99, n_embd=32, n_layer=2, n_head=4, rotary_dim=4, n_positions=64,
                       pad_token_id=0), text_inputs(labels="lm")),
    "hf_biogpt": hf("biogpt", "BioGptForCausalLM", TEXT, text_inputs(labels="lm")),
    "hf_gemma": _dec("gemma", prefix="Gemma"),
    "hf_rwkv": hf("rwkv", "RwkvForCausalLM",
                  dict(vocab_size=99, context_length=64, hidden_size=32, num_hidden_layers=2,
                       attention_hidden_size=32, intermediate_size=37), text_inputs(labels="lm")),
    # -- transformers: mixture of experts ----------------------------------------------
    "hf_mixtral": _moe("mixtral", "Mixtral", num_local_experts=4, num_experts_per_tok=2),
    "hf_mixtral_eager_experts": _moe("mixtral", "Mixtral", experts="eager", num_local_experts=4,
                                     num_experts_per_tok=2),
    "hf_qwen2_moe_eager_experts": _moe("qwen2_moe", "Qwen2Moe", experts="eager", num_experts=4,
                                       num_experts_per_tok=2, moe_intermediate_size=16,
                                       shared_expert_intermediate_size=16),
    "hf_olmoe": _moe("olmoe", "Olmoe", num_experts=4, num_experts_per_tok=2),
    "hf_granitemoe": _moe("granitemoe", "GraniteMoe", num_local_experts=4, num_experts_per_tok=2),
    "hf_phimoe": _moe("phimoe", "Phimoe", num_local_experts=4, num_experts_per_tok=2, head_dim=None),
    "hf_qwen2_moe": _moe("qwen2_moe", "Qwen2Moe", num_experts=4, num_experts_per_tok=2,
                         moe_intermediate_size=16, shared_expert_intermediate_size=16),
    "hf_deepseek_v3": _moe("deepseek_v3", "DeepseekV3", n_routed_experts=4, num_experts_per_tok=2,
                           moe_intermediate_size=16, n_group=2, topk_group=1, first_k_dense_replace=1,
                           kv_lora_rank=8, q_lora_rank=8, qk_rope_head_dim=8, qk_nope_head_dim=8,
                           v_head_dim=8, n_shared_experts=1, head_dim=None,
                           num_key_value_heads=4),
    "hf_jamba": _moe("jamba", "Jamba", num_experts=4, num_experts_per_tok=2, expert_layer_period=2,
                     expert_layer_offset=1, attn_layer_period=2, attn_layer_offset=0,
                     mamba_d_state=8, mamba_d_conv=4, mamba_expand=2, mamba_dt_rank=4,
                     use_mamba_kernels=False),
    "hf_switch_transformers": _switch,
    "hf_nllb_moe": _nllb_moe,
    # -- transformers: encoder-decoder ---------------------------------------------------
    "hf_t5": _t5,
    "hf_bart": _s2s("bart", "BartForConditionalGeneration"),
    "hf_bart_seqcls": _bart_seqcls,
    "hf_marian": _s2s("marian", "MarianMTModel"),
    "hf_pegasus": _s2s("pegasus", "PegasusForConditionalGeneration"),
    "hf_led": _led,
    "hf_mbart": _s2s("mbart", "MBartForConditionalGeneration"),
    "hf_blenderbot": _s2s("blenderbot", "BlenderbotForConditionalGeneration"),
    "hf_m2m_100": _s2s("m2m_100", "M2M100ForConditionalGeneration"),
    "hf_bigbird_pegasus": _s2s("bigbird_pegasus", "BigBirdPegasusForConditionalGeneration",
                               attention_type="original_full"),
    # -- transformers: speech -------------------------------------------------------------
    "hf_wav2vec2": _wav2vec2_like("wav2vec2", "Wav2Vec2ForCTC"),
    "hf_wav2vec2_pretraining": _wav2vec2_pretraining,
    "hf_hubert": _wav2vec2_like("hubert", "HubertForCTC"),
    "hf_wavlm": _wav2vec2_like("wavlm", "WavLMForSequenceClassification", labels="cls",
                               num_buckets=16, max_bucket_distance=32),
    "hf_data2vec_audio": _wav2vec2_like("data2vec-audio", "Data2VecAudioForCTC"),
    "hf_sew": _wav2vec2_like("sew", "SEWForCTC", squeeze_factor=2),
    "hf_unispeech_sat": _wav2vec2_like("unispeech-sat", "UniSpeechSatForCTC"),
    "hf_speech_to_text": _speech_to_text,
    "hf_whisper": _whisper,
    "hf_speecht5_tts": _speecht5,
    "hf_vits": _vits,
    "hf_fastspeech2_conformer": _fastspeech2,
    "hf_encodec": _encodec,
    # -- transformers: vision ------------------------------------------------------------
    "hf_vit": hf("vit", "ViTForImageClassification", _cfg(VIS, num_labels=3),
                 pixel_inputs(labels="cls")),
    "hf_vit_mae": hf("vit_mae", "ViTMAEForPreTraining",
                     _cfg(VIS, decoder_hidden_size=32, decoder_num_hidden_layers=1,
                          decoder_num_attention_heads=4, decoder_intermediate_size=37),
                     pixel_inputs(labels=None), train=False),
    "hf_videomae": _videomae,
    "hf_beit_mim": _beit_mim,
    "hf_beit": hf("beit", "BeitForSemanticSegmentation",
                  _cfg(VIS, num_hidden_layers=4, out_indices=[1, 2, 3, 4], use_relative_position_bias=True, num_labels=3,
                       auxiliary_channels=16, pool_scales=[1, 2]),
                  pixel_inputs(labels="seg")),
    "hf_swin": hf("swin", "SwinForImageClassification",
                  dict(image_size=32, patch_size=2, embed_dim=16, depths=[1, 1], num_heads=[2, 2],
                       window_size=4, num_labels=3), pixel_inputs(labels="cls")),
    "hf_convnext": hf("convnext", "ConvNextForImageClassification",
                      dict(hidden_sizes=[8, 16, 16, 16], depths=[1, 1, 1, 1], num_labels=3),
                      pixel_inputs(labels="cls")),
    "hf_segformer": hf("segformer", "SegformerForSemanticSegmentation",
                       dict(hidden_sizes=[8, 16, 16, 16], depths=[1, 1, 1, 1], num_attention_heads=[1, 1, 2, 2],
                            decoder_hidden_size=16, num_labels=3),
                       pixel_inputs(size=64, labels="seg")),
    "hf_dinov2": hf("dinov2", "Dinov2ForImageClassification", _cfg(VIS, num_labels=3),
                    pixel_inputs(size=48, labels="cls")),
    "hf_mobilevit": hf("mobilevit", "MobileViTForImageClassification",
                       dict(image_size=64, patch_size=2, hidden_sizes=[16, 16, 16],
                            neck_hidden_sizes=[8, 8, 8, 16, 16, 16, 32], num_labels=3),
                       pixel_inputs(size=64, labels="cls")),
    "hf_resnet": hf("resnet", "ResNetForImageClassification",
                    dict(embedding_size=8, hidden_sizes=[8, 16, 16, 16], depths=[1, 1, 1, 1], num_labels=3),
                    pixel_inputs(labels="cls")),
    "hf_timesformer": hf("timesformer", "TimesformerForVideoClassification",
                         _cfg(VIS, num_frames=2, num_labels=3),
                         lambda cfg: ({"pixel_values": torch.rand(2, 2, 3, 32, 32, generator=_gen())},
                                      {"pixel_values": torch.rand(2, 2, 3, 32, 32, generator=_gen()),
                                       "labels": torch.tensor([0, 2])})),
    "hf_detr": _detr_like("detr", "DetrForObjectDetection"),
    "hf_dab_detr": _detr_like("dab-detr", "DabDetrForObjectDetection",
                              extra=dict(hidden_size=32, decoder_layers=2)),
    "hf_detr_panoptic": _detr_like("detr", "DetrForSegmentation", masks=True,
                                   extra=dict(d_model=128, encoder_attention_heads=8,
                                              decoder_attention_heads=8)),
    "hf_conditional_detr": _detr_like("conditional_detr", "ConditionalDetrForObjectDetection"),
    "hf_deformable_detr": _detr_like("deformable_detr", "DeformableDetrForObjectDetection",
                                     extra=dict(num_feature_levels=3, encoder_n_points=2,
                                                decoder_n_points=2, decoder_layers=2)),
    "hf_deformable_detr_two_stage": _detr_like("deformable_detr", "DeformableDetrForObjectDetection",
                                               extra=dict(num_feature_levels=3, encoder_n_points=2,
                                                          decoder_n_points=2, decoder_layers=2,
                                                          with_box_refine=True, two_stage=True,
                                                          two_stage_num_proposals=10)),
    "hf_table_transformer": _detr_like("table-transformer", "TableTransformerForObjectDetection"),
    "hf_rt_detr": _detr_like("rt_detr", "RTDetrForObjectDetection",
                             extra=dict(encoder_hidden_dim=32, hidden_size=32, encoder_in_channels=[16, 16, 16],
                                        feat_strides=[8, 16, 32], num_feature_levels=3,
                                        decoder_in_channels=[32, 32, 32], num_denoising=6,
                                        decoder_n_points=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
                                        num_queries=10, encode_proj_layers=[2],
                                        num_labels=3), size=64),
    "hf_yolos": hf("yolos", "YolosForObjectDetection",
                   _cfg(VIS, image_size=[32, 32], num_detection_tokens=5, num_labels=3),
                   pixel_inputs(labels=det_labels())),
    "hf_owlvit": _owlvit,
    "hf_mask2former": _mask2former,
    "hf_sam": _sam,
    # -- transformers: multimodal --------------------------------------------------------
    "hf_clip": _clip("clip", "CLIPModel"),
    "hf_siglip": _clip("siglip", "SiglipModel"),
    "hf_blip": _blip,
    "hf_llava": _vlm_llava,
    "hf_qwen2_vl": _qwen2_vl,
    # -- transformers: generation (greedy `generate()`, a few steps) -------------------------
    "gen_gpt2": _generate("gpt2", "GPT2LMHeadModel",
                          dict(vocab_size=99, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                               pad_token_id=0, bos_token_id=1, eos_token_id=2)),
    "gen_llama": _generate("llama", "LlamaForCausalLM", DEC),
    "gen_t5": _generate("t5", "T5ForConditionalGeneration",
                        dict(vocab_size=99, d_model=32, d_kv=8, d_ff=37, num_layers=2, num_heads=4,
                             pad_token_id=0, eos_token_id=1, decoder_start_token_id=0), enc_dec=True),
    # -- transformers: time series ---------------------------------------------------------
    "hf_patchtst": _patchtst,
}


# ---------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------
CLASSIC_PACKAGES = ["torchvision", "transformers"]


def suite_models(suite: str) -> tuple[dict, list[str]]:
    """(name -> builder, packages whose files count) for a suite: classic, new, all (classic + new)
    b (ultralytics, torch_geometric), c (timm, torchmetrics, torchaudio), d (effdet, demucs,
    torchdiffeq, open_clip), e (speechbrain), f (segmentation_models_pytorch, torchsde), g
    (pytorch_metric_learning, gpytorch, linear_operator), h (pykeen, pytorch_tabnet), i (torchrl, sbi)
    j (botorch, deepxde) or k (k_diffusion, normflows); b to k are kept out of `all` so that their first-look
    figures stay unseen data."""
    models, packages = {}, []
    if suite in ("classic", "all"):
        models.update(MODELS)
        packages += CLASSIC_PACKAGES
    if suite in ("new", "all"):
        from gt import new_models
        extra, pkgs = new_models()
        models.update(extra)
        packages += pkgs
    if suite in ("b", "c", "d", "e", "f", "g", "h", "i", "j", "k"):
        import gt
        extra, pkgs = {"b": gt.suite_b_models, "c": gt.suite_c_models, "d": gt.suite_d_models,
                       "e": gt.suite_e_models, "f": gt.suite_f_models, "g": gt.suite_g_models,
                       "h": gt.suite_h_models, "i": gt.suite_i_models,
                       "j": gt.suite_j_models, "k": gt.suite_k_models}[suite]()
        models.update(extra)
        packages += pkgs
    return models, packages


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def _call(model, args, kwargs):
    out = model(*args, **kwargs)
    return out


def run_model(name: str, builder, roots: Roots, timeout: float) -> dict:
    result: dict = {"status": "ok", "error": "", "phases": {}}
    rec = Recorder(roots)
    t0 = time.time()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(timeout))
    try:
        seed_all(0)
        model, eval_runs, train_runs = builder()
        prov = Provenance()     # what a GPU run would hold on the device: the model and its inputs
        prov.set_module(model)
        prov.set_tree([eval_runs, train_runs])
        phases = [("eval", eval_runs), ("train", train_runs)]
        for phase, runs in phases:
            if not runs:
                continue
            rec.phase = phase
            seed_all(1)
            model.train(phase == "train")
            try:
                tracer = rec.tracer()
                with torch.set_grad_enabled(phase == "train"), HostReads(rec, prov), DynamicOps(rec, prov):
                    sys.settrace(tracer)
                    try:
                        for args, kwargs in runs:
                            _call(model, args, kwargs)
                    finally:
                        sys.settrace(None)
                result["phases"][phase] = "ok"
            except Timeout:
                raise
            except Exception as e:  # a phase may fail; keep what it recorded
                result["phases"][phase] = f"error: {type(e).__name__}: {e}"[:400]
                result["error"] = traceback.format_exc(limit=-4)[-2000:]
        if not any(v == "ok" for v in result["phases"].values()):
            result["status"] = "error"
    except Timeout:
        result["status"] = "timeout"
        result["error"] = f"timed out after {timeout:.0f}s"
    except Exception as e:
        result["status"] = "error"
        result["error"] = f"{type(e).__name__}: {e}\n" + traceback.format_exc(limit=-4)[-2000:]
    finally:
        sys.settrace(None)
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    result["seconds"] = round(time.time() - t0, 2)
    result["unattributed"] = dict(rec.unattributed)
    result["files"] = {rel: f.to_json() for rel, f in sorted(rec.files.items())}
    return result


def _version(pkg: str) -> str | None:
    """The package's `__version__`, else its distribution's (pykeen has no `__version__`; the
    namespace package pytorch_tabnet comes from the distribution `pytorch-tabnet`)."""
    version = getattr(sys.modules.get(pkg), "__version__", None)
    if version is None:
        import importlib.metadata as md
        try:
            dists = md.packages_distributions().get(pkg) or [pkg]
            version = md.version(dists[0])
        except Exception:
            pass
    return version


def select(names: list[str], filt: str | None) -> list[str]:
    if not filt:
        return names
    pats = [p.strip() for p in filt.split(",") if p.strip()]
    return [n for n in names if any(p in n for p in pats)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="bench/results/gt.json")
    ap.add_argument("--models", help="comma-separated substrings of model names")
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--suite", choices=("classic", "new", "all", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"), default="classic",
                    help="classic: torchvision+transformers; new: the six packages of bench/gt/; "
                         "b: ultralytics + torch_geometric (bench/gt/ultralytics_models.py, pyg_models.py); "
                         "c: timm + torchmetrics + torchaudio (bench/gt/timm_models.py, ...); "
                         "d: effdet + demucs + torchdiffeq + open_clip (bench/gt/effdet_models.py, ...); "
                         "e: speechbrain (bench/gt/speechbrain_models.py); "
                         "f: segmentation_models_pytorch + torchsde (bench/gt/smp_models.py, torchsde_models.py); "
                         "g: pytorch_metric_learning + gpytorch/linear_operator (bench/gt/pml_models.py, "
                         "gpytorch_models.py); "
                         "h: pykeen + pytorch_tabnet (bench/gt/pykeen_models.py, tabnet_models.py); "
                         "i: torchrl + sbi (bench/gt/torchrl_models.py, sbi_models.py); "
                         "j: botorch + deepxde (bench/gt/botorch_models.py, deepxde_models.py); "
                         "k: k_diffusion + normflows (bench/gt/kdiffusion_models.py, normflows_models.py)")
    args = ap.parse_args(argv)
    models, packages = suite_models(args.suite)
    names = select(list(models), args.models)
    if args.list:
        print("\n".join(names))
        return 0
    torch.set_num_threads(args.threads)
    import warnings
    warnings.filterwarnings("ignore")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ["HF_HUB_OFFLINE"] = "1"
    roots = Roots(packages)
    try:
        import transformers
        transformers.logging.set_verbosity_error()
    except Exception:
        pass
    import torchvision
    out = {"meta": {"python": platform.python_version(), "torch": torch.__version__,
                    "torchvision": torchvision.__version__,
                    "transformers": getattr(sys.modules.get("transformers"), "__version__", None),
                    "versions": {p: _version(p) for p in packages},
                    "roots": {os.path.basename(p.rstrip(os.sep)): b for p, b in roots.dirs},
                    "recorded": sorted(["dynamic_output_shape (aten.index.Tensor: bool/uint8 index only)",
                                        "data_dependent_output", "torchvision.nms",
                                        "aten.is_nonzero (bool(t) under inference_mode)",
                                        "host-copy:cpu/to/tolist/numpy/format (device-to-host copies of "
                                        "device-derived tensors: .cpu(), .to(host), .tolist(), .numpy(), "
                                        "np.asarray, printing; see Provenance)"])},
           "models": {}}
    t_all = time.time()
    for name in names:
        res = run_model(name, models[name], roots, args.timeout)
        out["models"][name] = res
        n_dyn = sum(len(f["dynamic"]) for f in res["files"].values())
        phases = ",".join(f"{k}:{'ok' if v == 'ok' else 'ERR'}" for k, v in res["phases"].items())
        print(f"{name:40s} {res['status']:8s} {res['seconds']:7.1f}s  dynamic-lines={n_dyn:3d}  {phases}"
              + (f"  {res['error'].strip().splitlines()[-1][:150]}" if res["error"] else ""),
              flush=True)
    out["meta"]["seconds"] = round(time.time() - t_all, 1)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=False)
    ok = sum(1 for r in out["models"].values() if r["status"] == "ok")
    print(f"{ok}/{len(names)} models ok in {out['meta']['seconds']}s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
