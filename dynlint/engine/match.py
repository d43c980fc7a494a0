"""Rule matching: compiled YAML patterns + named predicates over one `ast` walk.

`Engine.check` is the single entry for one module. The CLI reaches it through `runner`
(files, cache, processes); the flake8 plugin calls it with flake8's own tree, so both give the
same findings. Nothing here is written for one specific rule.
"""
from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from dataclasses import dataclass, field

from ..analysis.text import mentions
from ..analysis.walker import Analyzer
from ..finding import Edit, Finding, Fix
from . import noqa as noqa_lib
from .patterns import Matcher, op_key
from .spans import char_col, segment
from .predicates import REGISTRY, MatchContext
from .rules import Rule
from ..analysis.roles import ALL_ROLES, Role
from ..project.scope import module_name

_LINE_SPLIT = re.compile(r"\r\n|\r|\n")


def split_lines(source: str) -> list[str]:
    """Lines as Python numbers them (`\r\n`, `\r` or `\n` ends one); `str.split` when the
    text has no `\r`, three times cheaper than the regex."""
    return _LINE_SPLIT.split(source) if "\r" in source else source.split("\n")


@dataclass
class FileFacts:
    """What the cross-file step needs from one module (see runner.resolve_cross_file)."""
    module: str
    # Names are collections that are only iterated (the cache gives back lists).
    exports: dict = field(default_factory=dict)          # function -> (is_model, refs)
    model_refs: frozenset = frozenset()                  # names model code here refers to
    conditional: list = field(default_factory=list)      # (function, Finding) if it is model code
    # For function summaries across files (crossfile.settle, project/index.py):
    returns: dict = field(default_factory=dict)      # function or Class.method -> kind
    demands: dict = field(default_factory=dict)      # absolute name whose result a walk needed
                                                     # -> the functions that asked
    classes: dict = field(default_factory=dict)      # class -> [absolute bases, method names]
    aliases: dict = field(default_factory=dict)      # a package's re-exports: name -> absolute
    # For parameters across files: the calls this file makes into others (absolute callee ->
    # {calling function: [sites]}), its functions whose parameters callers could teach
    # (qualname -> names), and the absolute names it imports (who may call whom).
    calls: dict = field(default_factory=dict)
    opens: dict = field(default_factory=dict)
    imports: list = field(default_factory=list)
    # Module-level functions neutral here (no caller in the file) holding findings that cold
    # code would not get: name -> [first line, last line, codes]; dropped by the cross-file
    # step if every caller in the project is cold (reach.cold_called).
    neutral: dict = field(default_factory=dict)
    # Of a walk again: the functions that read from another file that a value is no tensor
    # (qualname -> [first line, last line]); what the first walk found there and this walk
    # does not is withdrawn (crossfile.merged, runner._settle).
    negated: dict = field(default_factory=dict)
    origin: str | None = None                        # the file (not cached)
    # What the pre-pass's roles came to in the first walk, for the walks again of the same
    # text (scopes.reach.roles_record; not cached: without it a walk again decides them again).
    roles: tuple | None = field(default=None, compare=False, repr=False)

    def summarises(self) -> bool:
        return bool(self.returns or self.demands or self.classes or self.aliases or
                    self.calls or self.opens or self.imports or self.neutral or self.negated)


def _callee_key(func, imports) -> str | None:
    """Last name of what a call calls, its import resolved: the key of call patterns."""
    if type(func) is ast.Attribute:
        return func.attr
    if type(func) is ast.Name:
        return imports.get(func.id, func.id).rsplit(".", 1)[-1]
    return None


def _scope_of(spec):
    """The `when` conditions of a match entry that bound where it can match (predicates
    with a `scope`), as (scope, args) pairs; None if it may match anywhere its roles allow."""
    found = tuple((REGISTRY[p.name].scope, p.args) for p in spec.when
                  if not p.negate and REGISTRY[p.name].scope is not None)
    return found or None


def _holds(p, ctx, target, memo) -> bool:
    """`p(ctx, target)`, remembered while the entries of one node are tried: most entries
    tried on a node share conditions (`loaded`, `in_step_code`, `possible_tensor` of the
    same operand), and the walk does not move between them. A predicate without arguments
    depends only on the analyzer, the matched node and `target` (and on whether model code is
    assumed); its one effect, setting `weak` or `library` on the context, is replayed."""
    if p.args:
        return p(ctx, target)
    key = (p.fn, id(target), ctx.assume_model)
    hit = memo.get(key)
    if hit is None:
        weak, library = ctx.weak, ctx.library
        ctx.weak = ctx.library = False
        hit = memo[key] = (bool(p.fn(ctx, target)), ctx.weak, ctx.library)
        ctx.weak, ctx.library = weak or hit[1], library or hit[2]
    else:
        if hit[1]:
            ctx.weak = True
        if hit[2]:
            ctx.library = True
    return hit[0] != p.negate


class _Candidate:
    __slots__ = ("rule", "spec", "node", "binds", "ctx", "fix", "conditional")

    def __init__(self, rule, spec, node, binds, ctx, fix, conditional=None):
        self.rule, self.spec, self.node, self.binds, self.ctx, self.fix = \
            rule, spec, node, binds, ctx, fix
        self.conditional = conditional


class _Index:
    """Match entries by where they are tried: node type (with the callee at a fixed place,
    see Pattern.call_index), callee name, any call, or position."""

    def __init__(self, entries):
        self.by_type: dict[type, list] = {}       # node type -> [(call index or None, entry)]
        self.by_call: dict[str, list] = {}
        self.any_call: list = []
        self.positioned: dict[str, list] = {}
        self.typed_lists: dict[tuple, list] = {}  # (node type, callee keys) -> entries to try
        for entry in entries:
            spec, pat = entry[1], entry[2]
            if spec.position is not None:
                self.positioned.setdefault(spec.position, []).append(entry)
            elif pat.root_type is ast.Call and pat.call_key is not None:
                self.by_call.setdefault(pat.call_key, []).append(entry)
            elif pat.root_type is ast.Call:
                self.any_call.append(entry)
            else:
                self.by_type.setdefault(pat.root_type, []).append((pat.call_index, entry))


def _texts_of(spec) -> tuple:
    """The texts the `when` conditions of a match entry need in the module (predicates with
    a `text`): one tuple per condition, any of whose strings will do."""
    return tuple(REGISTRY[p.name].text for p in spec.when
                 if not p.negate and REGISTRY[p.name].text is not None)


class Engine:
    def __init__(self, rules: list[Rule]):
        self.rules = rules
        gate: set[str] = set()
        self._ungated = False
        self._unused_noqa = next((r for r in rules if r.builtin == "unused-noqa"), None)
        always: set[str] = set()                   # roles some rule may match anywhere in
        scoped: dict[str, list] = {}               # other roles -> the scopes that admit them
        entries = []
        for rule in rules:
            if rule.requires_text:
                gate.update(rule.requires_text)
            else:
                self._ungated = True
            for spec in rule.matches:
                scope = _scope_of(spec)
                if scope is None:
                    always.update(spec.roles)
                else:
                    for role in spec.roles:
                        scoped.setdefault(role, []).append(scope)
                # Roles as a tuple: `in` compares the members by identity (a set hashes them in Python).
                roles = tuple(spec.roles)
                entries += [((rule, spec, pat, roles), _texts_of(spec)) for pat in spec.patterns]
        self._entries = entries
        self._index = _Index(entry for entry, _ in entries)
        # Entries that cannot match in a module lacking some text: tried only where it is.
        self._texts = tuple(dict.fromkeys(t for _, texts in entries for t in texts))
        self._indexes: dict[tuple, _Index] = {}   # texts absent -> the entries left
        self._gate = tuple(sorted(gate))
        needed = always | set(scoped)
        self._skip_roles = ALL_ROLES - always
        # Collecting for the cross-file step also looks at neutral module-level functions.
        self._skip_roles_collect = self._skip_roles - ({Role.NEUTRAL} if Role.MODEL in needed else set())
        self._scoped = {role: scopes for role, scopes in scoped.items() if role not in always}

    def _index_for(self, source: str) -> _Index:
        """The entries worth trying in this module."""
        if not self._texts:
            return self._index
        absent = tuple(t for t in self._texts if not mentions(source, t))
        if not absent:
            return self._index
        index = self._indexes.get(absent)
        if index is None:
            index = self._indexes[absent] = _Index(
                entry for entry, texts in self._entries if not any(t in absent for t in texts))
        return index

    def may_match(self, source: str) -> bool:
        """The cheap text gate: a file that mentions no rule's required text cannot match."""
        return self._ungated or any(tok in source for tok in self._gate)

    # ---------------------------------------------------------------------------------------
    def check(self, source: str, path: str, tree: ast.AST | None = None,
              gate: bool = True) -> list[Finding]:
        """Findings for one module on its own (what flake8 sees)."""
        return self.check_module(source, path, tree, gate)[0]

    def check_module(self, source: str, path: str, tree: ast.AST | None = None,
                     gate: bool = True, module: str | None = None, is_package: bool = False,
                     external: dict | None = None, only=None, roles=None):
        """(findings, facts). With a `module` name, also collect FileFacts: findings of
        model-code rules inside neutral module-level functions are kept aside, to be reported
        if another file's model code calls those functions."""
        facts = FileFacts(module) if module is not None else None
        if not self.rules or (gate and not self.may_match(source)):
            return [], facts
        if tree is None:
            tree = ast.parse(source, filename=path)
        candidates: list[_Candidate] = []
        lines = split_lines(source)
        analyzer = Analyzer(skip_roles=self._skip_roles_collect if facts else self._skip_roles)
        analyzer.module_name = module if module is not None else _module_of(path)
        analyzer.is_package = is_package
        analyzer.defer = facts is not None
        if external:
            analyzer.calls.external = external
        analyzer.only = only
        analyzer.roles, analyzer.text = roles, source
        collect = facts is not None
        analyzer.neutral_hits = {}
        matcher = Matcher(analyzer.qualname)
        index = self._index_for(source)
        by_call, any_call = index.by_call, index.any_call
        try_ = self._try
        memo: dict = {}             # see _holds: emptied before each node's entries

        def on_call(node):
            memo.clear()
            for entry in by_call.get(_callee_key(node.func, analyzer.imports), ()):
                try_(entry, node, analyzer, matcher, candidates, collect, memo)
            for entry in any_call:
                try_(entry, node, analyzer, matcher, candidates, collect, memo)

        def typed(entries):
            def on_node(node):
                memo.clear()
                for entry in entries:
                    try_(entry, node, analyzer, matcher, candidates, collect, memo)
            return on_node

        state = (analyzer, matcher, candidates, collect, memo)
        analyzer.hooks = {t: self._indexed(t, entries, typed, state, index.typed_lists)
                          for t, entries in index.by_type.items()}
        if by_call or any_call:
            analyzer.hooks[ast.Call] = on_call
        analyzer.position_hooks = {p: typed(e) for p, e in index.positioned.items()}
        if analyzer.skip_roles:
            analyzer.walk_anyway = self._walk_anyway_collect if collect else self._walk_anyway
        analyzer.run(tree, lines)
        noqa = noqa_lib.scan(source, tree=tree)
        findings = self._finish([c for c in candidates if c.conditional is None], source, lines,
                                path, noqa)
        if collect:
            if not external:
                # A walk again with what other files return (`external`) gives the step only
                # what crossfile.merged takes from it (returns, calls, neutral, conditional):
                # the rest is the file's first walk's, and costs a tenth of a walk again.
                from ..analysis.scopes.crossfile import class_facts, cross_file_facts, project_imports
                facts.exports, facts.model_refs = cross_file_facts(analyzer.scopes, lines,
                                                                   module, is_package, tree)
                facts.classes, facts.aliases = class_facts(analyzer.scopes, module, is_package, lines)
                facts.demands = {k: sorted(v) for k, v in sorted(analyzer.calls.demands.items())}
                facts.opens = analyzer.calls.opens()
                facts.imports = project_imports(analyzer.scopes, module, is_package)
                if facts.demands or facts.opens:        # (what crossfile.settle walks again)
                    from ..analysis.scopes.reach import roles_record
                    facts.roles = roles_record(analyzer.scopes, source)
            facts.returns = analyzer.calls.exported()
            facts.negated = analyzer.calls.negated
            facts.calls = analyzer.calls.out_calls
            facts.neutral = {name: [start, end, sorted(codes)] for name, (start, end, codes)
                             in sorted(analyzer.neutral_hits.items())}
            pending = [c for c in candidates if c.conditional is not None]
            if pending:
                facts.conditional = self._conditional(pending, source, lines, path, noqa)
        if self._unused_noqa is not None and noqa.lines:
            findings += self._unused_findings(noqa, lines, path)
            findings.sort(key=lambda f: f.sort_key)
        candidates.clear()
        analyzer.release()
        return findings, facts

    def facts_only(self, source: str, tree: ast.AST, module: str, is_package: bool) -> FileFacts:
        """The FileFacts `check_module` would give, from the scopes pre-pass alone (no walk, no
        findings, so no `conditional`): for the files of a project that are not being checked."""
        facts = FileFacts(module)
        if not self.rules or not self.may_match(source):
            return facts
        from ..analysis.scopes import index_module
        from ..analysis.scopes.crossfile import class_facts, cross_file_facts, project_imports
        lines = split_lines(source)
        scopes = index_module(tree, lines, module=module, defer=True)
        facts.exports, facts.model_refs = cross_file_facts(scopes, lines, module, is_package, tree)
        facts.classes, facts.aliases = class_facts(scopes, module, is_package, lines)
        facts.imports = project_imports(scopes, module, is_package)
        scopes.release()
        return facts

    def _indexed(self, node_type, entries, typed, state, lists):
        """The hook for patterns rooted on `node_type`. Those that reach a call at a fixed
        place (Pattern.call_index) are tried only on nodes whose call there has their callee's
        name; the others on every node. Entries keep the rule file's order."""
        paths = list(dict.fromkeys(index[0] for index, _ in entries if index is not None))
        # Patterns rooted on an operation match only nodes with the same operator(s).
        ops = [entry[2].op_key for _, entry in entries]
        by_op = any(op is not None for op in ops)
        if not paths and not by_op:
            return typed([entry for _, entry in entries])
        try_ = self._try
        analyzer, matcher, candidates, collect, memo = state

        def on_node(node):
            memo.clear()
            keys = [node_type, op_key(node) if by_op else None]
            for path in paths:
                target = node
                for name in path:
                    target = getattr(target, name, None)
                keys.append(_callee_key(target.func, analyzer.imports)
                            if type(target) is ast.Call else None)
            keys = tuple(keys)
            todo = lists.get(keys)
            if todo is None:
                by_path = dict(zip(paths, keys[2:]))
                todo = lists[keys] = [entry for (index, entry), op in zip(entries, ops)
                                      if (index is None or by_path[index[0]] == index[1])
                                      and (op is None or op == keys[1])]
            for entry in todo:
                try_(entry, node, analyzer, matcher, candidates, collect, memo)
        return on_node

    def _walk_anyway(self, analyzer) -> set:
        """Functions whose role the walk skips but that it must walk all the same: those where
        a rule limited to some places (`in_function_named(...)`) may match, and those around
        a function that is walked (the walk reaches a nested function through them: a
        `torch.compile` step defined inside a training loop is model code whichever rules
        are enabled)."""
        skip, scoped = analyzer.skip_roles, self._scoped
        keep: set[int] = set()
        for info in analyzer.scopes.order:
            if info.role in skip:
                scopes = scoped.get(info.role)
                if not scopes or not any(all(fn(analyzer, info, *args) for fn, args in scope)
                                         for scope in scopes):
                    continue
            f = info
            while f is not None and id(f) not in keep:
                keep.add(id(f))
                f = f.parent
        if Role.COLD in scoped and Role.COLD in skip:
            keep.update(analyzer.scopes.main_guards)      # rare; what they define is walked
        return keep

    def _walk_anyway_collect(self, analyzer) -> set:
        """Collecting for the cross-file step also walks the functions cold for want of a
        caller (scopes.Scopes.soft_cold), whose findings another file's model code may
        report, when some rule limited to model code is enabled."""
        keep = self._walk_anyway(analyzer)
        if Role.COLD in analyzer.skip_roles and Role.NEUTRAL not in self._skip_roles_collect:
            soft = analyzer.scopes.soft_cold
            for info in analyzer.scopes.order:
                if id(info) in soft:
                    f = info
                    while f is not None and id(f) not in keep:
                        keep.add(id(f))
                        f = f.parent
        return keep

    def _conditional(self, pending, source, lines, path, noqa):
        out, seen = [], set()
        for c in pending:
            for f in self._finish([c], source, lines, path, noqa):
                if (f.code, f.line, f.column) not in seen:
                    seen.add((f.code, f.line, f.column))
                    out.append((c.conditional, f))
        return out

    def _try(self, entry, node, analyzer, matcher, out, collect=False, memo=None) -> None:
        rule, spec, pat, roles = entry
        frame = analyzer.frame
        conditional = None
        role = frame.role
        if role is Role.NEUTRAL and analyzer.scopes.example_module is not None:
            role = None     # example code is no library: only model code reaching it counts
        if role is Role.COLD and collect and frame.top is not None and Role.MODEL in roles \
                and id(frame.info or frame.top) in analyzer.scopes.soft_cold:
            # Cold only for want of a caller that is not cold: what rules find here as cold
            # code is reported; what they would find as model code is kept aside, in case
            # another file's model code reaches it (being called from cold code is no
            # evidence either way). Its own memo: the answers differ as model code.
            n = len(out)
            if role in roles:
                self._match(entry, node, analyzer, matcher, out, collect, memo, None)
            if len(out) == n:
                self._match(entry, node, analyzer, matcher, out, collect, {}, frame.top.qualname)
            return
        if role not in roles:
            if not (collect and frame.role == Role.NEUTRAL and frame.top is not None
                    and Role.MODEL in roles):
                return
            conditional = frame.top.qualname
        n = len(out)
        self._match(entry, node, analyzer, matcher, out, collect, memo, conditional)
        if len(out) > n and collect and conditional is None and role is Role.NEUTRAL and \
                Role.COLD not in roles and frame.top is not None and frame.top.parent is None:
            # A finding cold code would not get, in a function or method neutral here:
            # gone if the project's callers of the function are all cold.
            top = frame.top
            analyzer.neutral_hits.setdefault(top.qualname, (top.node.lineno, top.node.end_lineno,
                                                            set()))[2].add(rule.code)

    def _match(self, entry, node, analyzer, matcher, out, collect, memo, conditional) -> None:
        rule, spec, pat, _ = entry
        frame = analyzer.frame
        binds = matcher.match(pat, node)
        if binds is None:
            return
        stack = analyzer.stack
        parent = stack[-2] if stack and stack[-1] is node and len(stack) > 1 else \
            (stack[-1] if stack and stack[-1] is not node else None)
        ctx = MatchContext(analyzer, node, binds, parent, frame, conditional is not None)
        if memo is None:
            memo = {}
        # What the bindings are before where the code is: kinds are remembered per node and
        # seldom hold, while the place conditions walk the ancestors (guards, raise branches).
        for var, preds in spec.where.items():
            target = binds.get(var)
            for p in preds:
                if not _holds(p, ctx, target, memo):
                    return
        for p in spec.when:
            if not _holds(p, ctx, node, memo):
                return
        fix = None
        if rule.fixes:
            from ..fix.suggest import suggest_fix   # only files with fixable rules pay for this
            fix = suggest_fix(rule, node, binds, analyzer, matcher)
        out.append(_Candidate(rule, spec, node, binds, ctx, fix, conditional))
        if collect and ctx.library and frame.top is not None:
            # The same finding, `certain` if another file's model code reaches this function.
            reached = MatchContext(analyzer, node, binds, parent, frame, True)
            reached.weak = ctx.weak
            out.append(_Candidate(rule, spec, node, binds, reached, fix, frame.top.qualname))

    def _unused_findings(self, noqa, lines, path) -> list[Finding]:
        """DYN100: codes of this tool in `# noqa` comments that suppressed nothing."""
        rule = self._unused_noqa
        from ..engine.rules import known_codes
        known = known_codes() | {r.code for r in self.rules}
        enabled = {r.code for r in self.rules}
        prefixes = tuple(sorted({re.match(r"[A-Z]+", k).group() for k in known}))
        out = []
        for d, kinds in noqa_lib.unused(noqa, prefixes, known, enabled):
            text = lines[d.line - 1]
            a, b, new = noqa_lib.removal(d, kinds, text)
            fix = Fix("safe", "Remove unused `noqa` codes" if new else "Remove unused `noqa` directive",
                      (Edit(d.line, a + 1, d.line, b + 1, new),), text_only=True)
            col = d.comment_col + d.start
            out.append(Finding(path, d.line, col + 1, d.line, d.comment_col + d.end + 1, rule.code,
                               rule.name, noqa_lib.describe(kinds), rule.severity, "<module>", fix))
        return out

    def _finish(self, candidates, source, lines, path, noqa) -> list[Finding]:
        if not candidates:
            return []
        seen = set()
        findings = []
        # One finding per (code, line, column): where a second walk (callers taught a
        # parameter's kind) proves what names only suggested in the first, the proof wins.
        for c in sorted(candidates, key=lambda c: c.ctx.weak or c.ctx.library):
            rule = c.rule
            target = c.binds.get(c.spec.report) if c.spec.report else c.node
            line, col, end_line, end_col = _report_span(target, lines)
            key = (rule.code, line, col)
            if key in seen:
                continue
            seen.add(key)
            # A truth-tested operand of a condition over lines is read by the jump, on the line
            # current when it runs; an explicit reader (`bool(t)`, `torch.allclose(...)`) reads
            # inside its own call, on its own line.
            moved = c.ctx.analyzer.truth_lines.get(id(target)) \
                if c.spec.position == "truth_test" else None
            if moved is not None:
                line, col = moved[0], char_col(lines, moved[0], moved[1])
            node_end = getattr(c.node, "end_lineno", line)
            if noqa.suppressed(rule.code, line, node_end if node_end != line else None):
                continue
            message = _render(rule.message, c.binds, lines, rule, c.node)
            findings.append(Finding(path, line, col, end_line, end_col, rule.code, rule.name,
                                    message, rule.severity, c.ctx.frame.qualname, c.fix,
                                    confidence="likely" if c.ctx.weak or c.ctx.library else "certain"))
        findings.sort(key=lambda f: f.sort_key)
        return findings


# -- positions and text ------------------------------------------------------------------------
def _report_span(node, lines):
    """Where a finding points: the start of the construct, except for a method call whose
    name sits on a later line than its receiver starts: there it is the method name, the
    line Python itself reports at run time."""
    end_line, end_b = node.end_lineno, node.end_col_offset
    line, b = node.lineno, node.col_offset
    if type(node) is ast.Call and type(node.func) is ast.Attribute and \
            node.func.end_lineno != line:
        f = node.func
        line, b = f.end_lineno, f.end_col_offset - len(f.attr.encode("utf-8"))
    return line, char_col(lines, line, b), end_line, char_col(lines, end_line, end_b)


def _render(template: str, binds, lines, rule, matched) -> str:
    values = {"code": rule.code, "name": rule.name}
    for var, node in [("match", matched), *binds.items()]:
        if isinstance(node, ast.AST) and hasattr(node, "lineno"):
            text = " ".join(_without_comments(segment(node, lines)).split())
            values[var] = text if len(text) <= 60 else _shorten(text, 57)
    try:
        return template.format_map(_Default(values))
    except (ValueError, IndexError):
        return template


def _without_comments(text: str) -> str:
    """`text` without its comments: a call written over several lines may carry one per
    argument, and a message quotes the call on one line (`Normal( # scale ...` reads badly)."""
    if "#" not in text or "\n" not in text:
        return text
    rows = text.split("\n")
    try:
        # (wrapped in brackets so that an expression over several lines tokenizes alone)
        comments = [t for t in tokenize.generate_tokens(io.StringIO("(" + text + ")").readline)
                    if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return text
    for t in reversed(comments):
        row, col = t.start[0] - 1, t.start[1] - (1 if t.start[0] == 1 else 0)
        rows[row] = rows[row][:col] + rows[row][col + len(t.string):]
    return "\n".join(rows)


def _shorten(text: str, width: int) -> str:
    """`text` cut to about `width` characters at a token boundary, never inside a name."""
    cut = text[:width]
    if re.match(r"\w", text[width:width + 1] or " "):
        partial = re.search(r"\w*$", cut).group()
        if len(partial) < len(cut):
            cut = cut[:len(cut) - len(partial)]
    return cut.rstrip() + " ..."


class _Default(dict):
    def __missing__(self, key):
        return "{" + key + "}"


def _module_of(path: str) -> str | None:
    """The dotted module name of a file checked without one (flake8, the API): the package
    chain above it, so that a file alone gets the roles it gets within its project."""
    if not path or path == "-" or path.startswith("<") or not os.path.isfile(path):
        return None
    return module_name(path)[0]
