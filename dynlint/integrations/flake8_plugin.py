"""flake8 plugin: dynlint's rules reported as DYNxxx codes in a flake8 run.

It analyses the tree flake8 already parsed (no second parse) with the same `Engine` the CLI
uses, so codes, lines and messages are the ones `dynlint check` prints; the column is handed
to flake8 0-based, and flake8 prints it 1-based like dynlint does.

Which rules run (see the README, "Integrations"):
  base set   `--dynlint-select`, else `select` in [tool.dynlint], else every rule marked
             `default: true`;
  plus       [tool.dynlint] extend-select, and default-off rules that flake8's
             --select/--extend-select name *specifically* (a selector with a digit: DYN3,
             DYN301). A bare `DYN` only switches the plugin on, as flake8 configs need;
  minus      [tool.dynlint] ignore, and every code flake8 itself would throw away
             (--select/--ignore/--extend-ignore), so ignored rules cost nothing.
flake8 then applies its own select/ignore, per-file-ignores, excludes and `# noqa` as for
any plugin; the engine applies dynlint's `# noqa` and `# dynlint: noqa` as the CLI does.
"""
from __future__ import annotations


from .. import __version__

# One engine per process and configuration: flake8 calls parse_options once per process (and
# once per worker when it cannot fork), the legacy API may call it again in-process.
_ENGINES: dict[tuple, object] = {}


class Plugin:
    name = "dynlint"
    version = __version__

    _engine = None                      # set by parse_options
    _settings = None                    # [tool.dynlint], for per-file-ignores (flake8's own apply too)

    def __init__(self, tree, lines, filename):
        self.tree, self.lines, self.filename = tree, lines, filename

    # -- options ------------------------------------------------------------------------------
    @classmethod
    def add_options(cls, manager) -> None:
        manager.add_option(
            "--dynlint-rules", default=[], parse_from_config=True, comma_separated_list=True,
            normalize_paths=True, metavar="DIRS",
            help="extra directories of dynlint YAML rules (comma-separated; added to "
                 "[tool.dynlint] rule-dirs)")
        manager.add_option(
            "--dynlint-select", default=None, parse_from_config=True, comma_separated_list=True,
            metavar="CODES",
            help="dynlint rules to run, replacing the default set (codes, prefixes or ALL; "
                 "like `dynlint check --select`). flake8's --select/--ignore still filter.")

    @classmethod
    def parse_options(cls, options) -> None:
        from flake8.exceptions import ExecutionError

        from ..project.config import ConfigError
        from ..engine.rules import RuleError
        try:
            cls._engine, cls._settings = _configure(options)
        except RuleError as exc:
            # flake8 prints an ExecutionError as "There was a critical error ..." + message
            # and exits 1, without a traceback.
            raise ExecutionError(f"dynlint: invalid rule: {exc}") from None
        except ConfigError as exc:
            raise ExecutionError(f"dynlint: {exc}") from None

    # -- checking -----------------------------------------------------------------------------
    def run(self):
        engine = type(self)._engine
        if engine is None:                  # used without flake8's option parsing: defaults
            engine = type(self)._engine = _build((), None, (), ())
        text = "".join(self.lines)
        if not engine.may_match(text):
            return
        try:
            findings = engine.check(text, self.filename, tree=self.tree, gate=False)
        except Exception as exc:            # like the CLI: one file's bug is a DYN999, not a crash
            from ..finding import internal_error
            f = internal_error(exc, self.filename)
            yield (f.line, f.column - 1, f"{f.code} {f.message}", type(self))
            return
        settings = type(self)._settings
        if settings is not None and settings.per_file_ignores:
            from ..project.config import per_file_ignored
            findings = [f for f in findings if not per_file_ignored(self.filename, f.code, settings)]
        for f in findings:
            yield f.line, f.column - 1, f"{f.code} {f.message}", type(self)


def _configure(options):
    from ..project.resolve import load_settings
    # [tool.dynlint] applies under flake8 too, so both tools agree in a configured project.
    # (flake8 consumes its --isolated before plugins see the options: it cannot switch this off.)
    settings = load_settings()
    dirs = (*settings.rule_dirs, *(getattr(options, "dynlint_rules", None) or []))
    select = getattr(options, "dynlint_select", None)
    if select is None:
        select = settings.select
    named = [s.strip().upper() for s in [*(options.select or []), *(options.extend_select or [])]]
    specific = tuple(s for s in named if any(ch.isdigit() for ch in s))
    engine = _build(dirs, select, settings.extend_select, settings.ignore, specific,
                    _flake8_filter(options))
    return engine, settings


def _build(dirs, select, extend_select, ignore, specific=(), keep=None):
    from ..project.config import select_rules
    from ..engine.match import Engine
    from ..engine.rules import load_rules

    rules = load_rules(list(dirs))
    extra = [r.code for r in rules if specific and r.code.startswith(specific)]
    chosen = select_rules(rules, select, [*extend_select, *extra], ignore)
    if keep is not None:
        chosen = [r for r in chosen if keep(r.code)]
    key = (dirs, tuple(r.path for r in chosen))
    engine = _ENGINES.get(key)
    if engine is None:
        engine = _ENGINES[key] = Engine(chosen)
    return engine


def _flake8_filter(options):
    """flake8's own verdict on a code from --select/--ignore/--extend-ignore (per-file-ignores
    can only drop more), so rules whose findings flake8 would discard are not run at all."""
    try:
        from flake8.style_guide import Decision, DecisionEngine
        decider = DecisionEngine(options)
        return lambda code: decider.decision_for(code) is Decision.Selected
    except Exception:               # a flake8 without this internal API: run every rule
        return None
