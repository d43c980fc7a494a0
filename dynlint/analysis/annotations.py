"""What a type annotation says about a value's kind (`Tensor`, `Optional[Tensor]`, `int`, ...)."""
from __future__ import annotations

import ast

from . import kinds as K
from .kinds import BOOL, NOT, PROBABLE, TENSOR, UNKNOWN


def parsed(ann: ast.AST | None) -> ast.AST | None:
    """A string annotation (a forward reference, `"State"`) as the expression it spells, None
    if it does not parse; any other annotation as it is."""
    if type(ann) is ast.Constant and isinstance(ann.value, str):
        try:
            return ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return None
    return ann


def declared_class(ann: ast.AST | None) -> str | None:
    """The name a class annotation gives: `State`, `"State"`, `Optional[State]`,
    `State | None`; None for anything else."""
    ann = parsed(_unwrap_optional(parsed(ann)))   # (`Optional["State"]` too)
    return ann.id if type(ann) is ast.Name else None


def annotation_kind(ann: ast.AST | None) -> int:
    """The kind an annotation declares. A function of the annotation's tree alone, asked
    several times for most (the pre-pass's facts, the walk, callers' summaries): kept on its
    node."""
    if ann is None:
        return UNKNOWN
    k = ann.__dict__.get("_dl_kind")
    if k is None:
        k = ann._dl_kind = _annotation_kind(ann)
    return k


def _annotation_kind(ann: ast.AST) -> int:
    ann = parsed(ann)
    if ann is None:
        return UNKNOWN
    names = _annotation_names(ann, [])
    if type(ann) is ast.Constant and ann.value is None:
        return NOT
    if "BoolTensor" in names:
        return TENSOR | BOOL
    if names and names[0] in _JAXTYPING and len(names) > 1 and names[1] in K.TENSOR_ANNOTATIONS:
        # jaxtyping's `Float[Tensor, "b n"]`, `Bool[Tensor, "n"]`: the array type with its dtype
        # and shape spelled out (the shape is a string, not a name).
        return TENSOR | (BOOL if names[0] == "Bool" else 0)
    if any(n in K.TENSOR_ANNOTATIONS for n in names):
        if _container_of_tensors(ann):
            # Unknown otherwise, as before: such annotations are sometimes wrong
            # (`img_batch: list[Tensor]` then used as one tensor, `img_batch.to("cpu")`).
            inner = _unwrap_optional(ann)
            return UNKNOWN | K.ITEMS | (K.SEQ if _head(getattr(inner, "value", inner)) in _SEQUENCES else 0)
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
                     or n in _NUMPY_ARRAYS for n in names):
        # `np.ndarray`, `npt.NDArray[np.float64]` (`Optional` too): a numpy array, whose items,
        # attributes and method results are no tensors either (ARRAY, as `np.asarray(x)` is).
        return NOT | (K.ARRAY if any(n in _NUMPY_ARRAYS for n in names) else 0)
    return UNKNOWN


_NUMBERS = frozenset({"int", "float"})
# numpy's array types (`np.ndarray`, `numpy.typing.NDArray`); their subscripts spell dtypes.
# A numpy scalar type (`np.float32`) counts as one: its items and method results are numpy's.
_NUMPY_SCALAR = "numpy scalar"
_NUMPY_ARRAYS = frozenset({"ndarray", "NDArray", _NUMPY_SCALAR})
_NUMPY_SCALARS = frozenset({"generic", "number", "integer", "floating", "complexfloating", "bool_",
                            "float16", "float32", "float64", "longdouble", "int8", "int16", "int32",
                            "int64", "uint8", "uint16", "uint32", "uint64", "intp", "complex64",
                            "complex128", "half", "single", "double"})
# jaxtyping's dtype heads (`Float[Tensor, "..."]`).
_JAXTYPING = frozenset({"Float", "Bool", "Int", "UInt", "Integer", "Shaped", "Num", "Real",
                        "Inexact", "Complex", "Float32", "Float64", "Float16", "BFloat16",
                        "Int64", "Int32", "Int8", "UInt8"})


def declared_numbers(ann: ast.AST | None):
    """What an annotation declares in numbers: 1 for `int`/`float` (`Optional` too), the
    length for a fixed tuple of them (`tuple[int, int]`), else None. A tensor passed where the
    code declares a number stands in for one: it is 0-d."""
    if type(ann) is ast.Constant and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return None
    if ann is None:
        return None
    if type(ann) is ast.Subscript and _head(ann.value) in ("tuple", "Tuple"):
        items = ann.slice.elts if type(ann.slice) is ast.Tuple else [ann.slice]
        if items and all(type(i) in (ast.Name, ast.Attribute) and _head(i) in _NUMBERS
                         for i in items):
            return len(items)
        return None
    names = _annotation_names(ann, [])
    plain = [n for n in names if n not in ("Optional", "Union", "None", "typing")]
    return 1 if plain and all(n in _NUMBERS for n in plain) else None
_SEQUENCES = frozenset({"List", "list", "Tuple", "tuple", "Sequence"})
_MAPPINGS = frozenset({"Dict", "dict", "Mapping"})


def _head(node) -> str:
    return node.attr if type(node) is ast.Attribute else getattr(node, "id", "")


def _unwrap_optional(ann):
    """`X` of `Optional[X]` / `X | None`; any other annotation as it is."""
    if type(ann) is ast.BinOp and type(ann.op) is ast.BitOr:
        sides = [x for x in (ann.left, ann.right) if not (type(x) is ast.Constant and x.value is None)]
        return _unwrap_optional(sides[0]) if len(sides) == 1 else ann
    if type(ann) is ast.Subscript and _head(ann.value) == "Optional":
        return _unwrap_optional(ann.slice)
    return ann


def _container_of_tensors(ann) -> bool:
    """`List[Tensor]`, `Tuple[Tensor, ...]`, `Dict[str, Tensor]`, optionally `Optional[...]` or
    `... | None`: every item a tensor (not `List[Dict[str, Tensor]]`, not `Tuple[Tensor, int]`)."""
    if type(ann) is ast.BinOp and type(ann.op) is ast.BitOr:
        sides = [ann.left, ann.right]
        nones = [x for x in sides if type(x) is ast.Constant and x.value is None]
        return len(nones) == 1 and _container_of_tensors(next(x for x in sides if x not in nones))
    if type(ann) is not ast.Subscript:
        return False
    head, args = _head(ann.value), ann.slice
    items = args.elts if type(args) is ast.Tuple else [args]
    if head == "Optional" and len(items) == 1:
        return _container_of_tensors(items[0])
    if head in _MAPPINGS and len(items) == 2:
        items = items[1:]
    elif head not in _SEQUENCES:
        return False
    items = [i for i in items if not (type(i) is ast.Constant and i.value is Ellipsis)]
    return bool(items) and all(_head(i) in K.TENSOR_ANNOTATIONS for i in items)


def keyed_item_kind(ann: ast.AST | None) -> int | None:
    """The kind of a str-keyed item (`data["size"]`) of a value so declared, when every mapping
    the annotation allows maps `str` to tensors and its other members cannot be indexed by a
    string (`Optional[Union[Dict[str, Tensor], List[Item]]]`: a key picks the dict); None
    when nothing says (no mapping, any other member, an item of no tensor)."""
    ann = parsed(ann)
    found = None
    for member in _members(ann) if ann is not None else ():
        if type(member) is ast.Constant and member.value is None:
            continue
        head = _head(member.value if type(member) is ast.Subscript else member)
        if head in _SEQUENCES or head in _NOT_KEYED:
            continue
        if head not in _MAPPINGS or type(member) is not ast.Subscript or \
                type(member.slice) is not ast.Tuple or len(member.slice.elts) != 2 or \
                _head(member.slice.elts[0]) != "str":
            return None
        k = annotation_kind(member.slice.elts[1])
        if K.level(k) != TENSOR or found is not None and found != k:
            return None
        found = k
    return found


def _members(ann):
    """The members of a union annotation (`Optional[X]`, `Union[A, B]`, `A | B`), flattened."""
    if type(ann) is ast.BinOp and type(ann.op) is ast.BitOr:
        return _members(ann.left) + _members(ann.right)
    if type(ann) is ast.Subscript and _head(ann.value) in ("Optional", "Union"):
        items = ann.slice.elts if type(ann.slice) is ast.Tuple else [ann.slice]
        return [m for i in items for m in _members(i)]
    return [ann]


# Members a string key cannot index (a `str` indexes by position, an int raises).
_NOT_KEYED = frozenset({"str", "int", "float", "bool", "bytes"})


def _annotation_names(node, out: list) -> list:
    """Names in an annotation, outermost first: Optional[torch.Tensor] -> Optional, Tensor."""
    t = type(node)
    if t is ast.Name:
        out.append(node.id)
    elif t is ast.Attribute:
        # `np.float32`, `numpy.int64`: a numpy scalar, whose `.item()` is numpy's (not a name
        # alone: `float32` is torch's too)
        out.append(_NUMPY_SCALAR if node.attr in _NUMPY_SCALARS and type(node.value) is ast.Name
                   and node.value.id in ("np", "numpy") else node.attr)
    elif t is ast.Subscript:
        _annotation_names(node.value, out)
        if _head(node.value) not in _NUMPY_ARRAYS:     # (`NDArray[np.float64]`: a dtype)
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
