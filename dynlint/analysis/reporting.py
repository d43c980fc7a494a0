"""Reporting code, told from what a function does: it draws a figure, writes a text report, exports
the data to a host library, or hands back numbers.

These are facts of the code, not of names: a `log_prediction` that a Lightning step calls every
N batches and the `plot_prediction` it calls are reached from model code, yet what they read
from tensors is what they render or return for a person to look at, after the step.

* A function that draws with a plotting library (`plt.subplots`, `ax.plot`, after `from
  matplotlib import pyplot as plt` in its body or module) renders on the host: cold, and model
  reachability stops there (the figure is the same whoever asks for it).
* A function whose every `return` converts tensor data to Python floats (`float(t)`,
  `t.mean().item()`, a tuple of those or a dict of them by name; `t.tolist()` on another path)
  computes a statistic or metric for a report, like one declared `-> float`: soft cold,
  reported only when model code of another file reaches it. A module's `forward` that does so
  is a metric module (asteroid's `F1Tracker`): no entry point, as nothing differentiable
  comes out of it. Not `int(t)` nor `.item()` of anything but a mean, deviation, norm or
  ratio (a true division, directly or through a local bound only to such values): an int is
  often a size or a position the step goes on with.
* A function whose every `return` is a record of Python values (a string-keyed dict of
  `.item()`/`.tolist()`/`float`/`int`/`str` conversions, constants and Python-typed
  parameters, literal or through a local bound only to one) serialises what it read
  (nerfstudio's `Cameras.to_json`), unless it also stores attributes: soft cold too.
* A function that writes text to a stream it is given or a file it opens (`print(...,
  file=f)`, `f.write(...)` of a formatted string: an f-string, `str(...)`, `"...".format(...)`,
  `"..." % x`) and hands nothing back renders what it read for a person, as a figure does
  (not a warning to `sys.stderr` from a check in the step): cold whoever calls it
  (speechbrain's `ClassificationStats._write_confusion`, flair's `WeightExtractor.
  extract_weights`). Not a write of data (`sf.write(buf, wav.numpy(), sr)`: a codec round
  trip inside an augmentation), nor a function whose result the caller goes on with.
* A function whose every `return` is an object of a host container library (a scipy sparse
  matrix, a networkx/networkit/igraph graph, a pandas frame, a PIL image, a trimesh mesh),
  built by a call into it directly or through a local bound only to such calls, exports the
  tensor data it read (torch_geometric's `to_scipy_sparse_matrix`, `to_networkx`,
  `to_networkit`): nothing the step goes on with comes out, soft cold like a statistic. Not scipy as a whole: its solvers
  (`linear_sum_assignment`) hand back index arrays a matcher's step goes on with.
* A function whose every `return` is a Python bool (`True`/`False`, `bool(...)`,
  `torch.equal(...)`, `not ...`, a comparison with a Python number such as `t.size(0)`,
  `len(...)` or `.item()`, and `and`/`or` of those) answers a question about its arguments
  (torch_geometric's `has_isolated_nodes`, asteroid's `are_models_equal`): a predicate whose
  reads are its answer, soft cold like a statistic.
* A function declared to return text (`-> str`, `-> list[str]`, `-> Tuple[str, ...]`) whose
  every `return` is text it builds (an f-string, `str(...)`, a join, a local declared
  `list[str]`) turns what it reads into words for a person or a file (torchani's converter of
  atomic numbers to chemical symbols, a `forward -> list[str]`; a PDB writer): soft cold like
  a statistic, and a module's `forward` so declared is no entry point, as for a metric module.
  Not one returning what another call makes of its work (`return tokenizer.decode(ids)` after
  a decoding loop: the declaration alone does not make it a report). Text also comes from a
  parameter declared `str`, a `str` method of text (`token.replace(...).strip()`), a
  conditional of two texts, a call of a function of the module that itself returns text it
  builds (`text_functions`), and a list the function starts empty and only appends text to
  (captum's token pretty-printer: `pretty.append(_clean_up(tok) + " [OVERLAP]")`).
* A function that opens a file (`with open(path) as f:`) reads or writes it: what it reads
  from tensors comes from or goes to disk (torchani's `read_xyz`, a graph partitioner), host
  I/O, cold whoever calls it like a report; not one that runs a training step of its own.
"""
from __future__ import annotations

import ast

from .statements import own_nodes

# Libraries that render figures on the host (seaborn and plotly draw through their own API).
PLOTTING = frozenset({"matplotlib", "seaborn", "plotly"})


def imports_plotting(imports: dict[str, str]) -> bool:
    """Whether the module imports a plotting library anywhere (a cheap gate for `draws`)."""
    return any(q.lstrip(".").split(".", 1)[0] in PLOTTING for q in imports.values())


def draws(names, imports: dict[str, str]) -> bool:
    """Whether a function whose text mentions `names` uses a name imported from a plotting
    library (`plt`, `sns`, `matplotlib`)."""
    return any(imports[n].split(".", 1)[0] in PLOTTING for n in names if n in imports)


# Reductions whose value is a statistic, not a position or a count (`.item()` of an index,
# `indices[pos].item()`, is a step's next position: diffusers' `index_for_timestep`).
_STATISTICS = frozenset({"mean", "nanmean", "std", "var", "norm"})


def _host_value(node) -> str | None:
    """"float" for `float(x)` or `<mean/std/var/norm>(...).item()`, "list" for `x.tolist()`,
    a tuple of them by its items; None for anything else (`int(x)`, `indices[pos].item()`)."""
    t = type(node)
    if t is ast.Tuple or t is ast.Dict:     # (a dict by its values: `{"f1": float(f1), ...}`)
        kinds = {_host_value(e) for e in (node.elts if t is ast.Tuple else node.values)}
        return None if not kinds or None in kinds else ("float" if "float" in kinds else "list")
    if t is not ast.Call or node.keywords:
        return None
    func = node.func
    if type(func) is ast.Name:
        return "float" if func.id == "float" and len(node.args) == 1 else None
    if type(func) is not ast.Attribute or node.args:
        return None
    if func.attr == "tolist":
        return "list"
    inner = func.value
    if func.attr == "item" and type(inner) is ast.Call and type(inner.func) is ast.Attribute and \
            inner.func.attr in _STATISTICS:
        return "float"
    if func.attr == "item" and type(inner) is ast.BinOp and type(inner.op) is ast.Div:
        return "float"          # (a ratio: a true division is never a position or a count)
    return None


def _converts(node) -> bool:
    """`x.item()`, `x.tolist()`, `float(x)`, `int(x)`, `str(x)`: a Python value, whatever `x` was."""
    if type(node) is not ast.Call or node.keywords:
        return False
    func = node.func
    if type(func) is ast.Name:
        return func.id in ("float", "int", "str") and len(node.args) == 1
    return type(func) is ast.Attribute and func.attr in ("item", "tolist") and not node.args


def _record_value(node, converted: set[str]) -> bool | None:
    """A field of a record: True for a conversion of tensor data to a Python value, False for
    another Python value (a constant, a name the function also binds to a conversion, a
    parameter of a Python type), None for anything that may be a tensor."""
    if _converts(node):
        return True
    if type(node) is ast.Constant or type(node) is ast.JoinedStr:
        return False
    if type(node) is ast.Name and node.id in converted:
        return False
    return None


def _record(node, converted: set[str]) -> bool:
    """A dict keyed by strings whose every value is a Python value, one of them at least
    converted from tensor data (`{"type": "Pinhole", "fx": cam.fx.item(), "c2w": m.tolist()}`):
    a record for JSON or a report, not a step's output."""
    if type(node) is not ast.Dict or not node.keys:
        return False
    if not all(type(k) is ast.Constant and type(k.value) is str for k in node.keys):
        return False
    fields = [_record_value(v, converted) for v in node.values]
    return None not in fields and True in fields


def _statements(body):
    """Every statement of `body`, nested blocks and functions included (assignments are
    statements: no need to visit each expression node as `ast.walk` does)."""
    todo = list(reversed(body))
    while todo:
        n = todo.pop()
        yield n
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(n, field, None)
            if block and type(block) is list:
                todo.extend(reversed(block))


def _records(fnode) -> tuple[set[str], set[str] | None]:
    """(names every binding of which in the function is a record, with every later
    `name["key"] = value` a Python value; names some binding of which converts tensor data or
    that are parameters declared a Python type); None for the latter when the function
    stores attributes: its record is not all it does)."""
    a = fnode.args
    converted = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs) if type(x.annotation) is ast.Name
                 and x.annotation.id in ("int", "float", "str", "bool")}
    assigns = []
    for n in _statements(fnode.body):
        t = type(n)
        if t is ast.Assign or t is ast.AugAssign:
            if any(type(x) is ast.Attribute for x in (n.targets if t is ast.Assign else [n.target])):
                # (a function that updates an object's state returns its debug record beside
                # the real work: torch_geometric's `GRBCDAttack._update`)
                return set(), None
            if t is ast.Assign and len(n.targets) == 1:
                assigns.append(n)
    for n in assigns:
        if type(n.targets[0]) is ast.Name and _converts(n.value):
            converted.add(n.targets[0].id)
    records, other = set(), set()
    for n in assigns:
        tgt = n.targets[0]
        if type(tgt) is ast.Name:
            (records if _record(n.value, converted) else other).add(tgt.id)
        elif type(tgt) is ast.Subscript and type(tgt.value) is ast.Name and \
                _record_value(n.value, converted) is None:
            other.add(tgt.value.id)         # `rec["image"] = tensor`: no longer a record
    return records - other, converted


def _item_of_name(node) -> bool:
    """`name.item()`."""
    return type(node) is ast.Call and not node.args and not node.keywords and \
        type(node.func) is ast.Attribute and node.func.attr == "item" and type(node.func.value) is ast.Name


def _statistic_names(fnode) -> set[str]:
    """Names every binding of which is a true division (`r = a / (a + b)`: a ratio, a float,
    never a position or a count) or a mean, deviation or norm."""
    good, bad, seen = set(), set(), set()
    for n in ast.walk(fnode):
        if type(n) in (ast.Assign, ast.AugAssign, ast.AnnAssign):
            for t in n.targets if type(n) is ast.Assign else [n.target]:
                seen.add(id(t))
    for n in ast.walk(fnode):
        if type(n) in (ast.Assign, ast.AugAssign, ast.AnnAssign):
            targets = n.targets if type(n) is ast.Assign else [n.target]
            value = n.value
            ok = type(n) is not ast.AugAssign and value is not None and (
                (type(value) is ast.BinOp and type(value.op) is ast.Div) or
                (type(value) is ast.Call and type(value.func) is ast.Attribute and value.func.attr in _STATISTICS))
            for t in targets:
                if type(t) is ast.Name:
                    (good if ok else bad).add(t.id)
                elif type(t) in (ast.Tuple, ast.List):
                    bad.update(e.id for e in t.elts if type(e) is ast.Name)
        elif type(n) is ast.Name and type(n.ctx) is ast.Store and id(n) not in seen:
            bad.add(n.id)           # (a loop target, a walrus)
    return good - bad


def returns_host_numbers(fnode) -> bool:
    """Every `return` of the function itself (not of nested functions) hands back tensor data
    converted to Python floats (or lists, next to a float on another path), or a record of
    Python values (a dict literal, or a local name bound only to one), and there is one."""
    kinds = set()
    records = ratios = None
    for n in own_nodes(fnode):
        t = type(n)
        if t is ast.Return:
            kind = _host_value(n.value) if n.value is not None else None
            if kind is None and _item_of_name(n.value):
                if ratios is None:
                    ratios = _statistic_names(fnode)
                kind = "float" if n.value.func.value.id in ratios else None
            if kind is None and n.value is not None and type(n.value) in (ast.Dict, ast.Name):
                if records is None:
                    records = _records(fnode)
                if records[1] is not None and (_record(n.value, records[1]) or
                                               type(n.value) is ast.Name and n.value.id in records[0]):
                    kind = "record"
            if kind is None:
                return False
            kinds.add(kind)
        elif t in (ast.Yield, ast.YieldFrom):
            return False
    return "float" in kinds or "record" in kinds


def _text(node) -> bool:
    """A formatted string: an f-string, a string constant, `str(...)`, `"...".format(...)`,
    `"..." % x` or `"...".join(...)`."""
    t = type(node)
    if t is ast.JoinedStr or t is ast.Constant and type(node.value) is str:
        return True
    if t is ast.BinOp:
        return type(node.op) is ast.Mod and _text(node.left)
    if t is ast.Call:
        func = node.func
        if type(func) is ast.Name:
            return func.id == "str"
        return type(func) is ast.Attribute and func.attr in ("format", "join") and _text(func.value)
    return False


def _streams(fnode) -> set[str]:
    """The names a function writes reports to: its parameters (a stream it is given) and the
    files it opens (`with open(path, "a") as f`, `f = open(...)`); not `sys.stderr`, where a
    check inside the step may warn."""
    a = fnode.args
    names = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    for n in own_nodes(fnode):
        t = type(n)
        if t is ast.With or t is ast.AsyncWith:
            names.update(i.optional_vars.id for i in n.items if type(i.optional_vars) is ast.Name
                         and _opens(i.context_expr))
        elif t is ast.Assign and len(n.targets) == 1 and type(n.targets[0]) is ast.Name and _opens(n.value):
            names.add(n.targets[0].id)
    return names


def _opens(node) -> bool:
    return type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "open"


def writes_text(fnode) -> bool:
    """Whether the function itself (not a nested one) writes text to a stream it is given or a
    file it opens, `print(..., file=f)` or `f.write(<formatted string>)`, and hands nothing back
    (every `return` bare): what it read went to the report only (see the module docstring)."""
    targets = []
    for n in own_nodes(fnode):
        t = type(n)
        if t is ast.Return:
            if n.value is not None and not (type(n.value) is ast.Constant and n.value.value is None):
                return False
        elif t in (ast.Yield, ast.YieldFrom):
            return False
        elif t is ast.Call:
            func = n.func
            if type(func) is ast.Name and func.id == "print":
                targets += [k.value for k in n.keywords if k.arg == "file"]
            elif type(func) is ast.Attribute and func.attr == "write" and len(n.args) == 1 and \
                    not n.keywords and _text(n.args[0]):
                targets.append(func.value)
    if not targets:
        return False
    streams = _streams(fnode)
    return any(type(x) is ast.Name and x.id in streams for x in targets)


def opens_file(fnode) -> bool:
    """Whether the function itself opens a file (`with open(path) as f:`, `f = open(path)`) and
    runs no step of its own, neither a training step (`.backward()`, `.zero_grad()`) nor a
    model it is given, called in a loop (`preds = model(batch)`: a validation loop that also
    saves its predictions to a file): it reads or writes the file, so what it reads from
    tensors comes from or goes to disk (torchani's `read_xyz` parsing lattices, a graph
    partitioner writing its parts), host I/O whoever calls it."""
    a = fnode.args
    given = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    opened = False
    for n in own_nodes(fnode):
        t = type(n)
        if t is ast.With or t is ast.AsyncWith:
            opened = opened or any(_opens(i.context_expr) for i in n.items)
        elif t is ast.Assign:
            opened = opened or _opens(n.value)
        elif t is ast.Call and type(n.func) is ast.Attribute and n.func.attr in ("backward", "zero_grad"):
            return False
        elif t in (ast.For, ast.AsyncFor, ast.While) and any(
                type(c) is ast.Call and type(c.func) is ast.Name and c.func.id in given
                for c in own_nodes(n)):
            return False
    return opened


# Libraries whose objects hold data on the host for another library or a person: containers,
# not computations (see the module docstring).
EXPORTS = ("scipy.sparse.", "networkx.", "networkit.", "igraph.", "pandas.", "PIL.", "trimesh.")


def _exported(node, qualname) -> bool:
    """A call building an object of an export library (`sp.coo_matrix(...)`), or one of two
    such calls chosen by a test (`nx.Graph() if undirected else nx.DiGraph()`)."""
    if type(node) is ast.IfExp:
        return _exported(node.body, qualname) and _exported(node.orelse, qualname)
    if type(node) is not ast.Call or type(node.func) not in (ast.Name, ast.Attribute):
        return False
    q = qualname(node.func)
    return q is not None and (q + ".").startswith(EXPORTS)


def _bound_names(target):
    """The names an assignment target binds (`g`, `a, *b`), not those it only reads
    (`G.graph[key] = ...` stores into `G`)."""
    t = type(target)
    if t is ast.Name:
        return [target]
    if t is ast.Starred:
        return _bound_names(target.value)
    if t is ast.Tuple or t is ast.List:
        return [n for e in target.elts for n in _bound_names(e)]
    return []


def returns_host_object(fnode, qualname) -> bool:
    """Every `return` of the function itself hands back an object of an export library, built
    in the return or bound to a local every binding of which builds one (`g = nk.Graph(...)`,
    then edges added, `return g`), and there is one. `qualname` resolves a dotted name
    through the module's imports (the function's own `import scipy.sparse as sp` included)."""
    found = False
    built: dict[str, bool] = {}
    for n in own_nodes(fnode):
        t = type(n)
        if t is ast.Return:
            v = n.value
            if v is None:
                return False
            if type(v) is ast.Name:
                if not built:
                    for a in own_nodes(fnode):
                        for tgt in (a.targets if type(a) is ast.Assign else
                                    [a.target] if type(a) in (ast.AugAssign, ast.AnnAssign, ast.For,
                                                              ast.NamedExpr) else ()):
                            for x in _bound_names(tgt):
                                ok = type(a) is ast.Assign and tgt is x and _exported(a.value, qualname)
                                built[x.id] = built.get(x.id, True) and ok
                if not built.get(v.id, False):
                    return False
            elif not _exported(v, qualname):
                return False
            found = True
        elif t in (ast.Yield, ast.YieldFrom):
            return False
    return found


# Calls whose value is a Python number or bool whatever the receiver: sizes, counts, reads.
_HOST_NUMBER_METHODS = frozenset({"size", "numel", "dim", "item", "nelement", "ndimension"})
_HOST_NUMBER_FUNCTIONS = frozenset({"len", "int", "float"})
_BOOL_FUNCTIONS = frozenset({"bool", "isinstance", "hasattr", "callable"})
_TORCH_BOOL = frozenset({"equal", "allclose", "is_tensor", "is_floating_point", "is_complex"})


def _host_number(node) -> bool:
    """`t.size(0)`, `t.numel()`, `x.item()`, `len(x)`, `int(x)`: a Python number."""
    if type(node) is not ast.Call:
        return False
    func = node.func
    if type(func) is ast.Name:
        return func.id in _HOST_NUMBER_FUNCTIONS
    return type(func) is ast.Attribute and func.attr in _HOST_NUMBER_METHODS


def _python_bool(node) -> bool:
    """A Python bool whatever the arguments were (see the module docstring)."""
    t = type(node)
    if t is ast.Constant:
        return type(node.value) is bool
    if t is ast.UnaryOp:
        return type(node.op) is ast.Not
    if t is ast.BoolOp:
        return all(_python_bool(v) for v in node.values)
    if t is ast.Compare:
        return any(_host_number(e) for e in (node.left, *node.comparators))
    if t is ast.Call:
        func = node.func
        if type(func) is ast.Name:
            return func.id in _BOOL_FUNCTIONS
        return type(func) is ast.Attribute and func.attr in _TORCH_BOOL and \
            type(func.value) is ast.Name and func.value.id == "torch"
    return False


def returns_python_bool(fnode) -> bool:
    """Every `return` of the function itself (not of nested functions) hands back a Python
    bool, and one computes it or a test chooses it (`if ...: return False`), and the function
    stores nothing into an object: a `put` that returns `True` after storing is a setter."""
    found = chosen = False
    for n in own_nodes(fnode):
        t = type(n)
        if t is ast.Return:
            if n.value is None or not _python_bool(n.value):
                return False
            found = True
            chosen = chosen or type(n.value) is not ast.Constant
        elif t in (ast.Yield, ast.YieldFrom):
            return False
        elif t in (ast.Assign, ast.AugAssign, ast.AnnAssign):
            if any(type(x) in (ast.Attribute, ast.Subscript) for x in (n.targets if t is ast.Assign else [n.target])):
                return False
        elif t in (ast.If, ast.While, ast.IfExp):
            chosen = True
    return found and chosen




# Generics whose items a text result may be: a sequence of strings, a tuple of them.
_TEXT_SEQUENCES = frozenset({"list", "List", "Sequence", "tuple", "Tuple"})


def _text_annotation(ann) -> bool:
    """`str`, `list[str]`, `List[str]`, `Sequence[str]`, `tuple[str, ...]`, `Tuple[str, str]`.
    Not `Optional[str]` nor a union with anything else: it may be no text."""
    t = type(ann)
    if t is ast.Name:
        return ann.id == "str"
    if t is not ast.Subscript or type(ann.value) not in (ast.Name, ast.Attribute):
        return False
    head = ann.value.id if type(ann.value) is ast.Name else ann.value.attr
    if head not in _TEXT_SEQUENCES:
        return False
    items = ann.slice.elts if type(ann.slice) is ast.Tuple else [ann.slice]
    text = [type(i) is ast.Name and i.id == "str" for i in items]
    rest = [type(i) is ast.Constant and i.value is Ellipsis for i in items]
    return any(text) and all(a or b for a, b in zip(text, rest))


# `str` methods whose result is text again (`token.replace("\\n", " ").strip()`).
_STR_METHODS = frozenset({"replace", "strip", "lstrip", "rstrip", "lower", "upper", "title", "capitalize",
                          "casefold", "swapcase", "center", "ljust", "rjust", "zfill", "expandtabs",
                          "removeprefix", "removesuffix"})


def _text_value(node, names: set[str], calls=frozenset()) -> bool:
    """Text built here: a string constant, an f-string, `str(x)`, `sep.join(...)`, `"%s" % x`,
    `"{}".format(x)`, a concatenation with one, a `str` method of text, a conditional of two
    texts, a name bound only to text (`names`), a call of a function of the module that
    returns text it builds (`calls`), or a list, tuple or comprehension of those. Not a call of
    anything else (`tokenizer.decode(ids)`: what a decoding loop hands back is the step's
    result, whatever its type)."""
    t = type(node)
    if t is ast.Constant:
        return type(node.value) is str
    if t is ast.JoinedStr:
        return True
    if t is ast.Name:
        return node.id in names
    if t is ast.BinOp:
        return type(node.op) is ast.Add and (_text_value(node.left, names, calls) or
                                             _text_value(node.right, names, calls)) \
            or type(node.op) is ast.Mod and type(node.left) in (ast.Constant, ast.JoinedStr)
    if t is ast.IfExp:
        return _text_value(node.body, names, calls) and _text_value(node.orelse, names, calls)
    if t in (ast.List, ast.Tuple):
        return bool(node.elts) and all(_text_value(e, names, calls) for e in node.elts)
    if t in (ast.ListComp, ast.GeneratorExp):
        return _text_value(node.elt, names, calls)
    if t is ast.Call:
        func = node.func
        if type(func) is ast.Name:
            return func.id == "str" or func.id in calls or func.id in ("tuple", "list") and \
                len(node.args) == 1 and _text_value(node.args[0], names, calls)
        if type(func) is not ast.Attribute:
            return False
        return func.attr == "join" or func.attr == "format" and type(func.value) is ast.Constant or \
            func.attr in _STR_METHODS and _text_value(func.value, names, calls)
    return False


def _empty_list(node) -> bool:
    return type(node) is ast.List and not node.elts or \
        type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "list" and \
        not node.args and not node.keywords


def _text_names(fnode, calls=frozenset()) -> set[str]:
    """Names the function annotates as text (`out: list[str] = []`, a parameter `token: str`),
    binds only to text, or starts as an empty list and only appends text to
    (`out.append(f"...")`, `out.extend([...])`, `out += [...]`; nothing else written into it)."""
    a = fnode.args
    annotated = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)
                 if x.annotation is not None and _text_annotation(x.annotation)}
    good, bad, lists = set(), set(), set()
    nodes = list(own_nodes(fnode))
    binds = sorted((n for n in nodes if type(n) in (ast.AnnAssign, ast.Assign)),
                   key=lambda n: (n.lineno, n.col_offset))
    for n in binds:
        if type(n) is ast.AnnAssign:
            if type(n.target) is ast.Name and _text_annotation(n.annotation):
                annotated.add(n.target.id)
            continue
        for tgt in n.targets:
            if type(tgt) is ast.Name:
                if _empty_list(n.value):
                    lists.add(tgt.id)
                else:
                    (good if _text_value(n.value, annotated | good, calls) else bad).add(tgt.id)
    if lists:
        known = annotated | (good - bad)
        for n in nodes:     # what goes into the lists: only text
            t = type(n)
            if t is ast.Call and type(n.func) is ast.Attribute and type(n.func.value) is ast.Name \
                    and n.func.value.id in lists:
                args = n.args[1:] if n.func.attr == "insert" else n.args
                if n.func.attr not in ("append", "extend", "insert") or n.keywords or len(args) != 1 or \
                        not _text_value(args[0], known, calls):
                    lists.discard(n.func.value.id)
            elif t is ast.AugAssign and type(n.target) is ast.Name and n.target.id in lists:
                if not _text_value(n.value, known, calls):
                    lists.discard(n.target.id)
            elif t in (ast.Assign, ast.AugAssign) and any(
                    type(x) is ast.Subscript and type(x.value) is ast.Name and x.value.id in lists
                    for x in (n.targets if t is ast.Assign else [n.target])):
                lists.difference_update(x.value.id for x in (n.targets if t is ast.Assign else [n.target])
                                        if type(x) is ast.Subscript and type(x.value) is ast.Name)
    return annotated | (good - bad - lists) | (lists - bad)


def returns_text(fnode, calls=frozenset()) -> bool:
    """Declared to return text (`_text_annotation`), and every `return` of the function itself
    hands back text it built (`_text_value`); `calls` are the functions of the module that do
    so (`text_functions`)."""
    if fnode.returns is None or not _text_annotation(fnode.returns):
        return False
    names = None
    found = False
    for n in own_nodes(fnode):
        t = type(n)
        if t is ast.Return:
            if n.value is None:
                return False
            if names is None:
                names = _text_names(fnode, calls)
            if not _text_value(n.value, names, calls):
                return False
            found = True
        elif t in (ast.Yield, ast.YieldFrom):
            return False
    return found


def text_functions(functions) -> frozenset:
    """Names of the module-level functions (`(name, def node)` pairs; a name defined twice is
    left out) that return text they build, calls of one another included (to a fixed point):
    what a call of one hands back is text too."""
    cands, seen = {}, set()
    for name, node in functions:
        if name in seen:
            cands.pop(name, None)
            continue
        seen.add(name)
        if node.returns is not None and _text_annotation(node.returns):
            cands[name] = node
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, node in cands.items():
            if name not in found and returns_text(node, frozenset(found)):
                found.add(name)
                changed = True
    return frozenset(found)
