"""How a boolean mask lines up with the tensor it selects from, proved from the code.

`x[m]` pairs `m` with the *leading* dimensions of `x`; `torch.where` broadcasts from the
*trailing* ones. A fix that turns a selection into `torch.where` must line the mask up:
`m.reshape(m.shape + (1,) * (x.dim() - m.dim()))` always works, but the code often shows
more, and then a shorter form is just as exact:

* `m` has `x`'s shape: `m` itself. Shown by a mask computed elementwise (broadcasting
  allowed) from a value with `x`'s shape (`x > 0`, `t.ne(pad)` with `x = lp.gather(-1, t)`,
  `m.expand_as(x)`), or by equal ranks: `x[m]` only works when `m.shape` is a prefix of
  `x.shape`, so a mask of `x`'s rank has `x`'s shape;
* `m` has one dimension fewer: `m.unsqueeze(-1)`.

Ranks are read where the code shows them: `.view(-1)`, `.flatten()`, `.reshape(a, b)`,
`[..., None]`, `.unsqueeze`, reductions over one dimension, `gather` (its index has its
input's rank), elementwise operations. Names are followed to the one assignment that
reaches the use in straight-line code; inside a loop that rebinds a name, nothing is known.
Templates ask for this with two pseudo-calls (see `suggest._render`): `lined_up($M, $X)` and
`selected($M, $X)`, the number of elements `x[m]` selects, as a tensor.
"""
from __future__ import annotations

import ast

from ..analysis import kinds as K
from ..analysis.bindings import binds_name, binds_name_here
from ..analysis.statements import walk

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
# Methods (and torch functions) whose result has the shape of their receiver (first argument)
# when the other arguments are not tensors.
_SAME_SHAPE = frozenset("""
bool float double half bfloat16 long int short byte to detach contiguous clone abs neg negative
sign sigmoid exp log log1p sqrt rsqrt relu tanh sin cos floor ceil round trunc frac square
ne eq gt lt ge le logical_not isnan isinf isfinite isposinf isneginf signbit nan_to_num
masked_fill type_as add sub mul div true_divide floor_divide remainder fmod pow clamp clip
maximum minimum logical_and logical_or logical_xor softmax log_softmax
""".split())
_REDUCTIONS = frozenset("sum mean any all amax amin prod nansum std var logsumexp norm".split())


def position_in(owner, stmt):
    """(block, index) of `stmt` among the statement lists of `owner`, or None. Each block's
    positions are indexed once and kept on the owner: a module of thousands of functions
    would otherwise be scanned again for each flagged node inside it (quadratic)."""
    attrs = getattr(owner, "__dict__", None)
    if attrs is None:
        return None
    index = attrs.get("_dynlint_positions")
    if index is None:
        index = {}
        for name in _BLOCKS:
            block = getattr(owner, name, None)
            if type(block) is list:
                for i, s in enumerate(block):
                    index[id(s)] = (block, i)
        owner._dynlint_positions = index
    found = index.get(id(stmt))
    return found if found is not None and found[0][found[1]] is stmt else None


def block_of(owner, stmt):
    found = position_in(owner, stmt)
    return found[0] if found is not None else None


def owner_of(stmt, ancestors):
    return next((a for a in ancestors if block_of(a, stmt) is not None), None)


class Facts:
    """Shape and rank facts about expressions seen from one place in a function (`chain`:
    the statement there, then its ancestors, nearest first, ending with the function)."""

    def __init__(self, analyzer, chain):
        self.analyzer = analyzer
        self.chain = chain
        self._union: dict = {}
        for stmt, schain in self._dominating(chain):
            for node in walk(stmt):
                if type(node) is ast.Call:
                    self._note_gather(node, schain)

    # -- following names --------------------------------------------------------------
    def reaching(self, name: str, chain):
        """What `name` holds at `chain[0]`: ("value", expr, chain of expr), ("stmt", stmt)
        for a compound statement that binds it, ("param", function), or None."""
        for level in _levels(chain):
            if not isinstance(level, tuple):
                return ("param", level) if isinstance(level, _DEFS[:3]) else None
            block, i, rest, owner = level
            for prev in reversed(block[:i]):
                if _reshapes_in_place(prev, name):
                    return None          # `x.unsqueeze_(0)`: the shape changed after the def
                if not binds_name(prev, name) and not (isinstance(prev, _DEFS[:2]) and prev.name == name):
                    continue
                t = type(prev)
                if t is ast.Assign and len(prev.targets) == 1 and type(prev.targets[0]) is ast.Name:
                    return "value", prev.value, [prev] + rest[rest.index(owner):]
                if t is ast.AnnAssign and prev.value is not None and type(prev.target) is ast.Name:
                    return "value", prev.value, [prev] + rest[rest.index(owner):]
                return "stmt", prev
            if isinstance(owner, _LOOPS):
                if binds_name_here(owner, name) or any(binds_name(s, name) for s in owner.body + owner.orelse):
                    return None          # the previous iteration's value may reach here
            elif not isinstance(owner, (ast.If, *_DEFS)) and any(
                    binds_name(s, name) for f in _BLOCKS if getattr(owner, f, None) is not block
                    for s in getattr(owner, f, None) or ()):
                return None              # a `try` body may have bound it before its handler
            if isinstance(owner, ast.stmt) and not isinstance(owner, _DEFS) and binds_name_here(owner, name):
                return "stmt", owner
        return None

    def root(self, node, chain, depth=0):
        """A key such that two expressions with equal keys have the same shape."""
        if depth > 12:
            return ("opaque", id(node))
        t = type(node)
        if t is ast.Name:
            r = self.reaching(node.id, chain)
            if r is None:
                return ("opaque", id(node))
            if r[0] == "param":
                return ("param", id(r[1]), node.id)
            if r[0] == "stmt":
                return ("def", id(r[1]), node.id)
            return self.root(r[1], r[2], depth + 1)
        if t is ast.UnaryOp and type(node.op) is not ast.Not:
            return self.root(node.operand, chain, depth + 1)
        if t in (ast.BinOp, ast.Compare):
            ops = [node.left, node.right] if t is ast.BinOp else [node.left, *node.comparators]
            if t is ast.BinOp and type(node.op) is ast.MatMult or len(ops) != 2:
                return ("opaque", id(node))
            tensors = [o for o in ops if not self._scalar(o)]
            if len(tensors) == 1:
                return self.root(tensors[0], chain, depth + 1)
            return ("opaque", id(node))
        if t is ast.Call:
            recv, args, name = self._call_parts(node)
            if recv is None:
                return ("opaque", id(node))
            if name in ("expand_as", "view_as", "reshape_as") and len(args) == 1:
                return self.root(args[0], chain, depth + 1)
            if name in ("view", "reshape", "expand") and len(args) == 1 and not node.keywords:
                shape_of = _shape_source(args[0])      # x.view(t.size()), x.view(t.shape)
                if shape_of is not None:
                    return self.root(shape_of, chain, depth + 1)
            if name in _LIKE and self._is_torch_call(node):
                return self.root(recv, chain, depth + 1)
            if name == "gather":
                index = self._gather_index(node, args)
                if index is not None:
                    return self.root(index, chain, depth + 1)
            if name in _SAME_SHAPE and all(self._scalar(a) or self._dtype_or_device(a)
                                           for a in args + [k.value for k in node.keywords]):
                return self.root(recv, chain, depth + 1)
        return ("opaque", id(node))

    def grows_from(self, mask, key, chain, depth=0) -> bool:
        """`mask` is computed elementwise, broadcasting allowed, from a value whose shape key
        is `key`: its shape is at least that shape."""
        if depth > 12:
            return False
        if self.root(mask, chain) == key:
            return True
        t = type(mask)
        if t is ast.Name:
            r = self.reaching(mask.id, chain)
            return r is not None and r[0] == "value" and self.grows_from(r[1], key, r[2], depth + 1)
        if t is ast.UnaryOp and type(mask.op) is not ast.Not:
            return self.grows_from(mask.operand, key, chain, depth + 1)
        if t is ast.BinOp and type(mask.op) is not ast.MatMult:
            return any(self.grows_from(o, key, chain, depth + 1) for o in (mask.left, mask.right))
        if t is ast.Compare and len(mask.ops) == 1:
            return any(self.grows_from(o, key, chain, depth + 1)
                       for o in (mask.left, mask.comparators[0]))
        if t is ast.Call:
            recv, args, name = self._call_parts(mask)
            if recv is not None and name in _SAME_SHAPE:
                return any(self.grows_from(o, key, chain, depth + 1) for o in [recv, *args]
                           if not self._dtype_or_device(o))
        return False

    def rank(self, node, chain, depth=0):
        """(key, offset): the rank is `offset` plus the rank of the values with `key`
        (key None: the offset is the rank)."""
        if depth > 12:
            return None
        t = type(node)
        if t is ast.Name:
            r = self.reaching(node.id, chain)
            if r is not None and r[0] == "value":
                got = self.rank(r[1], r[2], depth + 1)
                if got is not None:
                    return got
            return (self._find(self.root(node, chain)), 0)
        if t is ast.Subscript:
            base_kind = self.analyzer.kind(node.value)
            if K.level(base_kind) < K.PROBABLE or base_kind & (K.HOLDS | K.SHAPE):
                return None               # `pair[1]` may pick an item of a tuple
            items = node.slice.elts if type(node.slice) is ast.Tuple else [node.slice]
            if all(type(i) is ast.Slice or type(i) is ast.Constant and
                   (i.value is None or i.value is Ellipsis or type(i.value) is int) for i in items) \
                    and sum(type(i) is ast.Constant and i.value is Ellipsis for i in items) <= 1:
                base = self.rank(node.value, chain, depth + 1)
                if base is None:
                    return None
                added = sum(type(i) is ast.Constant and i.value is None for i in items)
                removed = sum(type(i) is ast.Constant and type(i.value) is int for i in items)
                return base[0], base[1] + added - removed
            return None
        if t is ast.Call:
            recv, args, name = self._call_parts(node)
            kw = {k.arg: k.value for k in node.keywords}
            if recv is not None:
                if name in ("view", "reshape", "repeat", "expand") and args and not kw:
                    sizes = self._sizes(args)
                    return None if sizes is None else (None, sizes)
                if name == "flatten" and not kw:
                    if not args:
                        return None, 1
                    if len(args) == 1 and _int(args[0]) is not None and _int(args[0]) >= 0:
                        return None, _int(args[0]) + 1
                    return None
                if name == "unsqueeze" and (len(args) == 1) != ("dim" in kw) and len(args) <= 1:
                    base = self.rank(recv, chain, depth + 1)
                    return None if base is None else (base[0], base[1] + 1)
                if name in _REDUCTIONS:
                    dims = args[:1] if args else [kw["dim"]] if "dim" in kw else []
                    keep = kw.get("keepdim")
                    if len(args) > 1 or not dims or _int(dims[0]) is None:
                        return None
                    base = self.rank(recv, chain, depth + 1)
                    if base is None:
                        return None
                    if type(keep) is ast.Constant and keep.value is True:
                        return base
                    return None if keep is not None else (base[0], base[1] - 1)
                if name == "gather":
                    return self.rank(recv, chain, depth + 1)
        root = self.root(node, chain)
        if root[0] != "opaque":
            return (self._find(root), 0)
        if t in (ast.BinOp, ast.Compare, ast.UnaryOp) or t is ast.Call and \
                self._call_parts(node)[2] in _SAME_SHAPE and \
                all(self._scalar(k.value) or self._dtype_or_device(k.value) for k in node.keywords):
            ops = _operands(node)
            ranks = [self.rank(o, chain, depth + 1) for o in ops if not self._scalar(o)]
            if len(ranks) == 1:
                return ranks[0]
            if ranks and all(r is not None and r[0] is None for r in ranks):
                return None, max(r[1] for r in ranks)
        return None

    # -- the forms ----------------------------------------------------------------------
    def missing_dims(self, mask, x):
        """How many trailing dimensions of `x` the mask lacks: 0, 1, ..., or None."""
        chain = self.chain
        if self.grows_from(mask, self.root(x, chain), chain):
            return 0
        rm, rx = self.rank(mask, chain), self.rank(x, chain)
        if rx is not None and any(r == rx for r in self._source_ranks(mask, chain)):
            return 0            # the mask has at least x's rank, and `x[m]` allows no more
        if rm is None or rx is None or rm[0] != rx[0]:
            return None
        diff = rx[1] - rm[1]
        return diff if diff >= 0 else None

    def _source_ranks(self, mask, chain, depth=0):
        """Ranks of the values the mask is computed from elementwise (broadcasting can only
        add dimensions, so each is a lower bound of the mask's rank)."""
        if depth > 12:
            return
        r = self.rank(mask, chain)
        if r is not None:
            yield r
        t = type(mask)
        if t is ast.Name:
            got = self.reaching(mask.id, chain)
            if got is not None and got[0] == "value":
                yield from self._source_ranks(got[1], got[2], depth + 1)
        elif t in (ast.BinOp, ast.Compare, ast.UnaryOp) or t is ast.Call and \
                self._call_parts(mask)[2] in _SAME_SHAPE:
            if t is ast.BinOp and type(mask.op) is ast.MatMult or t is ast.UnaryOp and \
                    type(mask.op) is ast.Not:
                return
            for o in _operands(mask):
                if not self._scalar(o) and not self._dtype_or_device(o):
                    yield from self._source_ranks(o, chain, depth + 1)

    # -- helpers ------------------------------------------------------------------------
    def _scalar(self, node) -> bool:
        k = self.analyzer.kind(node)
        return K.level(k) == K.NOT and not k & K.SHAPE

    def _dtype_or_device(self, node) -> bool:
        q = self.analyzer.qualname(node) if type(node) in (ast.Name, ast.Attribute) else None
        return bool(q and q.startswith("torch.")) or type(node) is ast.Attribute and \
            node.attr in ("device", "dtype")

    def _call_parts(self, node):
        """(receiver, other positional arguments, name) of `r.name(...)` or `torch.name(r, ...)`."""
        f = node.func
        q = self.analyzer.qualname(f) if type(f) in (ast.Name, ast.Attribute) else None
        if q and q.startswith("torch.") and q.count(".") == 1:
            return (node.args[0], node.args[1:], q[6:]) if node.args else (None, [], q[6:])
        if type(f) is ast.Attribute and not (q and q.startswith(("torch.", "numpy.", "np."))):
            return f.value, list(node.args), f.attr
        return None, [], None

    def _sizes(self, args):
        """How many sizes `view`/`reshape`/`repeat`/`expand` were given (the result's rank),
        if the code shows it: int arguments, or one tuple/list literal of them. One other
        argument may be a whole shape (`x.view(shape)`), so it tells nothing."""
        if len(args) == 1:
            if type(args[0]) in (ast.Tuple, ast.List):
                args = args[0].elts
            elif _int(args[0]) is None:
                return None
        if all(type(a) is not ast.Starred and (_int(a) is not None or self._scalar(a) and
                                               type(a) not in (ast.Tuple, ast.List)) for a in args):
            return len(args)
        return None

    def _is_torch_call(self, node) -> bool:
        f = node.func
        q = self.analyzer.qualname(f) if type(f) in (ast.Name, ast.Attribute) else None
        return bool(q and q.startswith("torch."))

    def _gather_index(self, node, args):
        kw = {k.arg: k.value for k in node.keywords}
        if "index" in kw:
            return kw["index"]
        pos = [a for a in args]
        if "dim" in kw:
            return pos[0] if pos else None
        return pos[1] if len(pos) >= 2 else None

    def _note_gather(self, node, chain):
        recv, args, name = self._call_parts(node)
        if name != "gather" or recv is None:
            return
        index = self._gather_index(node, args)
        if index is not None:
            a, b = self.rank(recv, chain), self.rank(index, chain)
            if a is not None and b is not None and a[0] is not None and b[0] is not None \
                    and a[1] == b[1]:
                self._union[self._find(a[0])] = self._find(b[0])

    def _find(self, key):
        seen = 0
        while key in self._union and seen < 50:
            key, seen = self._union[key], seen + 1
        return key

    def _dominating(self, chain):
        """Simple statements that run before `chain[0]` whenever it runs, with their chains."""
        for level in _levels(chain):
            if not isinstance(level, tuple):
                return
            block, i, rest, owner = level
            for prev in block[:i]:
                if isinstance(prev, (ast.Assign, ast.AnnAssign, ast.Expr)):
                    yield prev, [prev] + rest[rest.index(owner):]


_LIKE = frozenset("zeros_like ones_like full_like empty_like rand_like randn_like randint_like".split())


def _shape_source(node):
    """`t` for `t.size()` or `t.shape`, else None."""
    if type(node) is ast.Attribute and node.attr == "shape":
        return node.value
    if type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "size" \
            and not node.args and not node.keywords:
        return node.func.value
    return None


_IN_PLACE_RESHAPES = frozenset("resize_ resize_as_ unsqueeze_ squeeze_ t_ transpose_ swapaxes_ "
                               "swapdims_ set_ as_strided_".split())


def _reshapes_in_place(stmt, name: str) -> bool:
    # Every name at once, kept on the statement: `reaching` asks each statement before a
    # flagged node, for each name it follows (one walk per statement, not per question).
    found = stmt.__dict__.get("_dl_reshaped")
    if found is None:
        found = stmt._dl_reshaped = frozenset(
            n.func.value.id for n in walk(stmt)
            if type(n) is ast.Call and type(n.func) is ast.Attribute and
            n.func.attr in _IN_PLACE_RESHAPES and type(n.func.value) is ast.Name)
    return name in found


def _levels(chain):
    """For each statement of `chain` up to the function: (its block, its index there, the
    ancestors above it, the block's owner); last, the function (or None if the chain ends
    without one)."""
    for k, node in enumerate(chain):
        if isinstance(node, _DEFS):
            yield node
            return
        if not isinstance(node, ast.stmt):
            continue
        rest = chain[k + 1:]
        owner = owner_of(node, rest)
        found = position_in(owner, node)
        if found is None:
            yield None
            return
        yield found[0], found[1], rest, owner
    yield None


def _operands(node):
    t = type(node)
    if t is ast.BinOp:
        return [node.left, node.right]
    if t is ast.Compare:
        return [node.left, *node.comparators]
    if t is ast.UnaryOp:
        return [node.operand]
    f = node.func
    return ([f.value] if type(f) is ast.Attribute else []) + list(node.args)


def _int(node):
    if type(node) is ast.UnaryOp and type(node.op) is ast.USub:
        v = _int(node.operand)
        return None if v is None else -v
    return node.value if type(node) is ast.Constant and type(node.value) is int else None


# -- the texts the pseudo-calls render to ---------------------------------------------------
def lined_up(facts: Facts, mask, x, mtext: str, xtext: str, atom) -> str:
    """`mask` lined up with the leading dimensions of `x`, in the shortest proved form.
    `atom(text)` parenthesises a text that is not an atom."""
    missing = facts.missing_dims(mask, x)
    if missing == 0:
        return mtext
    if missing == 1:
        return f"{atom(mtext)}.unsqueeze(-1)"
    m = atom(mtext)
    return f"{m}.reshape({m}.shape + (1,) * ({atom(xtext)}.dim() - {m}.dim()))"


def selected(facts: Facts, mask, x, mtext: str, xtext: str, atom) -> str:
    """The number of elements `x[mask]` selects, as a tensor."""
    missing = facts.missing_dims(mask, x)
    m = atom(mtext)
    if missing == 0:
        return f"{m}.sum()"
    if missing == 1:
        return f"{m}.sum() * {atom(xtext)}.shape[-1]"
    return f"{m}.sum() * {atom(xtext)}.shape[{m}.dim():].numel()"


def broadcast_count(facts: Facts, mask, x, mtext: str, xtext: str, atom) -> str:
    """The number of elements `masked_select(x, mask)` selects, as a tensor: both broadcast,
    so a mask computed elementwise from x (which has at least x's shape) counts alone."""
    if facts.grows_from(mask, facts.root(x, facts.chain), facts.chain):
        return f"{atom(mtext)}.sum()"
    return f"torch.broadcast_tensors({mtext}, {xtext})[0].sum()"
