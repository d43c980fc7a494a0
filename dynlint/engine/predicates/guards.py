"""Code that runs only on some paths: the error path (`in_raise`), under a graph guard
(`compile_only`, `eager_only`), once per object (`once_only`), or only for float16 tensors
(`fp16_only`)."""
from __future__ import annotations

import ast

from ...analysis.oneshot import once_regions
from ...analysis.records import attributes_read, optin_regions, record_regions
from ...analysis.statements import statements
from .context import contains, last_name
from .registry import predicate


@predicate()
def in_raise(ctx, node):
    """Inside a `raise` statement, the message of an `assert`, or a branch that always ends by raising (`if bad.any(): first = boxes[i].tolist(); raise ValueError(...)`, or `torch._assert(False, ...)`): code that only runs on the error path."""
    stack = ctx.analyzer.stack
    for i, a in enumerate(stack):
        t = type(a)
        if t is ast.Raise or (t is ast.Assert and a.msg is not None and contains(a.msg, node)):
            return True
        if t is ast.If and i + 1 < len(stack):
            child = stack[i + 1]
            for block in (a.body, a.orelse):
                if block and any(s is child for s in block) and _always_raises(ctx, block[-1]) \
                        and not _leaves_early(block):
                    return True
    return False


def _leaves_early(block) -> bool:
    """A `return`, `break` or `continue` in the block (not in a function nested in it): a
    path that leaves before the final `raise` (`if ...: return coo` ... `raise ValueError`)."""
    return any(type(st) in (ast.Return, ast.Break, ast.Continue) for st in statements(block, enter_defs=False))


def _always_raises(ctx, st) -> bool:
    """`raise ...`, `assert False, ...` or `torch._assert(False, ...)`."""
    t = type(st)
    if t is ast.Raise:
        return True
    test = st.test if t is ast.Assert else None
    if t is ast.Expr and type(st.value) is ast.Call and st.value.args and \
            (ctx.analyzer.qualname(st.value.func) or "").endswith("._assert"):
        test = st.value.args[0]
    return type(test) is ast.Constant and test.value is False


# Calls that are true while torch compiles, exports, scripts or traces the code. Matched by the
# callee's last name so that re-exports (`torch.compiler.is_compiling`, `torch._dynamo.is_compiling`,
# `transformers.utils.is_torchdynamo_compiling`) are all seen, whatever the import path.
# `torch._C._get_tracing_state()` is what `torch.jit.is_tracing()` reads: None unless tracing.
_GRAPH_GUARDS = frozenset({"is_compiling", "is_dynamo_compiling", "is_torchdynamo_compiling", "is_exporting",
                           "is_scripting", "is_tracing", "is_fx_tracing", "is_in_onnx_export",
                           "_get_tracing_state"})


def _guard_implies(ctx, test, value: bool, compiling: bool) -> bool:
    """`test` evaluating to `value` implies that the code is (`compiling`) or is not being
    compiled or traced."""
    t = type(test)
    if t is ast.UnaryOp and type(test.op) is ast.Not:
        return _guard_implies(ctx, test.operand, not value, compiling)
    if t is ast.BoolOp:
        # `a and b` true: every operand true; false: at least one false (so all must imply it)
        every = (type(test.op) is ast.And) == value
        results = (_guard_implies(ctx, v, value, compiling) for v in test.values)
        return any(results) if every else all(results)
    if t is ast.Call and not test.args and not test.keywords:
        name = ctx.analyzer.qualname(test.func) or last_name(test.func) or ""
        return value is compiling and name.rsplit(".", 1)[-1] in _GRAPH_GUARDS
    return False


@predicate()
def compile_only(ctx, node):
    """Only reached while the code is compiled, exported, scripted or traced: in the body of `if torch.compiler.is_compiling():` (or `torch.jit.is_tracing()`, ...) or the `else` of the negative test. There `torch._check(...)` is a hint to the compiler, not a read."""
    return _under_graph_guard(ctx, node, True)


@predicate()
def eager_only(ctx, node):
    """Only reached when the code is not being compiled, exported, scripted or traced: in the body of `if not torch.compiler.is_compiling():` (or `is_exporting()`, `torch.jit.is_scripting()`, `torch.jit.is_tracing()`, `torch._dynamo.is_compiling()`...) or the `else` of the positive test. Such code never becomes part of a graph."""
    return _under_graph_guard(ctx, node, False)


def _under_graph_guard(ctx, node, compiling: bool) -> bool:
    """`node` sits in a branch of an `if` (statement or expression) whose test, taking that
    branch, implies the code is (`compiling`) or is not being compiled or traced."""
    if not _mentions(ctx.analyzer, _GRAPH_GUARDS):
        return False
    child = node
    for anc in reversed(ctx.analyzer.stack):
        if type(anc) in (ast.If, ast.IfExp):
            body = anc.body if type(anc) is ast.IfExp else None
            in_body = (body is not None and contains(body, node)) or \
                (body is None and any(b is child or contains(b, node) for b in anc.body))
            in_else = contains(anc.orelse, node) if type(anc) is ast.IfExp else \
                any(b is child or contains(b, node) for b in anc.orelse)
            if in_body and _guard_implies(ctx, anc.test, True, compiling) and \
                    not contains(anc.test, node):
                return True
            if in_else and _guard_implies(ctx, anc.test, False, compiling):
                return True
        child = anc
    return False


def once_only(ctx, node):
    """Runs once per object, not per step: in a method after `if self.X: return`, or in the
    body of `if not self.X:`, where the method itself sets `self.X` (lazy initialisation on
    the first forward). The guard's own test runs every call and is not part of it."""
    frame = ctx.frame
    while frame is not None and type(frame.node) is ast.Lambda:
        frame = frame.parent
    fnode = frame.node if frame is not None else None
    if type(fnode) not in (ast.FunctionDef, ast.AsyncFunctionDef) or frame.cls is None:
        return False
    cache = ctx.analyzer.__dict__.setdefault("_once_cache", {})
    regions = cache.get(id(fnode))
    if regions is None:
        regions = cache[id(fnode)] = once_regions(fnode)
    return any(contains(stmt, node) for _, stmts in regions for stmt in stmts)


def records_only(ctx, node):
    """Runs only to keep an opt-in record: in the body of `if self.X:` that stores Python
    numbers read from tensors into attributes no code of the module reads back, and does
    nothing else (`analysis/records.py`). The flag's own test is not part of it."""
    frame = ctx.frame
    while frame is not None and type(frame.node) is ast.Lambda:
        frame = frame.parent
    fnode = frame.node if frame is not None else None
    if type(fnode) not in (ast.FunctionDef, ast.AsyncFunctionDef) or frame.cls is None or \
            not _mentions(ctx.analyzer, ("if self.",)):
        return False
    cache = ctx.analyzer.__dict__.setdefault("_records_cache", {})
    regions = cache.get(id(fnode))
    if regions is None:
        regions = cache[id(fnode)] = record_regions(fnode, lambda: _attributes_read(ctx.analyzer))
    return any(contains(stmt, node) and not contains(stmt.test, node) for stmt in regions)


def optin_only(ctx, node):
    """Runs only when a caller turns on a parameter that is off by default, and then only
    shows values: the body of `if debug: print(...)` (`debug=False`) or `if hook: hook(...)`
    (`hook=None`), nothing else in it (`records.optin_regions`). The test itself is not part of it."""
    frame = ctx.frame
    while frame is not None and type(frame.node) is ast.Lambda:
        frame = frame.parent
    fnode = frame.node if frame is not None else None
    if type(fnode) not in (ast.FunctionDef, ast.AsyncFunctionDef):
        return False
    cache = ctx.analyzer.__dict__.setdefault("_optin_cache", {})
    regions = cache.get(id(fnode))
    if regions is None:
        regions = cache[id(fnode)] = optin_regions(fnode)
    return any(contains(stmt, node) and not contains(stmt.test, node) for stmt in regions)


def _attributes_read(analyzer) -> set:
    """`records.attributes_read` of the module being walked, once per module."""
    found = analyzer.__dict__.get("_attributes_read")
    if found is None or found[0] is not analyzer.tree:
        found = analyzer._attributes_read = (analyzer.tree, attributes_read(analyzer.tree))
    return found[1]


def outside_step(ctx, node):
    """Code that runs in the model's methods but not as part of a step: eager-only branches
    (`eager_only`), once-per-object initialisation (`once_only`), the error path (`in_raise`)
    opt-in records (`records_only`) and opt-in output (`optin_only`)."""
    return eager_only(ctx, node) or once_only(ctx, node) or in_raise(ctx, node) or records_only(ctx, node) \
        or optin_only(ctx, node)


@predicate()
def fp16_only(ctx, node):
    """Only reached when a tensor is float16: under `if x.dtype == torch.float16:` or after such a test earlier in the same `and` chain (fp16 overflow guards)."""
    if not (_mentions(ctx.analyzer, ("dtype",)) and _mentions(ctx.analyzer, _FP16_NAMES)):
        return False
    stack = ctx.analyzer.stack
    child = node
    for anc in reversed(stack):
        t = type(anc)
        if t is ast.BoolOp and type(anc.op) is ast.And:
            for v in anc.values:
                if v is child or contains(v, node):
                    break
                if _is_fp16_test(ctx, v):
                    return True
        elif t is ast.If and child is not anc.test and not contains(anc.test, node) \
                and any(b is child for b in anc.body) and _is_fp16_test(ctx, anc.test):
            return True
        child = anc
    return False


_FP16_NAMES = ("float16", "half")


def _mentions(analyzer, words) -> bool:
    """Whether the module's text holds one of `words` (cached per module): a test that needs
    a name (`is_compiling`, `float16`) cannot hold in a module that never writes it."""
    cache = analyzer.__dict__.setdefault("_mentions_cache", {})
    found = cache.get(words)
    if found is None:
        text = cache.get(None)
        if text is None:
            text = cache[None] = "\n".join(analyzer.lines)
        found = cache[words] = any(w in text for w in words)
    return found


def _is_fp16_test(ctx, test) -> bool:
    if type(test) is ast.BoolOp and type(test.op) is ast.And:
        return any(_is_fp16_test(ctx, v) for v in test.values)
    if type(test) is not ast.Compare or len(test.ops) != 1 or \
            type(test.ops[0]) not in (ast.Eq, ast.Is):
        return False
    sides = (test.left, test.comparators[0])
    has_dtype = any(type(x) is ast.Attribute and x.attr == "dtype" for x in sides)
    names = {ctx.analyzer.qualname(x) for x in sides if type(x) in (ast.Attribute, ast.Name)}
    return has_dtype and bool(names & {"torch.float16", "torch.half"})
