"""Evidence, from the code of one function, that a name holds a tensor.

The walk gives unannotated parameters of plain functions the kind UNKNOWN: a fix must not
assume a tensor there just because the function looks like model code. But the body often
proves it, and a safe fix may rely on what the body proves:

* a method only tensors have is called on the name (`target.ne(pad)`, `x.view(-1)`): a
  numpy array, a list or a pandas object would raise right there;
* the name is the input of a torch function (`torch.gather(a, 0, i)`, `torch.where(c)`,
  `F.softmax(x)`) or an index tensor of one (`gather`'s and `index_select`'s index, the mask
  of `masked_select`), none of which accept numpy arrays;
* weaker: the name is indexed by a torch boolean mask. numpy would accept that too, so it
  counts only in modules that do not import numpy.

It counts only for a name bound once in the function (a parameter never reassigned, or one
assignment), so the evidence is about the same value, and never when the name is also handed
to numpy or uses a method only numpy arrays have (`astype`, `copy`, `tobytes`).
"""
from __future__ import annotations

import ast

from . import kinds as K
from .statements import own_nodes
from .text import mentions

# torch functions whose first argument is not (necessarily) a tensor: factories, conversions.
_NOT_TENSOR_INPUT = frozenset("""
tensor as_tensor asarray from_numpy zeros ones empty full arange range linspace logspace eye rand
randn randint randperm manual_seed is_tensor is_floating_point numel device dtype Size
get_default_dtype set_default_dtype no_grad enable_grad tensor_split broadcast_shapes
""".split())
# Other positions (and keywords) that hold tensors: index tensors and masks.
_TENSOR_ARGS = {"gather": (2, "index"), "index_select": (2, "index"), "masked_select": (1, "mask"),
                "take_along_dim": (1, "indices"), "masked_fill": (1, "mask")}
_NUMPY_ONLY = frozenset({"astype", "copy", "tobytes", "tostring", "itemset", "ravel_multi_index"})


def tensor_by_evidence(analyzer, node, function) -> bool:
    """`node` is a name that the body of `function` proves to hold a tensor."""
    if type(node) is not ast.Name or function is None:
        return False
    held = getattr(analyzer, "_evidence", None)
    if held is None or held[0] is not analyzer.tree:      # a new file
        held = analyzer._evidence = (analyzer.tree, {})
    cache = held[1]
    key = (id(function), node.id)
    if key not in cache:
        cache[key] = _scan(analyzer, function, node.id)
    return cache[key]


def _scan(analyzer, function, name: str) -> bool:
    stores = 1 if name in _params(function) else 0
    strong = weak = False
    for n in own_nodes(function):
        t = type(n)
        if t is ast.Name and n.id == name and type(n.ctx) is not ast.Load:
            stores += 1
        elif t is ast.Attribute and _is(n.value, name):
            if n.attr in _NUMPY_ONLY:
                return False
        elif t is ast.Call:
            f = n.func
            if type(f) is ast.Attribute and _is(f.value, name) and f.attr in K.TENSOR_ONLY_METHODS:
                strong = True
            q = analyzer.qualname(f) if type(f) in (ast.Name, ast.Attribute) else None
            if q and q.split(".")[0] in ("numpy", "np") and _mentions(n, name):
                return False
            if q and q.startswith("torch.") and _tensor_argument(q, n, name):
                strong = True
        elif t is ast.Subscript and _is(n.value, name):
            k = analyzer.kind(n.slice)
            if K.level(k) == K.TENSOR and k & K.BOOL:
                weak = True
    if stores > 1:
        return False
    return strong or weak and not _imports_numpy(analyzer)


def _tensor_argument(qualname: str, call: ast.Call, name: str) -> bool:
    fn = qualname.rsplit(".", 1)[1]
    if qualname.count(".") == 1 or qualname.startswith("torch.nn.functional."):
        if fn not in _NOT_TENSOR_INPUT and call.args and _is_or_of(call.args[0], name):
            return True
    pos, kw = _TENSOR_ARGS.get(fn, (None, None))
    if pos is not None and len(call.args) > pos and _is(call.args[pos], name):
        return True
    return any(k.arg == kw and _is(k.value, name) for k in call.keywords) if kw else False


def _is(node, name: str) -> bool:
    return type(node) is ast.Name and node.id == name


def _is_or_of(node, name: str) -> bool:
    """The name, or a comparison or arithmetic of it with constants (`c != -1`): numpy would
    hand a numpy array on, which torch functions refuse as much as the name itself."""
    t = type(node)
    if t is ast.Compare and len(node.ops) == 1:
        ops = [node.left, node.comparators[0]]
    elif t is ast.BinOp:
        ops = [node.left, node.right]
    elif t is ast.UnaryOp:
        ops = [node.operand]
    else:
        return _is(node, name)
    return any(_is_or_of(o, name) for o in ops) and all(_is_or_of(o, name) or _constant(o) for o in ops)


def _constant(node) -> bool:
    return type(node) is ast.Constant or type(node) is ast.UnaryOp and _constant(node.operand)


def _mentions(call, name: str) -> bool:
    return any(_is(a, name) for a in call.args) or any(_is(k.value, name) for k in call.keywords)


def _params(function) -> set:
    a = getattr(function, "args", None)
    if a is None:
        return set()
    return {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | \
        {p.arg for p in (a.vararg, a.kwarg) if p is not None}


def _imports_numpy(analyzer) -> bool:
    return any(q.split(".")[0] == "numpy" for q in analyzer.imports.values())


# Attributes and methods only pandas objects have (not tensors, not numpy's `astype` that both
# numpy and pandas share): a name used with one in its function holds a pandas object, and so
# do its columns (`df["a"]`), which are never torch tensors.
PANDAS_ONLY = frozenset("""
iloc loc iat columns groupby iterrows itertuples dropna fillna value_counts to_csv to_numpy
reset_index set_index sort_values nunique to_dict
""".split())


def array_by_evidence(analyzer, name: str, function) -> bool:
    """Local `name` is used as a pandas object in `function` (`df.iloc[...]`, `df.groupby(...)`)."""
    if function is None:
        return False
    # One walk per function gives every such name (asked per name, it cost a walk each).
    cache = analyzer.__dict__.setdefault("_array_evidence", {})
    names = cache.get(id(function))
    if names is None:
        names = cache[id(function)] = frozenset(
            n.value.id for n in own_nodes(function)
            if type(n) is ast.Attribute and n.attr in PANDAS_ONLY and type(n.value) is ast.Name
        ) if _names_pandas(function, analyzer.lines) else frozenset()
    return name in names


def _names_pandas(function, lines) -> bool:
    """Whether the function's text names a pandas-only attribute (else its walk finds none)."""
    return mentions("\n".join(lines[function.lineno - 1:function.end_lineno]), PANDAS_ONLY)
