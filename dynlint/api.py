"""The Python API: the same engine and settings as the CLI, without the printing."""
from __future__ import annotations

from pathlib import Path

from .project.config import Settings, select_rules
from .engine.match import Engine
from .finding import Finding
from .engine.rules import load_rules
from .check.runner import analyse_source, run_check


def build_engine(settings: Settings | None = None, select=None, extend_select=(), ignore=(),
                 rule_dirs=()) -> Engine:
    settings = settings or Settings()
    rules = load_rules([*settings.rule_dirs, *rule_dirs])
    chosen = select_rules(rules, settings.select, settings.extend_select, settings.ignore,
                          cli=(select, list(extend_select), list(ignore)), target=settings.target)
    return Engine(chosen)


def scan(paths, select=None, extend_select=(), ignore=(), rule_dirs=(), config=None,
         use_cache=False, jobs=None, cross_file=True) -> list[Finding]:
    """Findings for files and directories, sorted by path, line and column.

    Each file gets the settings of its closest config file (as `dynlint check` does), or
    `config` for every file; the keyword arguments override them like the CLI flags do.
    """
    from .check.plan import Plan
    from .project.resolve import Resolver
    plan = Plan(Resolver(config=Path(config) if config else None), rule_dirs,
                cli=(select, list(extend_select), list(ignore)))
    findings, _ = run_check([str(p) for p in paths], plan, use_cache=use_cache, jobs=jobs,
                            cross_file=cross_file)
    return findings


def check_source(text: str, path: str = "<string>", select=None, ignore=(),
                 rule_dirs=()) -> list[Finding]:
    """Findings for one module given as text."""
    return analyse_source(build_engine(None, select, (), ignore, rule_dirs), text, path)[0]
