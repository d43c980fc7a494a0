"""Patterns: Python code with metavariables, matched structurally against `ast` nodes.

Syntax (what a rule author writes):

* ``$X`` binds any expression (or a statement-level name) to ``X``; a second ``$X`` in the
  same pattern must be the same code. ``$_`` matches anything and binds nothing.
* ``...`` inside an argument list, a list/tuple/bool-op operand list or a block matches zero or
  more items; in a call it also admits any extra keyword arguments. Without it a call pattern
  matches only calls with exactly that many positional arguments and those keywords.
* Dotted names that are not metavariables (``torch.nonzero``, ``torchvision.ops.nms``, ``len``)
  match by *qualified name*, so ``import torch as th; th.nonzero(x)`` and
  ``from torch import nonzero; nonzero(x)`` both match ``torch.nonzero($X)``.
* A pattern of several statements matches consecutive statements of one block.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cached_property

META_PREFIX = "__dl_"
_META_LEN = len(META_PREFIX)
_META_RE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_SKIP_FIELDS = frozenset({"ctx", "type_comment", "kind"})


class PatternError(ValueError):
    """A pattern that does not parse or uses an unsupported construct."""


def meta_name(node: ast.AST) -> str | None:
    """The metavariable name if `node` is ``$NAME`` in a compiled pattern."""
    if type(node) is ast.Name and node.id.startswith(META_PREFIX):
        return node.id[len(META_PREFIX):]
    return None


def is_ellipsis(node: ast.AST) -> bool:
    if type(node) is ast.Expr:
        node = node.value
    return type(node) is ast.Constant and node.value is Ellipsis


def dotted_name(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain without metavariables, else None."""
    parts = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is not ast.Name or node.id.startswith(META_PREFIX):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


@dataclass
class Pattern:
    source: str
    root: ast.AST | None = None          # expression or single statement pattern
    sequence: list[ast.stmt] = field(default_factory=list)  # multi-statement pattern
    metavars: frozenset[str] = frozenset()

    @property
    def root_type(self) -> type | None:
        return type(self.root) if self.root is not None else None

    @property
    def call_key(self) -> str | None:
        """Last name of the callee, used to index call patterns (``nonzero``, ``item``)."""
        return _callee_key(self.root) if type(self.root) is ast.Call else None

    @property
    def call_index(self) -> tuple[tuple[str, ...], str] | None:
        """For a pattern not rooted on a call: (fields, key) when following `fields` from the
        root always reaches a call whose callee's last name is `key` (`$X = torch.cat(...)`:
        (("value",), "cat")). A node whose call there has another callee cannot match, so the
        engine indexes such patterns like call patterns instead of trying them on every node."""
        if self.root is None or type(self.root) is ast.Call:
            return None
        return _call_below(self.root, ())

    @cached_property
    def op_key(self):
        """The operator(s) a node must have to match, for a pattern rooted on an operation
        (`$A in $T`: `(In,)`; `$S % $X`: `Mod`): the matcher compares operators by type,
        so the engine tries such patterns only on nodes with the same (see `op_key`)."""
        return op_key(self.root) if self.root is not None else None


def op_key(node):
    """The type of an operation's operator (a tuple of them for a comparison), else None."""
    t = type(node)
    if t is ast.Compare:
        return tuple(type(o) for o in node.ops)
    if t in _OP_NODES:
        return type(node.op)
    return None


_OP_NODES = frozenset({ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.AugAssign})


def _callee_key(call: ast.Call) -> str | None:
    func = call.func
    if type(func) is ast.Attribute:
        return func.attr
    if type(func) is ast.Name and not func.id.startswith(META_PREFIX):
        return func.id
    return None


def _call_below(node, path):
    """(fields, key) of the first keyed call reached through single-node fields that the
    matcher compares field by field (not metavariables, dotted names or lists)."""
    if type(node) is ast.Call:
        key = _callee_key(node)
        return (path, key) if key is not None else None
    if meta_name(node) is not None or is_ellipsis(node) or \
            (type(node) in (ast.Name, ast.Attribute) and dotted_name(node) is not None):
        return None
    for name in node._fields:
        child = getattr(node, name, None)
        if name not in _SKIP_FIELDS and isinstance(child, ast.AST):
            found = _call_below(child, path + (name,))
            if found is not None:
                return found
    return None


def compile_pattern(source: str) -> Pattern:
    text = _META_RE.sub(lambda m: META_PREFIX + m.group(1), source.strip())
    try:
        module = ast.parse(text)
    except SyntaxError as exc:
        raise PatternError(f"pattern does not parse: {exc.msg} in {source!r}") from None
    if not module.body:
        raise PatternError("empty pattern")
    names = frozenset(
        n.id[len(META_PREFIX):] for n in ast.walk(module)
        if type(n) is ast.Name and n.id.startswith(META_PREFIX) and n.id != META_PREFIX + "_"
    )
    if len(module.body) == 1:
        stmt = module.body[0]
        root = stmt.value if type(stmt) is ast.Expr else stmt
        return Pattern(source, root=root, metavars=names)
    return Pattern(source, sequence=list(module.body), metavars=names)


def same_code(a: ast.AST, b: ast.AST) -> bool:
    """Structural equality ignoring positions and load/store context."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same_code(x, y) for x, y in zip(a, b))
    for name in a._fields:
        if name in _SKIP_FIELDS:
            continue
        x, y = getattr(a, name, None), getattr(b, name, None)
        if isinstance(x, ast.AST):
            if not isinstance(y, ast.AST) or not same_code(x, y):
                return False
        elif isinstance(x, list):
            if not isinstance(y, list) or len(x) != len(y):
                return False
            for i, j in zip(x, y):
                if isinstance(i, ast.AST):
                    if not same_code(i, j):
                        return False
                elif i != j:
                    return False
        elif x != y:
            return False
    return True


_LIST, _GLOB, _NODE, _VALUE = "list", "glob", "node", "value"


def _has_ellipsis(ps: list) -> bool:
    return any(isinstance(x, ast.AST) and is_ellipsis(x) for x in ps)


def _node_info(p) -> tuple:
    """What matching needs of a pattern node, worked out once (kept on the node): its
    metavariable name, its dotted name, and its fields with how each is compared."""
    name = p.id[_META_LEN:] if type(p) is ast.Name and p.id.startswith(META_PREFIX) else None
    dotted = dotted_name(p) if name is None and type(p) in (ast.Name, ast.Attribute) else None
    fields = []
    for fname in p._fields:
        if fname in _SKIP_FIELDS:
            continue
        pv = getattr(p, fname, None)
        if isinstance(pv, list):
            fields.append((fname, pv, _GLOB if _has_ellipsis(pv) else _LIST))
        elif isinstance(pv, ast.AST):
            fields.append((fname, pv, _NODE))
        else:
            fields.append((fname, pv, _VALUE))
    open_ended = type(p) is ast.Call and any(is_ellipsis(a) for a in p.args)
    return name, dotted, tuple(fields), open_ended


class Matcher:
    """Matches pattern nodes against target nodes, binding metavariables.

    `qualname` resolves a target Name/Attribute chain to its imported dotted name; the
    analysis supplies it so that aliases and ``from`` imports match.
    """

    __slots__ = ("qualname",)

    def __init__(self, qualname):
        self.qualname = qualname

    def match(self, pat: Pattern, node: ast.AST) -> dict | None:
        root = pat.root
        fn = root.__dict__.get("_dl_fn")
        if fn is None:
            fn = root._dl_fn = _compiled(root)
        binds: dict = {}
        return binds if fn(node, binds, self) else None

    # -- internals -------------------------------------------------------------------
    def _node(self, p, t, binds) -> bool:
        info = p.__dict__.get("_dl_match")
        if info is None:
            info = p._dl_match = _node_info(p)
        name, dotted, fields, open_ended = info
        if name is not None:
            if isinstance(t, ast.stmt) and type(t) is not ast.Expr:
                return False
            if type(t) is ast.Expr:
                t = t.value
            if name == "_":
                return True
            bound = binds.get(name)
            if bound is None:
                binds[name] = t
                return True
            return same_code(bound, t)
        tp = type(p)
        if tp is ast.Expr and type(t) is not ast.Expr:
            return False
        if dotted is not None:
            return self._qualname_matches(dotted, t)
        if tp is not type(t):
            return False
        if tp is ast.Call:
            return self._call(p, t, binds, open_ended)
        for fname, pv, how in fields:
            tv = getattr(t, fname, None)
            if how is _LIST:
                if not isinstance(tv, list) or not self._seq_plain(pv, tv, binds):
                    return False
            elif how is _NODE:
                if not isinstance(tv, ast.AST) or not self._node(pv, tv, binds):
                    return False
            elif how is _GLOB:
                if not isinstance(tv, list) or not self._glob(pv, 0, tv, 0, binds):
                    return False
            elif pv != tv:
                return False
        return True

    def _qualname_matches(self, dotted: str, t) -> bool:
        if type(t) not in (ast.Name, ast.Attribute):
            return False
        q = self.qualname(t)
        if q is None:
            return False
        if q == dotted:
            return True
        # A relative import (`from .boxes import nms`) resolves to `.boxes.nms`; accept it
        # when it names the tail of the pattern's absolute path.
        return q.startswith(".") and dotted.endswith(q.lstrip(".")) and \
            dotted[-len(q.lstrip(".")) - 1] == "."

    def _call(self, p: ast.Call, t: ast.Call, binds, open_ended: bool) -> bool:
        if not self._node(p.func, t.func, binds):
            return False
        if not (self._glob(p.args, 0, t.args, 0, binds) if open_ended else
                self._seq_plain(p.args, t.args, binds)):
            return False
        return _keywords_match([(kw.arg, kw.value) for kw in p.keywords], t.keywords,
                               not open_ended, lambda pv, tv: self._node(pv, tv, binds))

    def _seq(self, ps: list, ts: list, binds) -> bool:
        """Glob-match lists: `...` items in the pattern absorb any run of target items."""
        if not _has_ellipsis(ps):
            return self._seq_plain(ps, ts, binds)
        return self._glob(ps, 0, ts, 0, binds)

    def _seq_plain(self, ps: list, ts: list, binds) -> bool:
        if len(ps) != len(ts):
            return False
        for a, b in zip(ps, ts):
            if isinstance(a, ast.AST):
                if not isinstance(b, ast.AST) or not self._node(a, b, binds):
                    return False
            elif a != b:
                return False
        return True

    def _glob(self, ps, i, ts, j, binds) -> bool:
        if i == len(ps):
            return j == len(ts)
        if is_ellipsis(ps[i]):
            for k in range(j, len(ts) + 1):
                trial = dict(binds)
                if self._glob(ps, i + 1, ts, k, trial):
                    binds.update(trial)
                    return True
            return False
        if j == len(ts):
            return False
        trial = dict(binds)
        if self._node(ps[i], ts[j], trial) and self._glob(ps, i + 1, ts, j + 1, trial):
            binds.update(trial)
            return True
        return False


# -- patterns compiled to closures -------------------------------------------------------------
# `Matcher._node` interprets a pattern tree at every node it is tried on; the root of a rule's
# pattern is tried on tens of thousands of nodes per run, so it is compiled once into nested
# closures that do the same checks in the same order (a `...` run still goes through `_glob`).
_STMT_TYPES = frozenset(c for c in vars(ast).values()
                        if isinstance(c, type) and issubclass(c, ast.stmt))


def _compiled(p):
    """`fn(target, binds, matcher) -> bool`, what `Matcher._node(p, target, binds)` answers."""
    name, dotted, fields, open_ended = _node_info(p)
    if name is not None:
        return _compiled_meta(name)
    if dotted is not None:
        return lambda t, binds, mt: mt._qualname_matches(dotted, t)
    tp = type(p)
    if tp is ast.Call:
        return _compiled_call(p, open_ended)
    checks = []
    for fname, pv, how in fields:
        if how is _NODE:
            checks.append((fname, _NODE, _compiled(pv)))
        elif how is _LIST:
            checks.append((fname, _LIST, _compiled_items(pv)))
        else:
            checks.append((fname, how, pv))
    checks = tuple(checks)

    def match(t, binds, mt):
        if type(t) is not tp:
            return False
        for fname, how, arg in checks:
            tv = getattr(t, fname, None)
            if how is _NODE:
                if not isinstance(tv, ast.AST) or not arg(tv, binds, mt):
                    return False
            elif how is _LIST:
                if not isinstance(tv, list) or not _items_match(arg, tv, binds, mt):
                    return False
            elif how is _GLOB:
                if not isinstance(tv, list) or not mt._glob(arg, 0, tv, 0, binds):
                    return False
            elif arg != tv:
                return False
        return True
    return match


def _compiled_meta(name: str):
    if name == "_":
        return lambda t, binds, mt: type(t) not in _STMT_TYPES or type(t) is ast.Expr

    def meta(t, binds, mt):
        tt = type(t)
        if tt in _STMT_TYPES:
            if tt is not ast.Expr:
                return False
            t = t.value
        bound = binds.get(name)
        if bound is None:
            binds[name] = t
            return True
        return same_code(bound, t)
    return meta


def _compiled_items(ps: list) -> tuple:
    """Per item of a pattern list without `...`: a compiled node, or a plain value."""
    return tuple((True, _compiled(x)) if isinstance(x, ast.AST) else (False, x) for x in ps)


def _items_match(items: tuple, ts: list, binds, mt) -> bool:
    if len(items) != len(ts):
        return False
    for (is_node, m), b in zip(items, ts):
        if is_node:
            if not isinstance(b, ast.AST) or not m(b, binds, mt):
                return False
        elif m != b:
            return False
    return True


def _compiled_call(p: ast.Call, open_ended: bool):
    func = _compiled(p.func)
    args = None if open_ended else _compiled_items(p.args)
    pargs = p.args
    keywords = tuple((kw.arg, _compiled(kw.value)) for kw in p.keywords)

    def call(t, binds, mt):
        if type(t) is not ast.Call or not func(t.func, binds, mt):
            return False
        if not (mt._glob(pargs, 0, t.args, 0, binds) if args is None else
                _items_match(args, t.args, binds, mt)):
            return False
        return _keywords_match(keywords, t.keywords, args is not None,
                               lambda value, tv: value(tv, binds, mt))
    return call


def _keywords_match(wanted, given_keywords, closed: bool, match) -> bool:
    """Each (name, pattern) of `wanted` is given and `match(pattern, value)`; a `closed` call
    pattern (no `...`) admits no other keyword."""
    given = {k.arg: k.value for k in given_keywords}
    for arg, pv in wanted:
        if arg is None or arg not in given or not match(pv, given[arg]):
            return False
    return not closed or len(given) == len(wanted)
