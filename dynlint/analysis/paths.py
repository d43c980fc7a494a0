"""What the walk knows after a branch: the facts of the paths through an `if`, a loop or a
`try` joined (host tensors only if on every path, a tensor on one path and a plain value on
the other, an optional tensor set to `None` or a flag to `True`/`False` on one path), and the
kinds type tests prove inside a branch or a boolean operand (`narrowing`). A mixin of the
walker (`walker.Analyzer`): it reads and writes the current frame's environment, and walks
blocks through the walker.
"""
from __future__ import annotations

import ast
from contextlib import contextmanager

from . import kinds as K
from . import narrowing
from .kinds import HOST, NOT, PROBABLE, TENSOR, UNKNOWN
from .annotations import annotation_kind
from .bindings import last_values
from .statements import statements, walk
from .tensor_api import TENSOR_NAMES


class PathJoins:
    """Joins of the paths through a block, and narrowing by type tests (see the module)."""

    def _branching(self, node) -> None:
        pre = dict(self.frame.env)
        self.generic(node)
        self._host_on_every_path(pre, [node])

    def _while(self, node: ast.While) -> None:
        self._loop_carried(node.body, line=node.lineno)
        self._branching(node)

    def _loop_carried(self, body, target=None, line=None) -> None:
        """A name holding a Python value before a loop that the loop's body rebinds to a tensor
        (`diff = float("inf")`, then `while diff > tol: ... diff = torch.linalg.norm(x - y)`)
        holds the tensor at the loop's top from the second iteration on: the test and the
        body's reads before the rebinding see it. The rebinding is judged with what the names
        hold at the loop's top (its kinds are not kept: the walk judges it again in place).
        Not a `for` loop's `target` (each iteration binds it afresh), nor a rebinding in a
        block that leaves the loop (`found = t; break`)."""
        env = self.frame.env
        fresh = {n.id for n in walk(target) if type(n) is ast.Name} if target is not None else ()
        found = {}
        pairs = list(_carried(body, False))
        for name, value in pairs:
            before = env.get(name)
            if name not in fresh and before is not None and K.level(before) == NOT and \
                    not before & K.HOLDS:
                found.setdefault(name, []).append(value)
        if found:
            self._carry(found)
        if line is not None:
            self._carried_vectors(body, pairs, fresh, line)

    def _carry(self, found: dict) -> None:
        env = self.frame.env
        kinds, tuple_kinds = self._kinds, self._tuple_kinds
        self._kinds, self._tuple_kinds = {}, {}
        try:
            carried = {}
            for name, values in found.items():
                for value in values:
                    k = self.kind(value)
                    if K.level(k) == TENSOR and not k & (HOST | K.CPU):
                        carried[name] = k
                        break
        finally:
            self._kinds, self._tuple_kinds = kinds, tuple_kinds
        for name, k in carried.items():
            env[name] = k
            self.frame.tuples.pop(name, None)

    def _carried_vectors(self, body, pairs, fresh, line: int) -> None:
        """An index set refined each iteration (`idx = z if idx is None else idx[z]`, `keep =
        keep[m]`) stays 1-d: a name that holds `None` or a 1-d tensor before the loop, which
        the body rebinds only by plain assignments, each giving a 1-d tensor when the name
        is one at the loop's top, is one there (by induction over the iterations), so its
        items are 0-d tensors after the loop too (`rank`)."""
        env = self.frame.env
        values: dict = {}
        for name, value in pairs:
            values.setdefault(name, []).append(value)
        values = {n: vs for n, vs in values.items() if n not in fresh and env.get(n) is not None
                  and not env[n] & (K.VEC | HOST | K.CPU | K.HOLDS) and any(
                      type(x) is ast.Name and x.id == n for v in vs for x in walk(v))}
        func = self._function_node() if values else None
        if func is None:
            return
        found = {n: vs for n, vs in values.items()
                 if _plain_stores_only(body, n) and self._none_or_vector(func, n, line)}
        if not found:
            return
        kinds, tuple_kinds = self._kinds, self._tuple_kinds
        self._kinds, self._tuple_kinds = {}, {}
        saved = dict(env)
        try:
            for name in found:
                env[name] = TENSOR | K.VEC
            got = self._straight_line(body, found)
        finally:
            self._kinds, self._tuple_kinds = kinds, tuple_kinds
            env.clear()
            env.update(saved)
        for name, vs in found.items():
            if all(K.level(k) == TENSOR and k & K.VEC and not k & (HOST | K.CPU)
                   for k in got.get(name, ())) and len(got.get(name, ())) == len(vs):
                env[name] = TENSOR | K.VEC
                self.frame.tuples.pop(name, None)

    def _straight_line(self, body, names) -> dict:
        """The kinds the plain assignments of `names` in a loop's body give, judged with the
        names the body's earlier top-level assignments bind (`z = where(c)[0]; idx = idx[z]`)
        bound as they do; those in nested blocks with what the top-level ones left."""
        env = self.frame.env
        got: dict = {}
        top = set()
        for st in body:
            target = st.targets[0] if type(st) is ast.Assign and len(st.targets) == 1 else \
                st.target if type(st) is ast.AnnAssign and st.value is not None else None
            if type(target) is not ast.Name:
                continue
            k = self.kind(st.value)
            if type(st) is ast.AnnAssign and K.level(annotation_kind(st.annotation)) == TENSOR:
                k = annotation_kind(st.annotation)
            if target.id in names and type(st) is ast.Assign:
                got.setdefault(target.id, []).append(k)
                top.add(id(st.value))
            env[target.id] = k
        for name, vs in names.items():
            for v in vs:
                if id(v) not in top:
                    got.setdefault(name, []).append(self.kind(v))
        return got

    def _none_or_vector(self, func, name: str, line: int) -> bool:
        """Every value `name` may hold before `line` is `None` or a 1-d tensor."""
        before = last_values(func, name, line)
        return bool(before) and all(
            type(v) is ast.Constant and v.value is None or
            K.level(self.kind(v)) == TENSOR and self.kind(v) & K.VEC for v in before)

    def _host_on_every_path(self, pre: dict, stmts, bound=None) -> None:
        """After a block that may not run (a loop body, a branch, a `try`), a name holds a
        host tensor (`CPU`) only if it did on every path: the walk keeps the last binding it
        saw, so `x = t.to(d)` before the block and `x = torch.tensor(0)` inside it must not
        make `x` a host tensor afterwards."""
        env = self.frame.env
        if not holds_host(env):
            return
        for name in bound if bound is not None else stored_names(stmts):
            k = env.get(name)
            # An unbound name has no other path; an attribute (`self.w`) has what the class
            # gives it, never a host tensor.
            before = pre.get(name, 0 if "." in name else K.CPU)
            if k is not None and k & K.CPU and not before & K.CPU:
                env[name] = k & ~K.CPU

    def _proved(self, facts: dict) -> None:
        env, tuples = self.frame.env, self.frame.tuples
        for name, kind in facts.items():
            env[name] = narrowing.narrowed(self.frame.lookup(name), kind)
            tuples.pop(name, None)

    def _join_tensor_paths(self, pre: dict, mid: dict, node: ast.If) -> None:
        """The walk keeps a name's last binding; but a tensor on one path of an `if` and a
        Python value on the other (a number read from tensor data, `n = counts.max()`, then
        `n = int(n) ...` on a rare branch; torchsde's `ta, tb = self._start, ta` when no end
        time is given) stays a tensor: on the path that keeps it, the code uses a tensor
        (`torch.zeros(b, n)`, `float(ta)` read it back), whatever the other path does. Not
        where the other path calls a method tensors lack on the name itself (`img =
        img.crop(...)`): the name holds no tensor there, so it held none before either."""
        if ends(node.body) or ends(node.orelse):
            return
        env = self.frame.env
        # Only names that held both a tensor and such a number somewhere here are worth the
        # scan of the branches for what they bind; so are names that held a tensor before the
        # `if` and a plain value after it (`ta = self._start` on a rare path).
        names = [n for d in (pre, mid, env) for n, k in d.items() if k & HOST]
        names = [n for n in names if _tensor_and_number(pre.get(n), mid.get(n), env.get(n))]
        names += [n for n, k in env.items() if K.level(k) < PROBABLE and "." not in n and
                  _is_tensor(pre.get(n))]
        # A flag that is a bool tensor on one path and, on the other, what a call gives that
        # the walk does not know (`any_done = done.any()`, else `any_done = helper(td)` of
        # another file): a truth test after the `if` reads the tensor on the path that holds it.
        flags = [n for n, k in env.items() if "." not in n and n not in pre and (
            k in _BARE and _maybe_bool_tensor(mid.get(n)) or
            _maybe_bool_tensor(k) and mid.get(n) in _BARE)]
        names += flags
        if not names:
            return
        in_body, in_else = stored_names(node.body), stored_names(node.orelse)
        # A path the test proves a name not to be a tensor on (`if not isinstance(s, tuple):
        # s = s.tolist()`: a tuple otherwise) carries no tensor in it.
        proved = (narrowing.facts(self, node.test, True, containers=True),
                  narrowing.facts(self, node.test, False, containers=True))
        for name in (in_body | in_else).intersection(names):
            a = mid.get(name) if name in in_body else _unless_proved(pre.get(name), proved[0], name)
            b = env.get(name) if name in in_else else _unless_proved(pre.get(name), proved[1], name)
            if a is None or b is None or _recast(node.body, name) or _recast(node.orelse, name):
                continue
            for t, other in ((a, b), (b, a)):
                if _is_tensor(t) and other is not None and K.level(other) < PROBABLE or \
                        name in flags and _maybe_bool_tensor(t) and other in _BARE:
                    env[name] = t
                    break

    def _else_block(self, pre: dict, mid: dict, node: ast.If) -> None:
        """The `else` runs instead of the body: a name the body sets to `None` holds inside
        it what it held before the `if` (`m = None` in the body must not make the `else`'s
        `torch.where(m.any(), m, ...)` read None), and so does a name that held a tensor
        before and that the body rebinds to a plain value. Other names keep the body's binding,
        as everywhere in the walk (in a loop, an earlier iteration's body did bind them). After
        the `else`, a name it does not rebind keeps the body's binding (see
        `_join_optional_paths`, `_join_tensor_paths`)."""
        facts = narrowing.facts(self, node.test, False)
        env = self.frame.env
        # Only a `name = None` statement of the body itself can leave a name None (cheap to
        # look for; the walks of the branches for what they bind are not).
        maybe = _none_assigned(node.body) if node.orelse else ()
        nones = [n for n in stored_names(node.body) if n in pre and n in maybe and
                 _binds_none(node.body, n)] if maybe else ()
        # Nor does a plain value the body gives a name that held a tensor before the `if`
        # (`if isinstance(s, list): s = [...] else: s = s.cpu().numpy()`): the `else` reads
        # the tensor, on the path that skips the body (the first iteration, in a loop).
        # Not a name the test proves a tensor in the body (`if isinstance(c, Tensor): c = c[-1]
        # else: c = int(c)`): the `else` holds whatever else it may be; nor in an `elif`
        # chain, whose later tests see the first body's binding (the walk's, as in a loop).
        elif_chain = len(node.orelse) == 1 and type(node.orelse[0]) is ast.If
        if elif_chain:
            node.orelse[0]._dl_elif = True
        if node.orelse and not elif_chain and not node.__dict__.get("_dl_elif"):
            tested = {n for n, k in narrowing.facts(self, node.test, True).items() if _maybe_tensor(k)}
            nones = [*nones, *(n for n, k in pre.items() if n not in nones and n not in tested and
                               _maybe_tensor(k) and (b := mid.get(n)) is not None and
                               K.level(b) < PROBABLE)]
        for name in nones:
            env[name] = pre[name]
        self._narrowed_block(facts, node.orelse)
        rebound = stored_names(node.orelse) if nones else ()
        for name in nones:
            if name not in rebound:
                env[name] = mid[name]

    def _join_optional_paths(self, pre: dict, mid: dict, node: ast.If) -> None:
        """A name set to `None` on one path of an `if` and holding a tensor on the other
        (`m = t.ne(pad)`, then `if tpu: m = None`) is an optional tensor: code after the `if`
        that indexes with it runs on the path that holds the tensor, whatever the other path
        does, so it keeps the tensor's kind (the walk would otherwise keep `None`). So is a
        flag set to `True`/`False` on one path and holding a bool tensor on the other (`accept
        = err <= 1`, then `if dt > max_dt: accept = False`): a truth test of it after the `if`
        reads the tensor on the path that keeps it."""
        if ends(node.body) or ends(node.orelse):
            return
        for const, fits in ((_is_none, _maybe_tensor), (_is_bool, _maybe_bool_tensor)):
            self._join_constant_paths(pre, mid, node, const, fits)

    def _join_constant_paths(self, pre: dict, mid: dict, node: ast.If, const, fits) -> None:
        maybe = _const_assigned(node.body, const) | _const_assigned(node.orelse, const)
        if not maybe:
            return                  # no path sets a name to such a constant
        env = self.frame.env
        in_body, in_else = stored_names(node.body), stored_names(node.orelse)
        for name in (in_body | in_else) & maybe:
            if "." in name or _maybe_tensor(env.get(name)):
                continue
            paths = ((mid.get(name), _binds_const(node.body, name, const)) if name in in_body else
                     (pre.get(name), False),
                     (env.get(name), _binds_const(node.orelse, name, const)) if name in in_else
                     else (pre.get(name), False))
            (a, a_const), (b, b_const) = paths
            if a_const and fits(b):
                env[name] = b
            elif b_const and fits(a):
                env[name] = a

    def _narrowed_block(self, facts: dict, stmts) -> None:
        if not facts:
            self.visit_all(stmts)
            return
        with self.narrowing(facts, stmts):
            self.visit_all(stmts)

    @contextmanager
    def narrowing(self, facts: dict, stmts=None):
        """Names get the kinds a type test proved (see `narrowing`) inside; afterwards they
        hold what they held before, unless `stmts` (the branch) rebinds them."""
        if not facts:
            yield
            return
        env, tuples = self.frame.env, self.frame.tuples
        saved = {}
        for name, kind in facts.items():
            saved[name] = (env.get(name), tuples.pop(name, None))
            env[name] = narrowing.narrowed(self.frame.lookup(name), kind)
        try:
            yield
        finally:
            rebound = stored_names(stmts) if stmts else ()
            for name, (k, items) in saved.items():
                if name in rebound:
                    continue
                if k is None:
                    env.pop(name, None)
                else:
                    env[name] = k
                if items is not None:
                    tuples[name] = items

    def _boolop(self, node: ast.BoolOp) -> None:
        """Each operand is walked knowing what the operands before it proved (`isinstance(t,
        Tensor) and t.any()`, `not isinstance(t, float) or t != 1`)."""
        values = node.values
        proved = self.operand_facts(node)
        if proved is None:
            self.generic(node)
            return
        for v, facts in zip(values, proved):
            if facts:
                with self.narrowing(facts):
                    self.child(v)
            else:
                self.child(v)

    def operand_facts(self, node: ast.BoolOp):
        """For each operand, what the operands before it proved when it is evaluated; None
        when no operand proves anything (the common case)."""
        truth = type(node.op) is ast.And
        out, known = [{}], {}
        for v in node.values[:-1]:
            facts = narrowing.facts(self, v, truth)
            if facts:
                known = {**known, **facts}
            out.append(known)
        return out if known else None


def holds_host(env: dict) -> bool:
    return any(k & K.CPU for k in env.values())


def stored_names(stmts) -> set:
    """Names (and `name.attr` keys) bound in `stmts` (nested functions and classes included:
    over-approximating only drops host facts); a comprehension's targets are its own."""
    out = set()
    for st in stmts:
        own = set()
        for n in walk(st):
            if type(n) is ast.comprehension:
                own.update(id(t) for t in walk(n.target))
            elif type(n) is ast.Name and type(n.ctx) is not ast.Load and id(n) not in own:
                out.add(n.id)
            elif type(n) is ast.Attribute and type(n.ctx) is not ast.Load and \
                    type(n.value) is ast.Name:
                out.add(n.value.id + "." + n.attr)      # `self.w = ...`: the attribute's key
    return out


def _recast(stmts, name: str) -> bool:
    """A statement of `stmts` itself rebinds `name` to what a method tensors lack returns
    on it (`img = img.crop(box)`)."""
    for st in stmts:
        if type(st) is ast.Assign and len(st.targets) == 1 and type(st.targets[0]) is ast.Name \
                and st.targets[0].id == name and type(st.value) is ast.Call:
            f = st.value.func
            if type(f) is ast.Attribute and type(f.value) is ast.Name and f.value.id == name and \
                    f.attr not in TENSOR_NAMES:
                return True
    return False


def _is_none(value) -> bool:
    return value is None


def _is_bool(value) -> bool:
    return type(value) is bool      # not `in (True, False)`: `0 == False`


def _none_assigned(stmts) -> set:
    """Names a statement of `stmts` itself (not a nested block) sets to `None`."""
    return _const_assigned(stmts, _is_none)


def _const_assigned(stmts, const) -> set:
    """Names a statement of `stmts` itself (not a nested block) sets to a constant `const`
    accepts."""
    return {st.targets[0].id for st in stmts
            if type(st) is ast.Assign and len(st.targets) == 1 and type(st.targets[0]) is ast.Name
            and type(st.value) is ast.Constant and const(st.value.value)}


def _binds_none(stmts, name: str) -> bool:
    """The last statement of `stmts` that binds `name` is `name = None`."""
    return _binds_const(stmts, name, _is_none)


def _binds_const(stmts, name: str, const) -> bool:
    """The last statement of `stmts` that binds `name` sets it to a constant `const` accepts."""
    for st in reversed(stmts):
        if name in stored_names([st]):
            return type(st) is ast.Assign and len(st.targets) == 1 and \
                type(st.targets[0]) is ast.Name and type(st.value) is ast.Constant and \
                const(st.value.value)
    return False


# What the walk knows of a value nothing says more of (an unknown call; in a module's method,
# a probable tensor): no flags.
_BARE = (UNKNOWN, PROBABLE)


def _is_tensor(k) -> bool:
    return k is not None and K.level(k) == TENSOR and not k & HOST


def _maybe_tensor(k) -> bool:
    return k is not None and K.level(k) >= PROBABLE and not k & HOST


def _maybe_bool_tensor(k) -> bool:
    return _maybe_tensor(k) and bool(k & K.BOOL)


def _is_number(k) -> bool:
    """A Python value read from tensor data (`int(n)`, `n.item()`)."""
    return k is not None and K.level(k) == NOT and bool(k & HOST)


def _tensor_and_number(*ks) -> bool:
    return any(_is_tensor(k) for k in ks) and any(_is_number(k) for k in ks)


def _unless_proved(k, facts: dict, name: str):
    return NOT if k is not None and facts.get(name) == NOT else k


def _carried(block, inner: bool):
    """(name, value) of the plain assignments `name = value` of a loop's body that may reach
    its next iteration: not in a block that returns, raises or (at the loop's own level, not
    in an `inner` loop) breaks after them."""
    last = type(block[-1]) if block else None
    if last in (ast.Return, ast.Raise) or last is ast.Break and not inner:
        return
    for st in block:
        t = type(st)
        if t is ast.Assign:
            if len(st.targets) == 1 and type(st.targets[0]) is ast.Name:
                yield st.targets[0].id, st.value
            continue
        if t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            continue
        loop = inner or t in (ast.For, ast.AsyncFor, ast.While)
        for field in ("body", "orelse", "finalbody"):
            sub = getattr(st, field, None)
            if type(sub) is list:
                yield from _carried(sub, loop)
        for h in getattr(st, "handlers", None) or ():
            yield from _carried(h.body, loop)
        for case in getattr(st, "cases", None) or ():
            yield from _carried(case.body, loop)


def _plain_stores_only(body, name: str) -> bool:
    """Every binding of `name` in the loop's `body` is a plain `name = value`."""
    plain = stores = 0
    for st in statements(body, enter_defs=False):
        if type(st) is ast.Assign and len(st.targets) == 1 and type(st.targets[0]) is ast.Name \
                and st.targets[0].id == name:
            plain += 1
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for n in walk(st) if not hasattr(st, "body") else _header_nodes(st):
            if type(n) is ast.Name and n.id == name and type(n.ctx) is ast.Store:
                stores += 1
    return stores == plain


def _header_nodes(st):
    """The nodes of a compound statement outside its blocks (a `for` target, a `with` item)."""
    for field in ("target", "items", "test", "iter", "subject"):
        v = getattr(st, field, None)
        for part in v if type(v) is list else (v,) if v is not None else ():
            yield from walk(part)


def ends(stmts) -> bool:
    """The block never falls through to what follows it."""
    return bool(stmts) and type(stmts[-1]) in (ast.Return, ast.Raise, ast.Continue, ast.Break)
