"""What a type annotation says about a value's kind (`Tensor`, `Optional[Tensor]`, `int`, ...)."""
from __future__ import annotations

import ast

from . import kinds as K
from .kinds import BOOL, NOT, PROBABLE, TENSOR, UNKNOWN


def annotation_kind(ann: ast.AST | None) -> int:
    if ann is None:
        return UNKNOWN
    if type(ann) is ast.Constant and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return UNKNOWN
    names = _annotation_names(ann, [])
    if type(ann) is ast.Constant and ann.value is None:
        return NOT
    if "BoolTensor" in names:
        return TENSOR | BOOL
    if any(n in K.TENSOR_ANNOTATIONS for n in names):
        head = names[0] if names else ""
        # Optional[Tensor] and Tensor | None are tensors when given; List[Tensor] is not one,
        # and `int | Tensor` may well be the int.
        if head in ("List", "list", "Tuple", "tuple", "Sequence", "Dict", "dict", "Iterable"):
            return UNKNOWN
        others = [n for n in names if n not in K.TENSOR_ANNOTATIONS and n not in
                  ("Optional", "Union", "None", "torch", "nn", "typing")]
        if others and all(n in _NUMBERS for n in others):
            # `int | Tensor`: a tensor that stands in for a number is a 0-d one (a timestep,
            # an index), which Python reads back to the host when it indexes or branches.
            return PROBABLE | K.SCALAR
        return PROBABLE if others else TENSOR
    if names and all(n in K.NON_TENSOR_ANNOTATIONS or n in ("Optional", "Union", "typing")
                     for n in names):
        return NOT
    return UNKNOWN


_NUMBERS = frozenset({"int", "float"})


def _annotation_names(node, out: list) -> list:
    """Names in an annotation, outermost first: Optional[torch.Tensor] -> Optional, Tensor."""
    t = type(node)
    if t is ast.Name:
        out.append(node.id)
    elif t is ast.Attribute:
        out.append(node.attr)
    elif t is ast.Subscript:
        _annotation_names(node.value, out)
        _annotation_names(node.slice, out)
    elif t is ast.Tuple or t is ast.List:
        for e in node.elts:
            _annotation_names(e, out)
    elif t is ast.BinOp:
        _annotation_names(node.left, out)
        _annotation_names(node.right, out)
    elif t is ast.Constant and node.value is None:
        out.append("None")
    return out
