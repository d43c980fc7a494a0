"""What names say, for the pre-pass: the patterns of cold functions and classes, of module
bases and of roots (forwards, compiled functions, Lightning steps, losses), and the standard
library's module names."""
from __future__ import annotations

import re
import sys


COLD_FUNC = re.compile(
    r"^(__init__|__new__|__repr__|__str__|__len__|__getitem__|__iter__|__setstate__|"
    r"__getstate__|__post_init__|_?init_weights?|_?initiali[sz]e.*|reset_parameters|"
    r"reset|extra_repr|train(_.*|ing_step.*)?|fit.*|evaluat.*|eval_.*|validat.*|test(_.*)?|"
    r"main|run|log(_.*)?|collate.*|prepare_data|setup|teardown|.*dataset.*|.*dataloader.*|"
    r"preprocess.*|load.*|save.*|from_pretrained|plot.*|visuali[sz]e.*|print.*|summari[sz]e.*|on_.*|"
    r"configure_optimizers|parse_args|download.*|benchmark.*|profile.*|post_?process.*)$",
    re.IGNORECASE,
)
# Classes whose methods never run inside a model: by name for preprocessing and tests, and
# by base class for data loading (datasets, samplers, loader transforms) and training infrastructure (a class merely *named*
# "...Sampler" may well be called from forward, like torchvision's box samplers). Any base named
# `...Dataset` counts: a library's own dataset bases (`InMemoryDataset`, `TensorDataset`,
# `HFDataset`) derive from torch's in files the pre-pass does not read.
COLD_CLASS = re.compile(
    r"^Test|Tests$|Tokenizer|FeatureExtractor$|ImageProcessor|Collat(e|or)|"
    r"^(?!.*(Attn|Attention)).*Processor(Fast)?$|Config$|Args$|Arguments$",
)
COLD_BASE = re.compile(
    r"(^|\.)(\w*Dataset|Sampler|BatchSampler|DataLoader|TestCase|\w*Transform|"
    r"LightningDataModule|DataModule|Trainer|TrainerCallback|Callback|PretrainedConfig|"
    r"threading\.Thread)$"
)
MODULE_BASE = re.compile(
    r"(^|\.)(Module|Sequential|ModuleList|ModuleDict)$|(Model|Module|Layer|Block|Net|Network|"
    r"Loss|Attention|Encoder|Decoder|Head|MLP|Embeddings?|Backbone|Transformer|Criterion|"
    r"Pooler|Neck|Stem|Conv\dd|Norm)$"
)


ROOT_METHOD = re.compile(r"^(forward|_forward.*|forward_.*|__call__)$")


def modelish_name(name: str) -> bool:
    """A function walked as model code by its name alone (`forward`, `__call__`, a loss): its
    unannotated parameters and its calls of a module's attributes are probable tensors."""
    return bool(ROOT_METHOD.match(name)) or "loss" in name.lower()
# Module-level functions that implement a forward pass (`eager_attention_forward`).
ROOT_FUNCTION = re.compile(r"(^|_)forward($|_)")
# Memoizing decorators: the body runs once per distinct arguments (once per object for a
# cached property), like lazy initialisation, whoever calls it.
MEMOIZE_DECORATORS = frozenset({
    "functools.lru_cache", "functools.cache", "functools.cached_property",
    "joblib.Memory.cache", "joblib.memory.Memory.cache",     # (`@memory.cache`, on disk)
})
# `cache = Memory(path)` at module level: a name and the callee it is an instance of.
MODULE_INSTANCE = re.compile(r"^([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\(")
COMPILE_DECORATORS = frozenset({
    "torch.jit.script", "torch.jit.script_method", "torch.compile", "torch.fx.wrap",
    "torch.jit.trace", "torch.compiler.allow_in_graph",
})
# Lightning's step methods (of a LightningModule) run inside the step, although their names
# say "train"/"test"; a trainer's own `training_step` (backward, optimizer) does not.
STEP_METHOD = re.compile(r"^(training|validation|test|predict)_step$")
# `__call__` of a plain class named as a loss or a scorer runs inside the step.
LOSS_CLASS = re.compile(r"Loss|Criterion|Scorer|Metric")
# `torch.compile(fn)`, `torch.jit.script(self.fn)`: the callee and the first argument's name.
COMPILE_CALL = re.compile(r"([A-Za-z_][\w.]*)\s*\(\s*(?:self\.)?([A-Za-z_]\w*)\s*[,)]")
# `self.loss_fn = FocalLoss(...)`: the attribute and the class it holds an instance of.
HELD_INSTANCE = re.compile(r"self\.(\w+)\s*(?::[^=\n]*)?=\s*([A-Za-z_]\w*)\s*\(")
# `self.step = self.additive_step`: a method stored under another name of the object.
METHOD_ALIAS = re.compile(r"self\.(\w+)\s*=\s*self\.(\w+)\s*(?:#.*)?$", re.M)
# `bm = Interval(...)`: a local name and what it is bound to a call of.
_LOCAL_INSTANCE = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?::[^=\n]*)?=\s*([A-Za-z_]\w*)\s*\(", re.M)


def called_instances(text: str, classes, mentioned=None) -> set:
    """The names in `classes` whose instance a function binds to a local and then calls as a
    function (`bm = Interval(...)`, later `bm(t0, t1)`): that call runs the class's
    `__call__`. `classes`: a container of the names that stand for classes here;
    `mentioned`, if given: those of them the text names (FunctionInfo.refs)."""
    out = set()
    # Most functions that name such a class never bind a call of it (`return Output(...)`,
    # `isinstance(x, C)`): a look at where the names occur spares them the regex's pass.
    if mentioned is not None and not any(_assigned_call(text, c) for c in mentioned):
        return out
    for local, cls in _LOCAL_INSTANCE.findall(text):
        if cls in classes and local != cls and _bare_call(text, local, raised=True):
            out.add(cls)
    return out


def _assigned_call(text: str, name: str) -> bool:
    """Whether `name` occurs in `text` as `= name(` (any whitespace around it): what a match
    of _LOCAL_INSTANCE binding a call of `name` holds."""
    n = len(text)
    i = text.find(name)
    while i >= 0:
        j = i + len(name)
        while j < n and text[j].isspace():
            j += 1
        if j < n and text[j] == "(":
            k = i - 1
            while k >= 0 and text[k].isspace():
                k -= 1
            if k >= 0 and text[k] == "=":
                return True
        i = text.find(name, i + 1)
    return False


def constructed_classes(classes: dict) -> dict:
    """name -> `__init__` of the classes of this file known to be no nn.Module (every base
    resolved, none a module) and not data code: an object built in the step runs it there."""
    out = {}
    for name, info in classes.items():
        if info.module_state is False and not info.is_module and not info.cold:
            # `__post_init__` runs only from the `__init__` a dataclass generates: building
            # the object runs it (a class writing its own `__init__` calls it itself, if at all)
            ctor = info.methods.get("__init__") or info.methods.get("__post_init__")
            if ctor:
                out[name] = ctor
    return out


def constructed(text: str, classes) -> set:
    """The names in `classes` that `text` calls (`Interval(ts[0], ts[-1])`), but in a `raise`
    (an exception's constructor runs once, on the error path)."""
    # (What `(?<![\w.])(?<!raise )([A-Za-z_]\w*)\s*\(` finds, looked for name by name: a
    # scan of the whole text for every called name cost more than the few classes asked.)
    return {name for name in classes if name[:1] in _ID_START and _bare_call(text, name)}


_ID_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def _bare_call(text: str, name: str, raised: bool = False) -> bool:
    r"""Whether `text` calls `name` as a bare name (`name (`, not `x.name(`; `raise name(`
    only if `raised`): `(?<![\w.])(?<!raise )name\s*\(` without a regex compiled per name."""
    n = len(text)
    i = text.find(name)
    while i >= 0:
        j = i + len(name)
        if i > 0:
            c = text[i - 1]
            ok = not (c.isalnum() or c == "_" or c == ".") and (raised or text[i - 6:i] != "raise ")
        else:
            ok = True
        if ok:
            while j < n and text[j].isspace():
                j += 1
            if j < n and text[j] == "(":
                return True
        i = text.find(name, i + 1)
    return False


STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
