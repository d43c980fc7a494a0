"""What a class's attributes hold, from every assignment to them in the class's methods.

`self.alpha = torch.tensor(...)` in `__init__` and `if (self.alpha > 0).any():` in `forward`:
the walk of `forward` knows nothing of `self.alpha` (and `__init__`, cold code, is often not
walked at all). Here every `self.name = value` (and `self.register_buffer("name", value)`) in
any method of the class is read once, its value's kind inferred on its own (names the method
binds are unknown there, module names and torch calls are not); an attribute that every
assignment makes a tensor is a tensor, and a bool one if every assignment makes a bool one.
`None` assignments (`self.cache = None`) say nothing either way. Anything else (a number, an
unknown value, an assignment from outside the class we cannot see) leaves the attribute unknown:
this only ever adds knowledge where all the class's own code agrees.
"""
from __future__ import annotations

import ast

from . import kinds as K
from .annotations import annotation_kind
from .bindings import last_values
from .kinds import BOOL, HOST, TENSOR, UNKNOWN
from .scopes.held import declared_here
from .statements import statements, walk
from .text import mentions

_BUFFER = ("register_buffer",)
# prefix of the cross-file step's `external` entries naming a class's buffer wrappers inherited
# from another file (crossfile.settle; what `_wrappers` reads)
BUFFERS = "(buffers)"
_PARAMETER_TYPES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter",
                              "torch.nn.Buffer", "torch.nn.parameter.Buffer"})


def attribute_kind(analyzer, cls, attr: str) -> int:
    """Kind of `self.attr` inside a method of `cls` (a scopes.ClassInfo), from the class's own
    assignments; UNKNOWN when they do not all agree on a tensor."""
    table = analyzer.__dict__.setdefault("_attribute_kinds", {})
    per_class = table.get(id(cls))
    if per_class is None:
        table[id(cls)] = {}                     # an assignment reading `self.other` meanwhile
        per_class = table[id(cls)] = _class_attributes(analyzer, cls)
    return per_class.get(attr, UNKNOWN)


def held_classes(analyzer, cls, attr: str) -> list:
    """Classes of this file whose instances `cls`'s methods store in `self.attr`
    (`self.decoder = GreedyDecoder(...)`); empty if some assignment stores anything else."""
    table = analyzer.__dict__.setdefault("_held_classes", {})
    per_class = table.get(id(cls))
    if per_class is None:
        per_class = table[id(cls)] = _held(analyzer, cls)
    return per_class.get(attr, ())


def held_imported(analyzer, cls, attr: str) -> list:
    """Absolute names (as imported) of the classes of other files whose instances `cls`'s
    methods store in `self.attr` (`self.assigner = TaskAlignedAssigner(...)`); empty if some
    assignment stores anything else."""
    table = analyzer.__dict__.setdefault("_held_imported", {})
    key = (id(cls), attr)
    found = table.get(key)
    if found is None:
        found = table[key] = _held_imported(analyzer, cls, attr)
    return found


def _held_imported(analyzer, cls, attr: str) -> list:
    out = []
    for name, value in _class_assignments(analyzer, cls):
        if name != attr:
            continue
        for v in [value.body, value.orelse] if type(value) is ast.IfExp else [value]:
            if type(v) is ast.Constant and v.value is None:
                continue
            v = _moved(v)
            target = analyzer.imports.get(v.func.id) if type(v) is ast.Call and \
                type(v.func) is ast.Name else None
            if target is None:
                return []
            if target not in out:
                out.append(target)
    return out


def _class_assignments(analyzer, cls) -> list:
    """(attribute, value) pairs every method of `cls` assigns to `self` (read once)."""
    table = analyzer.__dict__.setdefault("_class_assignments", {})
    found = table.get(id(cls))
    if found is None:
        found = table[id(cls)] = [pair for infos in cls.methods.values() for info in infos
                                  for pair in _method_assignments(analyzer, info)]
    return found


def _method_assignments(analyzer, info) -> list:
    """`_assignments` of one method, read once (`_owners` asks again)."""
    table = analyzer.__dict__.setdefault("_method_assignments", {})
    found = table.get(id(info.node))
    if found is None:
        triples = list(_assignments(info.node, analyzer.lines, _wrappers(analyzer, info.cls)))
        analyzer.__dict__.setdefault("_buffer_values", set()).update(
            id(value) for _, value, buffer in triples if buffer)
        found = table[id(info.node)] = [(name, value) for name, value, _ in triples]
    return found


def _buffered(k: int) -> int:
    """The kind of a value registered as a buffer: a tensor, bool if the value is known one."""
    return TENSOR | (k & BOOL) if K.level(k) == TENSOR and not k & HOST else TENSOR


def _held(analyzer, cls) -> dict:
    classes = analyzer.scopes.classes
    out: dict[str, list] = {}
    if len(classes) < 2:
        return out              # no other class of this file to hold
    mixed = set()
    declared = None
    for name, value in _class_assignments(analyzer, cls):
        for v in [value.body, value.orelse] if type(value) is ast.IfExp else [value]:
            if type(v) is ast.Constant and v.value is None:
                continue
            v = _moved(v)
            if type(v) is ast.Name:
                # `self.bm = bm`, `bm: BaseBrownian` of this file: it or any subclass here
                if declared is None:
                    declared = declared_here(cls, analyzer.lines, analyzer.scopes)
                for held in declared.get(name, ()):
                    if held not in out.setdefault(name, []):
                        out[name].append(held)
                if name in declared:
                    continue
            held = classes.get(v.func.id) if type(v) is ast.Call and \
                type(v.func) is ast.Name else None
            if held is None:
                mixed.add(name)
            elif held not in out.setdefault(name, []):
                out[name].append(held)
    return {name: found for name, found in out.items() if name not in mixed}


def _moved(value):
    """`Loss(...).to(device)` (`.cuda()`, `.float()`...): the module moved is the instance."""
    while type(value) is ast.Call and type(value.func) is ast.Attribute and \
            value.func.attr in _MOVES and type(value.func.value) is ast.Call:
        value = value.func.value
    return value


_MOVES = frozenset({"to", "cuda", "cpu", "float", "half", "double", "bfloat16", "eval", "train",
                    "requires_grad_"})


def _class_attributes(analyzer, cls) -> dict:
    values: dict[str, list] = {}
    for name, value in _class_assignments(analyzer, cls):
        values.setdefault(name, []).append(value)
    owners = _owners(analyzer, cls)
    out = {}
    # Fields declared in the class body (`fx: Float[Tensor, "*n 1"]` of a dataclass, whose
    # instances are built by a generated `__init__` no method shows): the annotation says what
    # they hold, unless an assignment of the class's own code says otherwise (below).
    for name, ann in _declared_fields(analyzer, cls):
        k = annotation_kind(ann)
        if K.level(k) == TENSOR:
            out[name] = TENSOR | (k & BOOL)
        elif k & K.ITEMS:
            # `iou_matrix: List[Tensor]`: a container of tensors (a metric's list state, which
            # `add_state("iou_matrix", default=[])` registers where no assignment shows it).
            out[name] = k
    buffers = analyzer.__dict__.get("_buffer_values", ())
    for name, vs in values.items():
        vs = [v for v in vs if not (type(v) is ast.Constant and v.value is None)]
        if out.get(name, 0) & K.ITEMS:
            # An empty container (`self.iou_matrix = []`, the state reset) agrees with the
            # declaration; any other value must be a container of tensors too.
            vs = [v for v in vs if not (type(v) in (ast.List, ast.Tuple, ast.Dict) and
                                        not getattr(v, "elts", getattr(v, "keys", ())))]
            if vs and not all(_value_kind(analyzer, v, owners.get(id(v))) & K.ITEMS for v in vs):
                del out[name]
            continue
        if vs:
            kinds = [_value_kind(analyzer, v, owners.get(id(v))) for v in vs]
            # `register_buffer("name", value)` raises unless the value is a tensor (or None):
            # whatever its inferred kind (a constructor parameter, unknown), `self.name` is one.
            kinds = [_buffered(k) if id(v) in buffers else k for v, k in zip(vs, kinds)]
            if all(K.level(k) == TENSOR and not k & HOST for k in kinds):
                out[name] = TENSOR | (BOOL if all(k & BOOL for k in kinds) and
                                      out.get(name, BOOL) & BOOL else 0)
            elif name in out and any(K.level(k) == K.NOT or k & HOST for k in kinds):
                del out[name]       # (an assignment of unknown kind leaves the declaration)
    return out


def _declared_fields(analyzer, cls) -> list:
    """(name, annotation) of the annotated names in the body of `cls`'s class statement
    (found as the one holding its methods)."""
    methods = {id(info.node) for infos in cls.methods.values() for info in infos}
    if not methods:
        # A class of fields only (a NamedTuple, a dataclass): the one module-level class
        # statement of that name.
        found = [n for n in getattr(analyzer.tree, "body", ())
                 if type(n) is ast.ClassDef and n.name == cls.name]
        return [(n.target.id, n.annotation) for n in found[0].body
                if type(n) is ast.AnnAssign and type(n.target) is ast.Name] \
            if len(found) == 1 else []
    holders = _holders(analyzer, False)
    if not all(m in holders for m in methods):     # a class in a function: every statement
        holders = _holders(analyzer, True)
    found = {id(c): c for c in (holders.get(m) for m in methods)
             if c is not None and c.name == cls.name}
    if len(found) > 1:              # (rare) the first such class statement in `ast.walk` order
        found = {}
        for node in ast.walk(analyzer.tree):
            if type(node) is ast.ClassDef and node.name == cls.name and \
                    any(id(n) in methods for n in node.body):
                found[id(node)] = node
                break
    for node in found.values():
        return [(n.target.id, n.annotation) for n in node.body
                if type(n) is ast.AnnAssign and type(n.target) is ast.Name]
    return []


def _holders(analyzer, everywhere: bool) -> dict:
    """id(statement) -> the class statement whose body holds it: the classes outside
    functions, or `everywhere` (found once per module: a walk of the whole tree per class
    cost a few per cent of a run)."""
    key = "_class_holders_all" if everywhere else "_class_holders"
    table = analyzer.__dict__.get(key)
    if table is None:
        table = analyzer.__dict__[key] = {}
        tree = analyzer.tree
        todo = tree.body if type(tree) is ast.Module else [tree]
        while todo:
            classes = [n for n in statements(todo, enter_defs=everywhere)
                       if type(n) is ast.ClassDef]
            todo = []
            for node in classes:
                for n in node.body:
                    table[id(n)] = node
                if not everywhere:
                    todo += node.body   # (classes nested in classes)
    return table


def _assignments(fnode, lines, wrappers=None):
    """(attribute, value, by register_buffer) that a method (nested code included) assigns to `self`.
    Assignments are statements; a `register_buffer` call may sit in any expression, so the
    whole method is walked only when its text names it (or a method wrapping it)."""
    first = min([fnode.lineno] + [d.lineno for d in fnode.decorator_list])
    text = "\n".join(lines[first - 1:fnode.end_lineno])
    nodes = walk(fnode) if mentions(text, _BUFFER + tuple(wrappers or ())) else statements(fnode.body)
    for node in nodes:
        yield from _assigned(node, wrappers)


def _wrappers(analyzer, cls) -> dict:
    """method name -> (position, value position) of the methods of `cls` and its bases in this
    file that register a parameter as a buffer under the name another parameter gives
    (`def register_coeff_buffer(self, name, value): ...; self.register_buffer(name, value)`):
    `self.register_coeff_buffer("clip", v)` makes `self.clip` a tensor, as register_buffer does."""
    if cls is None:
        return {}
    table = analyzer.__dict__.setdefault("_buffer_wrappers", {})
    found = table.get(id(cls))
    if found is None:
        found = table[id(cls)] = {}
        for c in _lineage(analyzer.scopes.classes, cls):
            for name, infos in c.methods.items():
                if name not in found and len(infos) == 1:
                    at = buffer_wrapper(infos[0].node, analyzer.lines)
                    if at is not None:
                        found[name] = at
        # those a base of another file defines (the cross-file step tells: crossfile.settle)
        external = getattr(getattr(analyzer, "calls", None), "external", None) or {}
        for c in _lineage(analyzer.scopes.classes, cls) if external else ():
            for name, at in external.get(BUFFERS + c.name, {}).items():
                if name not in found and type(at) in (list, tuple) and len(at) == 2:
                    found[name] = tuple(at)
    return found


def _lineage(classes: dict, cls) -> list:
    """`cls` and its ancestors defined in this file, nearest first."""
    out, todo = [], [cls]
    while todo and len(out) < 12:
        c = todo.pop(0)
        if c not in out:
            out.append(c)
            todo += [classes[b] for b in c.bases if b in classes]
    return out


def buffer_wrapper(fnode, lines):
    """(position of the name parameter, of the value parameter or -1) if `fnode` calls
    `self.register_buffer(p, ...)` with its parameter `p` as the name; else None. Positions count
    the call's arguments (`self` left out)."""
    if not mentions("\n".join(lines[fnode.lineno - 1:fnode.end_lineno]), _BUFFER):
        return None
    params = [a.arg for a in fnode.args.posonlyargs + fnode.args.args][1:]
    found = None
    for node in walk(fnode):
        if type(node) is not ast.Call or len(node.args) < 2:
            continue
        f = node.func
        if type(f) is ast.Name and f.id == "setattr" and len(node.args) == 3 and \
                _is_self(node.args[0]) and type(node.args[1]) is ast.Name and node.args[1].id in params and \
                not (type(node.args[2]) is ast.Constant and node.args[2].value is None):
            return None     # `else: setattr(self, name, value)`: not always a buffer
        if found is None and type(f) is ast.Attribute and f.attr == "register_buffer" and \
                _is_self(f.value) and type(node.args[0]) is ast.Name and node.args[0].id in params:
            value = node.args[1]
            # `value = torch.as_tensor(value, ...)` before the call: still the parameter's value
            v = value.id if type(value) is ast.Name else None
            found = params.index(node.args[0].id), params.index(v) if v in params else -1
    return found


def _assigned(node, wrappers=None):
    """(attribute, value, by register_buffer) that `node` assigns to `self`."""
    t = type(node)
    if t is ast.Assign:
        for target in node.targets:
            if _self_attr(target):
                yield target.attr, node.value, False
    elif t is ast.AnnAssign and node.value is not None and _self_attr(node.target):
        yield node.target.attr, node.value, False
    elif t is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "register_buffer" \
            and _is_self(node.func.value) and len(node.args) >= 2 \
            and type(node.args[0]) is ast.Constant and type(node.args[0].value) is str:
        yield node.args[0].value, node.args[1], True
    elif wrappers and t is ast.Call and type(node.func) is ast.Attribute and \
            node.func.attr in wrappers and _is_self(node.func.value):
        at, value_at = wrappers[node.func.attr]
        if len(node.args) > at and type(node.args[at]) is ast.Constant and \
                type(node.args[at].value) is str:
            value = node.args[value_at] if 0 <= value_at < len(node.args) else node
            yield node.args[at].value, value, True


def _self_attr(node) -> bool:
    return type(node) is ast.Attribute and _is_self(node.value)


def _is_self(node) -> bool:
    return type(node) is ast.Name and node.id == "self"


def _owners(analyzer, cls) -> dict:
    """id(value) -> the method (scopes.FunctionInfo) whose code assigns it; not `__init__`,
    whose parameters are the object's configuration or data, given once (a graph object's
    `self.src = src`), not state a step updates."""
    return {id(value): info for name, infos in cls.methods.items() if name != "__init__"
            for info in infos for _, value in _method_assignments(analyzer, info)}


def _value_kind(analyzer, value, method=None) -> int:
    """The value's kind seen from outside any function: the method's own names are unknown,
    but the parameters of a method other than `__init__` hold what a walk of it binds
    (`def update(self, x: Tensor): self.n = x.sum()` stores a tensor that `forward` may read
    as a number)."""
    t = type(value)
    if t is ast.Call and type(value.func) in (ast.Name, ast.Attribute) and \
            analyzer.qualname(value.func) in _PARAMETER_TYPES:
        inner = value.args[0] if value.args else None
        k = _value_kind(analyzer, inner) if inner is not None else TENSOR
        return TENSOR | (k & BOOL) if K.level(k) == TENSOR else TENSOR
    saved_frame, saved_kinds, saved_tuples = analyzer.frame, analyzer._kinds, analyzer._tuple_kinds
    analyzer.frame, analyzer._kinds, analyzer._tuple_kinds = analyzer.module, {}, {}
    try:
        k = analyzer.kind(value)
        if K.level(k) != TENSOR and method is not None:
            frame = type(analyzer.module)(method.name, method.qualname, analyzer.module,
                                          cls=method.cls, node=method.node)
            frame.modelish = method.modelish
            analyzer._bind_params(frame, method.node.args, is_method=True)
            analyzer.frame, analyzer._kinds, analyzer._tuple_kinds = frame, {}, {}
            k = analyzer.kind(value)
            if K.level(k) != TENSOR and t is ast.Name:
                k = _local_value_kind(analyzer, value, method, k)
        return k
    finally:
        analyzer.frame, analyzer._kinds, analyzer._tuple_kinds = saved_frame, saved_kinds, saved_tuples


def _local_value_kind(analyzer, name, method, k: int) -> int:
    """`self.jump_t = jump_t`: a local of the method, a tensor if every value it may hold
    there is one (`jump_t = torch.tensor([])` on one branch, `jump_t = t.to(dtype)` on the
    other), else `k`."""
    values = last_values(method.node, name.id, name.lineno)
    if not values:
        return k
    kinds = [_value_kind(analyzer, v, method) for v in values]
    if all(K.level(v) == TENSOR and not v & HOST for v in kinds):
        return TENSOR | (BOOL if all(v & BOOL for v in kinds) else 0)
    return k
