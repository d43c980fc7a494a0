"""What a type test proves about a name where its outcome is known (isinstance narrowing).

`if isinstance(x, Tensor):` proves `x` a tensor in the body (and `x.dtype == torch.bool` a
bool one), whatever the walk had joined
before it (a tensor on one path, a tuple on another); `not isinstance(t, (int, float)) or
t != 1` evaluates `t != 1` only when `t` is a number. `facts(analyzer, test, truth)` gives
the kinds that hold for names when `test` evaluated to `truth`; the walker applies them to
an `if`'s branches and to the later operands of an `and`/`or`.
"""
from __future__ import annotations

import ast

from . import kinds as K
from .kinds import NOT, PROBABLE, TENSOR

# Scalar types: their instances are never tensors, nor hold any. Containers are never tensors
# either, but a name narrowed to `tuple` keeps what the walk knew of its items: they count
# only where the question is whether a path can carry a tensor (`containers=True`).
_NOT_TENSOR_TYPES = frozenset("""
int float bool str bytes complex NoneType type
numbers.Number numbers.Real numbers.Integral numbers.Complex
""".split())
_CONTAINER_TYPES = frozenset("tuple list dict set frozenset".split())


def facts(analyzer, test: ast.AST, truth: bool, containers: bool = False) -> dict:
    """name -> kind, for the names `test` narrows when it evaluates to `truth`."""
    t = type(test)
    if t is ast.UnaryOp and type(test.op) is ast.Not:
        return facts(analyzer, test.operand, not truth, containers)
    if t is ast.BoolOp:
        # All operands of an `and` hold when it is true; none of an `or` when it is false.
        if (type(test.op) is ast.And) != truth:
            return {}
        out: dict = {}
        for v in test.values:
            out.update(facts(analyzer, v, truth, containers))
        return out
    if t is ast.Compare:
        # `if m.dtype != torch.bool: ... else: <m is a mask here>`.
        name = _bool_dtype_test(analyzer, test, truth)
        return {} if name is None else {name: TENSOR | K.BOOL}
    if t is not ast.Call:
        return {}
    if not truth:
        # `if hasattr(x, "tolist"): x = x.tolist()`: where the test fails, x is no tensor
        # (every tensor has the attribute). Where it holds, numpy arrays and lists may too.
        name = _tensor_attribute_test(analyzer, test)
        if name is not None:
            return {name: NOT}
    name, kind = _type_test(analyzer, test, containers)
    if name is None:
        return {}
    if not truth:
        # `else:` of `isinstance(x, Tensor)` where x stands for a number (`int | Tensor`): the
        # number. Any other x keeps its kind: a `Union[Tensor, Tuple[Tensor, Tensor]]` is the
        # tuple there, whose items are still tensors (`int(edge_index[0].max())`).
        if kind == TENSOR and not containers and analyzer.frame.lookup(name) & K.SCALAR:
            return {name: NOT}
        return {}
    return {name: kind}


def _tensor_attribute_test(analyzer, call: ast.Call):
    """`x` for `hasattr(x, "a")` where every tensor has the attribute `a`."""
    f, args = call.func, call.args
    if type(f) is ast.Name and f.id == "hasattr" and len(args) == 2 and not call.keywords and \
            type(args[0]) is ast.Name and type(args[1]) is ast.Constant and \
            args[1].value in _TENSOR_ATTRIBUTES and "hasattr" not in analyzer.imports:
        return args[0].id
    return None


# Attributes every tensor has (numpy arrays and others may share some: a test that holds
# proves nothing).
_TENSOR_ATTRIBUTES = K.HOST_METHODS | K.TENSOR_ONLY_METHODS | K.TENSOR_ATTRS | frozenset(
    {"shape", "dtype", "device", "ndim", "dim", "size", "numel", "numpy", "is_cuda"})


def _type_test(analyzer, call: ast.Call, containers: bool):
    """(`x`, kind) for `isinstance(x, T)` / `torch.is_tensor(x)` that settles tensor-ness."""
    f, args = call.func, call.args
    if call.keywords or not args or type(args[0]) is not ast.Name:
        return None, None
    name = args[0].id
    if type(f) is ast.Name and f.id == "isinstance" and len(args) == 2 and \
            "isinstance" not in analyzer.imports:
        types = args[1].elts if type(args[1]) is ast.Tuple else [args[1]]
        verdicts = {_type_kind(analyzer, ty, containers) for ty in types}
        if len(verdicts) == 1 and None not in verdicts:
            return name, verdicts.pop()
        return None, None
    q = analyzer.qualname(f) if type(f) in (ast.Name, ast.Attribute) else None
    if q == "torch.is_tensor" and len(args) == 1:
        return name, TENSOR
    return None, None


def _bool_dtype_test(analyzer, test: ast.Compare, truth: bool):
    """`x` for `x.dtype == torch.bool` (`is`) evaluating true, or `!=` (`is not`) false."""
    if len(test.ops) != 1:
        return None
    op = type(test.ops[0])
    if not (op in (ast.Eq, ast.Is) and truth or op in (ast.NotEq, ast.IsNot) and not truth):
        return None
    for a, b in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
        if type(a) is ast.Attribute and a.attr == "dtype" and type(a.value) is ast.Name and \
                type(b) in (ast.Attribute, ast.Name) and \
                analyzer.qualname(b) in K.BOOL_DTYPE_NAMES and analyzer.qualname(b) != "bool":
            return a.value.id
    return None


def _type_kind(analyzer, ty: ast.AST, containers: bool):
    if type(ty) not in (ast.Name, ast.Attribute):
        return None
    q = analyzer.qualname(ty)
    if q is not None and q.startswith("torch."):
        return TENSOR if q.rsplit(".", 1)[-1] in K.TENSOR_ANNOTATIONS else None
    if type(ty) is ast.Name and ty.id not in analyzer.imports and ty.id not in analyzer.classes \
            and (ty.id in _NOT_TENSOR_TYPES or containers and ty.id in _CONTAINER_TYPES):
        return NOT
    return NOT if q in _NOT_TENSOR_TYPES else None


def narrowed(current: int, kind: int) -> int:
    """The kind a name gets where a type test proved `kind`: a tensor keeps what was known
    of its dtype and memory only if it was known to be (probably) a tensor already."""
    if kind == TENSOR:
        return TENSOR | (current & (K.BOOL | K.CPU) if K.level(current) >= PROBABLE else 0)
    if kind == TENSOR | K.BOOL:              # a dtype test: a bool tensor, wherever it lives
        return kind | (current & K.CPU if K.level(current) >= PROBABLE else 0)
    return NOT
