"""Tensor-kind inference: what an expression holds (see `kinds`), asked by the walker and
by predicates at any node, answered from the environment the walk has built so far.

Answers are memoised per node for one module. `speculative()` lets a caller (the fix
suggester) ask about code the walk has not reached without keeping those answers, so
building a fix never changes what is flagged.
"""
from __future__ import annotations

import ast
import builtins
from collections import ChainMap
from contextlib import contextmanager

from . import hostmem, narrowing, rank, typeddicts
from . import kinds as K
from .kinds import BOOL, CPU, HOLDS, HOST, NOT, PROBABLE, ROW, SCALAR, SHAPE, TENSOR, UNKNOWN, VEC
from .attributes import attribute_kind
from .fields import instance_class
from .evidence import array_by_evidence
from .bindings import binding_values
from .tensor_api import TENSOR_NAMES


class KindInference:
    """Mixed into the walker (`Analyzer`), whose frames and imports it reads; it owns the
    memo of answers (`_kinds`, `_tuple_kinds`)."""

    @contextmanager
    def speculative(self):
        """Answers given inside are forgotten afterwards."""
        kinds = self._kinds
        self._kinds = ChainMap({}, kinds)
        try:
            yield
        finally:
            self._kinds = kinds

    def kind(self, node: ast.AST) -> int:
        key = id(node)
        k = self._kinds.get(key)
        if k is None:
            k = self._kinds[key] = self._infer(node)
        return k

    def _infer(self, node: ast.AST) -> int:
        t = type(node)
        if t is ast.Name:
            k = self.frame.lookup(node.id)
            # Builtins (`tuple`, `len`, `str`) are not tensors unless rebound.
            if k == UNKNOWN and node.id in _BUILTINS:
                return NOT
            if K.level(k) in (UNKNOWN, PROBABLE) and self._pandas_here and \
                    array_by_evidence(self, node.id, self._function_node()):
                return NOT | K.ARRAY            # `df.iloc[...]` in the same function
            return k
        if t is ast.Constant or t is ast.JoinedStr or t is ast.Lambda:
            return NOT
        if t is ast.Call:
            return self._call_kind(node)
        if t is ast.Attribute:
            return self._attr_kind(node)
        if t is ast.Subscript:
            items = self._items_of(node.value)
            if items is not None and type(node.slice) is ast.Constant and \
                    type(node.slice.value) is int and -len(items) <= node.slice.value < len(items):
                item = items[node.slice.value]
                if type(item) is tuple:         # `out[0]` of `return (a, m), loss`
                    self._tuple_kinds[id(node)] = item
                    return K.tuple_kind(item)
                return item
            if type(node.slice) is ast.Constant and type(node.value) in (ast.Name, ast.Attribute):
                declared = typeddicts.item_kind(self, node.value, node.slice.value)
                if declared is not None:
                    return declared         # `batch["masks"]` of a TypedDict parameter
            base = self.kind(node.value)
            lv = K.level(base)
            if base & K.ITEMS:
                return base if type(node.slice) is ast.Slice else TENSOR
            if base & SHAPE:
                return NOT
            if base & (HOST | K.ARRAY):
                return NOT | (base & (HOST | K.ARRAY))
            if base & VEC and lv >= PROBABLE:
                return rank.item(self, base, node.slice)    # `counts[0]`: 0-d
            if base & ROW and type(node.slice) is ast.Constant and type(node.slice.value) is int:
                return (base & ~ROW) | SCALAR
            if lv == TENSOR and _positions_call(self, node.value):
                # `nonzero(as_tuple=True)[0]` is a 1-d tensor of positions and `nonzero()[0]`
                # one coordinate row: their items (`...[0][0]`, `nonzero()[0, 1]`) are 0-d.
                if _int_constants(node.slice, 2) and type(node.slice) is ast.Tuple:
                    return TENSOR | SCALAR
                if _int_constants(node.slice, 1):
                    return TENSOR | ROW | VEC
            if lv >= PROBABLE:
                return base & ~(SHAPE | HOLDS)
            return UNKNOWN
        if t is ast.Compare:
            ops = node.ops
            if all(type(o) in (ast.Is, ast.IsNot) for o in ops):
                return NOT
            if any(type(o) in (ast.In, ast.NotIn) for o in ops):
                host = any(K.level(self.kind(c)) == TENSOR for c in node.comparators)
                return NOT | (HOST if host else 0)
            operands = [node.left, *node.comparators]
            if any(type(o) in (ast.List, ast.Tuple) and
                   any(K.level(self.kind(e)) == TENSOR for e in o.elts) for o in operands):
                # [a, b] == [c, t] compares item by item and reads each answer on the host.
                return TENSOR | BOOL
            for o in operands:
                items = self._items_of(o) if type(o) is ast.Name else None
                if type(items) is tuple and any(K.level(i) >= PROBABLE and i & SCALAR
                                                for i in items):
                    # `pad == (0, 0)` of a tuple whose items callers pass as 0-d tensors.
                    return max(K.level(i) for i in items) | BOOL
            if any(_is_non_numeric_literal(o) for o in operands):
                return NOT
            ks = [self.kind(o) for o in operands]
            lv = max(K.level(k) for k in ks)
            if lv == NOT:
                host = any(k & HOST for k in ks)
                # `arr > 0` of a numpy array is a numpy (bool) array
                array = _array_of(*ks)
                return NOT | (HOST if host else 0) | array | (BOOL if array else 0)
            return lv | BOOL | hostmem.joint(*ks)
        if t is ast.BinOp:
            return binop_kind(self.kind(node.left), self.kind(node.right), node.op)
        if t is ast.UnaryOp:
            if type(node.op) is ast.Not:
                return NOT
            return self.kind(node.operand) & ~SHAPE
        if t is ast.BoolOp:
            proved = self.operand_facts(node)     # what earlier operands proved (walker)
            if proved is None:
                return max(K.level(self.kind(v)) for v in node.values)
            lv = NOT
            for v, facts in zip(node.values, proved):
                with self.narrowing(facts):
                    lv = max(lv, K.level(self.kind(v)))
            return lv
        if t is ast.IfExp:
            # Each branch under what its test proves of non-tensors: in `t if isinstance(t,
            # int) else int(t.item())` both branches are Python ints. A branch proved a tensor
            # keeps what the walk knew: `int(s.max() if isinstance(s, Tensor) else s)`
            # accepts either, and which one arrives is the callers' to tell.
            with self.narrowing(_non_tensor(narrowing.facts(self, node.test, True))):
                a = self.kind(node.body)
            with self.narrowing(_non_tensor(narrowing.facts(self, node.test, False))):
                b = self.kind(node.orelse)
            # `None if tpu else t.ne(pad)`: an optional tensor is used where it is one.
            if _is_none(node.body) and K.level(b) == TENSOR:
                return b
            if _is_none(node.orelse) and K.level(a) == TENSOR:
                return a
            return max(K.level(a), K.level(b)) | (a & b & (BOOL | CPU | VEC))
        if t is ast.NamedExpr:
            return self.kind(node.value)
        if t is ast.List or t is ast.Tuple:
            return NOT | (HOLDS if any(K.level(self.kind(e)) == TENSOR for e in node.elts) else 0)
        if t is ast.ListComp or t is ast.GeneratorExp:
            # `[f(x) for x in xs]` of tensors: its items are tensors.
            with self.comprehension(node):
                k = self.kind(node.elt)
                if t is ast.ListComp and type(node.elt) is ast.Compare and K.level(k) == NOT and \
                        any(K.level(o) >= PROBABLE or o & HOST for o in
                            map(self.kind, (node.elt.left, *node.elt.comparators))):
                    # Python bools read from tensor data (`[pad not in y for y in ys]`): as
                    # an index, a mask whose true count the data decides. (Config: constant.)
                    return NOT | BOOL
            if k & K.ARRAY:
                # `[np.array(ids) for ids in batch]`: numpy arrays, and so are its items
                # (`utt[utt != unk] for utt in ...` filters numpy, not a tensor).
                return NOT | K.ARRAY
            return NOT | (K.ITEMS | K.SEQ if K.level(k) == TENSOR and not k & HOST else 0)
        if t in (ast.Set, ast.Dict, ast.SetComp, ast.DictComp):
            return NOT
        return UNKNOWN

    def _items_of(self, node: ast.AST):
        """Kinds of the items of a tuple returned by one of this file's functions, if known."""
        if type(node) is ast.Name:
            frame = self.frame
            while frame is not None:
                if node.id in frame.env:
                    return frame.tuples.get(node.id)
                frame = frame.parent
            return None
        if type(node) is ast.Call or type(node) is ast.Subscript:
            self.kind(node)
            return self._tuple_kinds.get(id(node))
        return None

    def _local_result(self, node: ast.Call, fallback: int = UNKNOWN):
        """What a followed call returns; None where its summary knows nothing, so the call site
        decides as for a call it cannot follow (`fallback`, item by item for a tuple)."""
        r = self.calls.result(node)
        if r == UNKNOWN:
            return None
        if type(r) is tuple:
            if fallback != UNKNOWN:
                r = tuple(fallback if k == UNKNOWN else k for k in r)
            self._tuple_kinds[id(node)] = r
            return NOT
        return r if r is None or not node.keywords else r | hostmem.asked_for_cpu(self, r, node)

    def _attr_kind(self, node: ast.Attribute) -> int:
        base_node = node.value
        if type(base_node) is ast.Name:
            if base_node.id in ("self", "cls"):
                if node.attr == "training":
                    return NOT
                k = self.frame.lookup("self." + node.attr)
                if k == UNKNOWN and base_node.id == "self":
                    cls = self._enclosing_class()
                    if cls is not None:
                        return attribute_kind(self, cls, node.attr)
                return k
            if base_node.id in self.imports or base_node.id in self.classes:
                # A module or class attribute: torch.float32, np.pi, Config.size.
                return NOT if (self.qualname(node) or "").startswith("torch.") else UNKNOWN
        attr = node.attr
        if attr == "shape":
            return NOT | SHAPE
        if attr in ("dtype", "device", "ndim", "is_cuda", "requires_grad", "is_leaf", "layout"):
            return NOT
        if self.classes and type(base_node) in (ast.Name, ast.Attribute):
            cls = instance_class(self, base_node)        # `state.t1` of a `State` (fields.py)
            if cls is not None:
                k = attribute_kind(self, cls, attr)
                if k != UNKNOWN:
                    return k
        base = self.kind(base_node)
        lv = K.level(base)
        if base & K.ARRAY:
            return NOT | K.ARRAY
        if attr in K.TENSOR_ATTRS and lv >= PROBABLE:
            return TENSOR | (base & (BOOL | CPU) if attr not in ("grad",) else base & CPU)
        if attr in _RESULT_FIELDS and lv == TENSOR:
            # A tensor's `values`/`indices` are methods (sparse tensors'), never read as data:
            # the fields of what `torch.max(x, dim=1)`, `sort`, `topk` return (torch.return_types).
            return TENSOR | (base & (BOOL | CPU) if attr == "values" else base & CPU)
        if lv == TENSOR:
            return NOT
        if lv == PROBABLE:
            return PROBABLE
        return UNKNOWN

    def _call_kind(self, node: ast.Call) -> int:
        func = node.func
        if type(func) is ast.Attribute:
            q = self.qualname(func)
            if q is not None and q.startswith("torch."):
                return self._torch_call_kind(q[6:], node)
            if q is not None and q.startswith(K.ARRAY_LIBRARIES):
                return NOT | K.ARRAY | self._array_bool(q, node)
            if type(func.value) is ast.Name and func.value.id in ("self",) and \
                    ("self." + func.attr) not in self.frame.env:
                unfollowed = PROBABLE if self.frame.modelish else UNKNOWN
                r = self._local_result(node, unfollowed)
                if r is not None:
                    return r
                return unfollowed
            v = func.value
            if (type(v) is ast.Name and (v.id in self.classes or v.id in self.imports)) or \
                    (type(v) is ast.Attribute and type(v.value) is ast.Name and (
                        v.value.id == "self" or v.value.id in self.imports)):
                # Class.static_method(...) of this file, `module.helper(...)` of another file
                # of the project, `self.held.method(...)`, `module.Class.static_method(...)`
                # (summaries.py).
                r = self._local_result(node)
                if r is not None:
                    return r
            elif type(v) is ast.Name and func.attr in ("get", "pop") and node.args and \
                    type(node.args[0]) is ast.Constant and (len(node.args) == 1 or _is_none(
                        node.args[1])) and not node.keywords and \
                    typeddicts.item_kind(self, v, node.args[0].value) is not None:
                # `batch.get("masks")` of a TypedDict parameter: the item, or the default
                return typeddicts.item_kind(self, v, node.args[0].value)
            elif type(v) is ast.Name and self.calls.declared_methods(node):
                # `mode.boxes_to_corners(b)`, `mode` an instance of a class of this file
                # (summaries.LocalCalls.declared_methods)
                r = self._local_result(node)
                if r is not None:
                    return r
            return self._method_kind(func.attr, self.kind(func.value), node)
        if type(func) is ast.Name:
            q = self.imports.get(func.id)
            if q is not None:
                if q.startswith("torch."):
                    return self._torch_call_kind(q[6:], node)
                if q.startswith(K.ARRAY_LIBRARIES):
                    return NOT | K.ARRAY | self._array_bool(q, node)
                r = self._local_result(node)        # a helper of another file (summaries.py)
                return UNKNOWN if r is None else r
            name = func.id
            if name in K.HOST_CONVERTERS:
                arg = self.kind(node.args[0]) if node.args else NOT
                if arg & CPU:
                    return NOT                  # read from host memory: no device data
                host = K.level(arg) == TENSOR or arg & HOST or \
                    (K.level(arg) == PROBABLE and node.args and _reads_data(node.args[0]))
                return NOT | (HOST if host else 0)
            if name in ("list", "tuple") and len(node.args) == 1 and not node.keywords and \
                    type(node.args[0]) in (ast.GeneratorExp, ast.ListComp):
                return self.kind(node.args[0])          # `tuple(t[k] for k in keys)`
            if name == "next" and len(node.args) == 1 and not node.keywords and \
                    not self._rebound("next"):
                k = _next_item(self, node.args[0])
                if k is not None:
                    return k                # `next(iter(t))`: a row of `t`
            if name in K.NOT_TENSOR_BUILTINS:
                return NOT
            if name in K.SCALAR_BUILTINS:
                k = _over_tensors(self, name, node)
                if k is not None:
                    return k
                ks = [self.kind(a) for a in node.args]
                if any(k & HOST for k in ks):
                    return NOT | HOST
                return max((K.level(k) for k in ks), default=NOT) | hostmem.joint(*ks) if ks else NOT
            if name in self.classes:
                return NOT
            r = self._local_result(node)
            if r is not None:
                return r
            if _applied_parameter(self, node):
                return PROBABLE
        return UNKNOWN

    def _torch_call_kind(self, name: str, node: ast.Call) -> int:
        k = self._torch_call_level(name, node)
        if K.level(k) == TENSOR and not k & HOST:
            k |= hostmem.torch_call(self, name.rsplit(".", 1)[-1], node)
            if self._zero_dim_call(name, node):
                k |= SCALAR
            else:
                k |= rank.torch_call(self, name, node)
            if name in ("unique", "unique_consecutive"):
                self._unique_items(k, node, None)
        return k

    def _unique_items(self, k: int, node: ast.Call, receiver) -> None:
        """`values, inverse, counts = torch.unique(x, ...)`: the items' kinds, for unpacking."""
        items = rank.unique_items(self, node, receiver)
        if items is not None:
            self._tuple_kinds[id(node)] = tuple(i | (k & CPU) for i in items)

    def _zero_dim_call(self, name: str, node: ast.Call) -> bool:
        """`torch.tensor(0)` of a Python number, or an element-wise function of a 0-d tensor
        (`torch.floor(t)`, other operands 0-d or Python values) is a 0-d tensor."""
        args = node.args
        if not args or type(args[0]) is ast.Starred:
            return False
        if name in ("tensor", "scalar_tensor"):
            return _number(args[0])
        if name in K.FULL_REDUCTIONS:
            return len(args) == 1 and _no_dim(node) or \
                self._over_only_dim(name, node, args[0], args[1:])     # `torch.argmin(diff)`
        if name not in K.SHAPE_PRESERVING or not self.kind(args[0]) & SCALAR:
            return False
        return all(not K.level(k) or k & SCALAR for k in map(self.kind, args[1:]))

    def _over_only_dim(self, name: str, node: ast.Call, tensor, rest) -> bool:
        """A reduction over the only dimension of a 1-d tensor (`torch.argmax(v.view(-1),
        dim=0)`, `v.sum(-1)`) is 0-d, as one with no `dim` is. Not `max`/`min`/`median` with a
        `dim`: they give a (values, indices) pair."""
        if name in _PAIR_REDUCTIONS or not self.kind(tensor) & K.VEC:
            return False
        dims = [kw.value for kw in node.keywords if kw.arg in ("dim", "axis")] + list(rest[:1])
        if len(dims) != 1 or len(rest) > 1:
            return False
        for kw in node.keywords:
            if kw.arg is None or kw.arg == "keepdim" and not (
                    type(kw.value) is ast.Constant and kw.value.value is False):
                return False
        d = dims[0]
        if type(d) is ast.UnaryOp and type(d.op) is ast.USub and type(d.operand) is ast.Constant:
            return d.operand.value == 1
        return type(d) is ast.Constant and d.value == 0 and type(d.value) is int

    def _torch_call_level(self, name: str, node: ast.Call) -> int:
        if "." in name:
            for prefix, lv in _SUBMODULES_BY_LENGTH:
                if name.startswith(prefix + "."):
                    if lv == TENSOR:
                        return TENSOR | self._dtype_flag(name.rsplit(".", 1)[1], node)
                    return lv
            if name.startswith("Tensor."):
                return self._method_kind(name[7:], TENSOR, node)
            return UNKNOWN
        if name in K.TORCH_HOST:
            return NOT | HOST
        if name in K.TORCH_NOT_TENSOR or name.startswith(("is_", "are_", "get_", "set_", "use_", "_")):
            return NOT
        if name == "BoolTensor":
            return TENSOR | BOOL
        if name[:1].isupper() and not name.endswith("Tensor"):
            return NOT
        return TENSOR | self._dtype_flag(name, node)

    def _dtype_flag(self, name: str, node: ast.Call) -> int:
        for kw in node.keywords:
            if kw.arg == "dtype":
                return BOOL if self._is_bool_dtype(kw.value) else 0
        if name in K.BOOL_FUNCS:
            return BOOL
        if name == "full" and len(node.args) >= 2 and type(node.args[1]) is ast.Constant and \
                type(node.args[1].value) is bool:
            return BOOL                # `torch.full(shape, False)`: the fill value's dtype
        if name in _FROM_ARRAY and node.args and self.kind(node.args[0]) & BOOL:
            return BOOL                # `torch.from_numpy(mask)` of a bool array: a mask
        if name == "where":        # where(c) gives indices; where(c, a, b) the dtype of a, b
            args = node.args
            return BOOL if len(args) == 3 and self.kind(args[1]) & self.kind(args[2]) & BOOL else 0
        if name in K.DTYPE_PRESERVING or name.endswith("_like") and name != "full_like":
            first = node.args[0] if node.args else None
            if type(first) in (ast.List, ast.Tuple) and first.elts:
                first = first.elts[0]
            if first is not None and self.kind(first) & BOOL:
                return BOOL
        return 0

    def _array_bool(self, q: str, node: ast.Call) -> int:
        """BOOL for a numpy call that builds a bool array: `np.full(shape, False)`,
        `np.zeros(n, dtype=bool)`, `np.isnan(a)`, `np.logical_and(a, b)`."""
        name = q.rsplit(".", 1)[-1]
        for kw in node.keywords:
            if kw.arg == "dtype":
                d = self.qualname(kw.value) if type(kw.value) in (ast.Name, ast.Attribute) else None
                return BOOL if d in _NUMPY_BOOL_DTYPES else 0
        if name in ("full", "full_like") and len(node.args) >= 2:
            v = node.args[1]
            return BOOL if type(v) is ast.Constant and type(v.value) is bool else 0
        return BOOL if name in K.BOOL_FUNCS and not q.startswith(("pandas.", "pd.")) else 0

    def _is_bool_dtype(self, node: ast.AST) -> bool:
        q = self.qualname(node) if type(node) in (ast.Name, ast.Attribute) else None
        return q in K.BOOL_DTYPE_NAMES

    def _method_kind(self, name: str, base: int, node: ast.Call) -> int:
        k = self._method_level(name, base, node)
        if base & SCALAR and K.level(k) >= PROBABLE and name in K.SHAPE_PRESERVING:
            k |= SCALAR                     # `t.to(torch.long)` of a 0-d tensor
        elif name in K.FULL_REDUCTIONS and K.level(k) >= PROBABLE and K.level(base) >= PROBABLE \
                and (not node.args and _no_dim(node) or
                     self._over_only_dim(name, node, node.func.value, node.args)):
            k |= SCALAR                     # `lens.amax()`: one element, whatever the rank
        if K.level(k) == TENSOR and not k & (SCALAR | HOST):
            k |= rank.method(self, name, base, node)
        if K.level(k) == TENSOR and name in ("cpu", "to"):
            k |= hostmem.copied_to_host(self, name, node)
        if base & CPU and K.level(k) == TENSOR:
            k |= hostmem.method(self, name, base, node)
        elif base & CPU and k & HOST:
            k &= ~HOST                          # `.item()` of host memory: no device data
        if name in ("unique", "unique_consecutive") and K.level(k) == TENSOR:
            self._unique_items(k, node, node.func.value)
        return k

    def _method_level(self, name: str, base: int, node: ast.Call) -> int:
        lv = K.level(base)
        if name in K.NEW_FACTORIES and lv >= UNKNOWN and not base & (HOST | K.ARRAY):
            # `x.new_zeros(n, dtype=torch.bool)`: the dtype given, else the receiver's.
            for kw in node.keywords:
                if kw.arg == "dtype":
                    return TENSOR | (BOOL if self._is_bool_dtype(kw.value) else 0)
            return TENSOR | (base & BOOL)
        if name == "new" and lv == TENSOR and not base & HOST:
            # Legacy `t.new(data)` / `t.new(*sizes)`: the receiver's dtype (`m.new([True])` of a
            # mask is a mask). Only on a certain tensor: `hmac.new`, `Image.new` are not.
            return TENSOR | (base & BOOL)
        if base & HOST:
            return NOT | HOST if name in K.HOST_METHODS or lv == NOT else UNKNOWN
        if name == "to" and _names_no_device(node):
            # `e.to('radians')`: a tensor's or a module's `to` takes a device string there, so
            # the receiver is some other object with a `to` of its own (a group element's).
            return UNKNOWN
        if name == "astype":
            return NOT | K.ARRAY               # numpy/pandas only: a tensor has no `astype`
        if base & K.ARRAY or name in K.STR_METHODS or _str_split(name, node):
            return NOT | (base & K.ARRAY)      # numpy/pandas results; text
        if lv == NOT:
            return UNKNOWN
        if name == "numpy" and not node.args and lv >= UNKNOWN:
            return NOT | K.ARRAY                # `t.cpu().numpy()`: a numpy array from here on
        if lv == UNKNOWN:
            # Methods only tensors have are evidence that the receiver is one.
            if name in K.NOT_TENSOR_METHODS:
                return NOT
            if name in K.TENSOR_ONLY_METHODS:
                return TENSOR | (BOOL if name in K.BOOL_FUNCS or name == "bool" or
                                 name in K.DTYPE_PRESERVING and base & BOOL else 0)
            if name in K.HOST_METHODS:
                return NOT | HOST
            # `(a <= t).flatten()`: a tensor's or an array's reshaping keeps the bool dtype.
            return UNKNOWN | (base & BOOL if name in K.DTYPE_PRESERVING else 0)
        if lv == PROBABLE and name in K.CONTAINER_METHODS and not node.args and not node.keywords:
            return UNKNOWN
        if name not in TENSOR_NAMES:
            # Not a tensor method: the receiver is some other object (a ModelOutput, a cache,
            # a dict), whatever its annotation claims.
            return PROBABLE if lv == PROBABLE else UNKNOWN
        if name in K.HOST_METHODS or name == "is_nonzero":
            return NOT | HOST
        if name in K.NOT_TENSOR_METHODS or name.startswith("is_"):
            # `t.is_inference()`, `t.is_floating_point()`: Python bools about the tensor.
            return NOT | (SHAPE if name == "size" and not node.args else 0)
        if name in K.BOOL_FUNCS or name == "bool":
            return TENSOR | BOOL
        if name in ("to", "type"):
            args = list(node.args) + [k.value for k in node.keywords if k.arg == "dtype"]
            if any(self._is_bool_dtype(a) for a in args):
                return TENSOR | BOOL
            if name == "type" and not args:
                return NOT
            dtype_given = any(type(a) in (ast.Attribute, ast.Name) and
                              (self.qualname(a) or "").startswith("torch.") and
                              not (self.qualname(a) or "").startswith("torch.device")
                              for a in args)
            return TENSOR | (0 if dtype_given else base & BOOL)
        if name in K.DTYPE_PRESERVING:
            return TENSOR | (base & BOOL)
        return TENSOR


# ---------------------------------------------------------------------------------------


_BUILTINS = frozenset(dir(builtins))
# torch functions building a tensor from an array's data, with its dtype (unless `dtype=`).
_FROM_ARRAY = frozenset({"from_numpy", "as_tensor", "asarray", "tensor"})
_NUMPY_BOOL_DTYPES = frozenset({"bool", "numpy.bool_", "numpy.bool", "np.bool_", "np.bool"})


_SUBMODULES_BY_LENGTH = sorted(K.TORCH_SUBMODULES.items(), key=lambda kv: -len(kv[0]))


def _names_no_device(call: ast.Call) -> bool:
    """`x.to("radians")`: the first argument is a string that names no device (`"cuda:1"` does),
    so `x` is no tensor or module: their `to` would raise on it."""
    a = call.args[0] if call.args else None
    return type(a) is ast.Constant and type(a.value) is str and a.value.split(":", 1)[0] not in K.DEVICE_TYPES


def _array_of(*ks: int) -> int:
    """ARRAY when an operand of an operator is a numpy/pandas object (and none is a tensor)."""
    return K.ARRAY if any(k & K.ARRAY for k in ks) else 0


def _next_item(analyzer, it, hop: bool = True):
    """What `next(it)` gives when `it` iterates over a tensor: `iter(t)` (`iter(t) if t is not
    None else None` too), a local every binding of which is one, or an item of a local dict
    literal every value of which is one (`grid_iters = {1: iter(image_grid_thw), ...}`, then
    `next(grid_iters[kind])`): one iteration's item, as a `for` loop over `t` binds it (a row
    of `t`). None when it is not known to be one."""
    t = type(it)
    if t is ast.Call and type(it.func) is ast.Name and it.func.id == "iter" and \
            len(it.args) == 1 and not it.keywords and not analyzer._rebound("iter"):
        k = analyzer._iteration_item(it.args[0])
        return k if type(k) is int and K.level(k) == TENSOR and not k & HOST else None
    if t is ast.IfExp:
        return _joined([_next_item(analyzer, b, hop) for b in (it.body, it.orelse)
                        if not _is_none(b)])
    if not hop or t not in (ast.Name, ast.Subscript):
        return None
    name = it if t is ast.Name else it.value
    fn = analyzer._function_node()
    if type(name) is not ast.Name or type(fn) not in (ast.FunctionDef, ast.AsyncFunctionDef):
        return None
    values = binding_values(fn, name.id)
    if not values:
        return None
    if t is ast.Name:
        return _joined([_next_item(analyzer, v, False) for v in values])
    if not all(type(v) is ast.Dict and v.values and None not in v.keys for v in values):
        return None
    return _joined([_next_item(analyzer, x, False) for v in values for x in v.values
                    if not _is_none(x)])


def _joined(ks: list):
    """The kind every one of `ks` has (the lowest level, the flags they share); None when
    some is unknown or there is none."""
    if not ks or None in ks:
        return None
    out = ks[0]
    for k in ks[1:]:
        out = min(K.level(out), K.level(k)) | (out & k & ~K.LEVEL)
    return out


def binop_kind(a: int, b: int, op: ast.operator) -> int:
    la, lb = K.level(a), K.level(b)
    lv = max(la, lb)
    if (a | b) & SCALAR and (min(la, lb) <= UNKNOWN or a & b & SCALAR):
        # `idx + 1` is still a 0-d tensor; so is `t - self.step_size` (an unknown operand: a
        # number, or a tensor the result broadcasts to; read as a condition or an index, it
        # can only hold one element).
        return lv | SCALAR | hostmem.joint(a, b)
    if lv == NOT:
        array = _array_of(a, b)
        bits = array and type(op) in (ast.BitAnd, ast.BitOr, ast.BitXor) and (a & b & BOOL)
        return NOT | ((a | b) & HOST) | array | (BOOL if bits else 0)
    if lv == UNKNOWN and ((a | b) & HOST):
        return NOT | HOST
    flags = hostmem.joint(a, b) | (rank.binop(a, b) if lv >= PROBABLE else 0)
    if type(op) in (ast.BitAnd, ast.BitOr, ast.BitXor) and (a & BOOL or b & BOOL):
        flags |= BOOL
    elif type(op) is ast.Mult and a & b & BOOL:
        flags |= BOOL           # (bool * bool stays bool in torch: a logical and)
    return lv | flags


def _positions_call(analyzer, node) -> bool:
    """`x.nonzero(...)`, `torch.nonzero(x, ...)`, `x.argwhere()`, one-argument `torch.where(c)`:
    a 2-d tensor of coordinates, or (as_tuple) a tuple of 1-d tensors of positions."""
    if type(node) is not ast.Call:
        return False
    f = node.func
    q = analyzer.qualname(f) if type(f) in (ast.Name, ast.Attribute) else None
    if q in ("torch.nonzero", "torch.argwhere") or q == "torch.where" and len(node.args) == 1:
        return True
    return type(f) is ast.Attribute and f.attr in ("nonzero", "argwhere") and \
        (q is None or not q.startswith(K.ARRAY_LIBRARIES)) and \
        K.level(analyzer.kind(f.value)) >= UNKNOWN


def _over_tensors(analyzer, name: str, node: ast.Call):
    """`max([rms(t) for t in ts])`, `sum(losses)` of a `List[Tensor]`: `max`/`min` of one
    sequence of tensors return one of them, `sum` adds them up (`0 + t0 + t1`): a tensor,
    in host memory if the items are (`sum(t[i] for i in ...)` of a `.cpu()` copy), None
    when the argument is no such sequence. (A dict of tensors iterates its keys; `default=`
    may give something else.)"""
    if name not in ("max", "min", "sum") or len(node.args) != 1 or \
            type(node.args[0]) is ast.Starred or any(k.arg in ("default", None) for k in node.keywords):
        return None
    arg = node.args[0]
    k = analyzer.kind(arg)
    if not (k & K.ITEMS and k & K.SEQ) or k & (HOST | K.ARRAY):
        return None
    if type(arg) in (ast.ListComp, ast.GeneratorExp):
        with analyzer.comprehension(arg):
            item = analyzer.kind(arg.elt)
        return TENSOR | (item & (CPU | (BOOL if name != "sum" else 0)))
    return TENSOR


def _applied_parameter(analyzer, node: ast.Call) -> bool:
    """`norm(y / scale)`: a function's parameter (its own or an enclosing function's, not
    annotated, not known to be anything) called with tensors. What a function receives and
    applies to tensors is a tensor function (a norm, an activation, an ODE's right-hand
    side), so its result is probably a tensor, as a submodule's output is. Every positional
    argument must be a tensor (one certainly, the others probably) and none a host value:
    a callback given plain values (`log(step, "loss")`) makes no claim."""
    args = node.args
    if not args or any(type(a) is ast.Starred for a in args):
        return False
    ks = [analyzer.kind(a) for a in args]
    if any(K.level(k) < PROBABLE or k & (HOST | SHAPE) for k in ks) or \
            not any(K.level(k) == TENSOR for k in ks):
        return False
    name = node.func.id
    frame = analyzer.frame
    while frame is not None and name not in frame.env:
        frame = frame.parent
    if frame is None or frame.kind != "function" or frame.node is None:
        return False
    k = frame.env[name]
    if K.level(k) not in (UNKNOWN, PROBABLE) or k & ~K.LEVEL:
        return False
    a = getattr(frame.node, "args", None)
    return a is not None and any(p.arg == name and p.annotation is None
                                 for p in a.posonlyargs + a.args + a.kwonlyargs)


# Fields of what reductions with a `dim` return (`torch.return_types.max`, `sort`, `topk`).
_RESULT_FIELDS = frozenset({"values", "indices"})
# Reductions that give such a pair with a `dim`.
_PAIR_REDUCTIONS = frozenset({"max", "min", "median", "nanmedian"})


def _no_dim(node: ast.Call) -> bool:
    """No `dim`/`axis` and no `keepdim=True`: the reduction runs over every element."""
    for kw in node.keywords:
        if kw.arg in ("dim", "axis", "dims") or kw.arg is None:
            return False
        if kw.arg == "keepdim" and not (type(kw.value) is ast.Constant and kw.value.value is False):
            return False
    return True


def _number(node) -> bool:
    """A Python int or float literal (`0`, `-1`, `1e-3`)."""
    if type(node) is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        node = node.operand
    return type(node) is ast.Constant and type(node.value) in (int, float)


def _int_constants(node, n: int) -> bool:
    items = node.elts if type(node) is ast.Tuple else [node]
    return len(items) == n and all(
        type(i) is ast.Constant and type(i.value) is int and i.value is not True and
        i.value is not False for i in items)


def _str_split(name: str, node: ast.Call) -> bool:
    """`s.split()`, `s.split(",")`, `s.split(sep=...)`: `str.split`; `Tensor.split` needs a size."""
    if name != "split":
        return False
    args = node.args
    return (not args and all(k.arg in ("sep", "maxsplit") for k in node.keywords)) or \
        (bool(args) and type(args[0]) is ast.Constant and type(args[0].value) is str)


def _non_tensor(facts: dict) -> dict:
    """The facts of a type test that prove names no tensor."""
    return {n: k for n, k in facts.items() if K.level(k) == NOT} if facts else facts


def _is_none(node: ast.AST) -> bool:
    return type(node) is ast.Constant and node.value is None


def _is_non_numeric_literal(node: ast.AST) -> bool:
    t = type(node)
    if t is ast.Constant:
        return isinstance(node.value, (str, bytes)) or node.value is None
    return t in (ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set)


def _reads_data(expr) -> bool:
    """Whether converting `expr`, only probably a tensor, reads data out of it: an element or
    a reduction of it (`int(idx[0])`, `int(lengths.sum())`). Arithmetic over names, attributes
    and constants (`int(0.5 * model.samplerate)`: a module's attribute, a config number most
    often) reads nothing the read rules would report (DYN203 wants a tensor for sure), so the
    bounds and sizes it feeds are no values read from tensor data."""
    for n in ast.walk(expr):
        if type(n) is ast.Call or type(n) is ast.Subscript:
            return True
    return False
