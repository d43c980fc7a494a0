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

`[tool.dynlint]` is resolved per checked file as `dynlint check` resolves it (the closest
config at or above the file, its patterns relative to that config), so flake8 run from a
subdirectory or from above the project reports what it reports from the project root.
"""
from __future__ import annotations

import os

from .. import __version__

# One engine per process and configuration: flake8 calls parse_options once per process (and
# once per worker when it cannot fork), the legacy API may call it again in-process.
_ENGINES: dict[tuple, object] = {}


class Plugin:
    name = "dynlint"
    version = __version__

    _engine = None                      # set by parse_options: for the current directory's config
    _settings = None                    # [tool.dynlint] of the current directory
    _resolver = None                    # the per-file config resolution (set by parse_options)
    _choices = None                     # what flake8's options say about the rules to run
    _by_settings: dict = {}             # id(Settings) -> Engine, for files under other configs

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
            cls._engine, cls._settings, cls._resolver, cls._choices = _configure(options)
            cls._by_settings = {}
        except RuleError as exc:
            # flake8 prints an ExecutionError as "There was a critical error ..." + message
            # and exits 1, without a traceback.
            raise ExecutionError(f"dynlint: invalid rule: {exc}") from None
        except ConfigError as exc:
            raise ExecutionError(f"dynlint: {exc}") from None

    # -- checking -----------------------------------------------------------------------------
    @classmethod
    def _for_file(cls, filename):
        """(engine, settings) for a file: its own config's, as `dynlint check` resolves it."""
        if cls._resolver is None:
            if cls._engine is None:         # used without flake8's option parsing: defaults
                cls._engine = _build((), None, (), ())
            return cls._engine, cls._settings
        settings = cls._resolver.settings_for(os.path.abspath(filename))
        if settings is cls._settings:
            return cls._engine, settings
        engine = cls._by_settings.get(id(settings))
        if engine is None:
            engine = cls._by_settings[id(settings)] = _engine_for(settings, cls._choices)
        return engine, settings

    def run(self):
        from ..engine.rules import RuleError
        from ..project.config import ConfigError
        try:
            engine, settings = self._for_file(self.filename)
        except (ConfigError, RuleError) as exc:
            # A broken config below the current directory: flake8 goes on with other files.
            yield 1, 0, f"DYN999 dynlint: invalid configuration: {exc}", type(self)
            return
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
        if settings is not None and settings.per_file_ignores:
            from ..project.config import per_file_ignored
            findings = [f for f in findings if not per_file_ignored(self.filename, f.code, settings)]
        for f in findings:
            yield f.line, f.column - 1, f"{f.code} {f.message}", type(self)


def _configure(options):
    from ..project.resolve import Resolver
    # [tool.dynlint] applies under flake8 too, so both tools agree in a configured project.
    # (flake8 consumes its --isolated before plugins see the options: it cannot switch this off.)
    resolver = Resolver()
    settings = resolver.settings_for_dir(os.getcwd())     # its errors stop flake8 at once
    named = [s.strip().upper() for s in [*(options.select or []), *(options.extend_select or [])]]
    choices = (tuple(getattr(options, "dynlint_rules", None) or []),
               getattr(options, "dynlint_select", None),
               tuple(s for s in named if any(ch.isdigit() for ch in s)),
               _flake8_filter(options))
    return _engine_for(settings, choices), settings, resolver, choices


def _engine_for(settings, choices):
    rule_dirs, select, specific, keep = choices
    return _build((*settings.rule_dirs, *rule_dirs),
                  settings.select if select is None else select,
                  settings.extend_select, settings.ignore, specific, keep)


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
