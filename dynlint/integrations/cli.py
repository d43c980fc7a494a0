"""The `dynlint` command line.

Exit codes follow ruff: 0 no findings, 1 findings (or a non-empty --diff), 2 usage,
configuration or internal error.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import __version__
from ..project.config import ConfigError, load_settings, select_rules
from ..report.formats import FORMATS

COMMANDS = ("check", "rules", "rule", "predicates", "confirm", "buckets", "server")
EPILOG = """\
commands:
  check PATH...      lint files and directories (the default: `dynlint PATH` = `dynlint check PATH`)
  rules              list every rule: code, name, default on/off, fix safety
  rule CODE          explain one rule: what it flags, why, an example, the static alternative
  predicates         list the named conditions YAML rules can use
  confirm PATH...    run the model and confirm findings through a recompilation detector
  server             Language Server Protocol over stdio, for editors
  buckets            choose bucket boundaries for variable-length inputs (--lengths FILE -k K)

exit codes: 0 clean, 1 findings, 2 usage/config/internal error
"""


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def build_parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="dynlint", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Find PyTorch code whose tensor shapes depend on tensor data: boolean masks, "
                    "nonzero, unique, .item() in forward... Each such shape makes graph compilers "
                    "(Gaudi lazy mode, torch.compile, XLA) recompile.")
    top.add_argument("--version", action="version", version=f"dynlint {__version__}")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser("check", help="lint files and directories",
                           description="Lint Python files for data-dependent tensor shapes.")
    check.add_argument("paths", nargs="*", default=["."],
                       help="files or directories (default: .); `-` reads standard input")
    sel = check.add_argument_group("rule selection")
    sel.add_argument("--select", type=_csv, metavar="CODES",
                     help="comma-separated codes or prefixes to enable (replaces the default set); ALL for every rule")
    sel.add_argument("--extend-select", type=_csv, default=[], metavar="CODES",
                     help="codes or prefixes to enable in addition")
    sel.add_argument("--ignore", type=_csv, default=[], metavar="CODES",
                     help="codes or prefixes to disable")
    sel.add_argument("--rules", action="append", default=[], metavar="DIR",
                     help="an extra directory of YAML rules (repeatable)")
    files = check.add_argument_group("files")
    files.add_argument("--exclude", type=_csv, metavar="PATTERNS",
                       help="glob patterns to skip, replacing the defaults (.git, venvs, build, dist, ...)")
    files.add_argument("--extend-exclude", type=_csv, default=[], metavar="PATTERNS",
                       help="glob patterns to skip in addition to the defaults")
    files.add_argument("--force-exclude", action="store_true",
                       help="apply exclusions to files named on the command line too (for pre-commit)")
    files.add_argument("--stdin-filename", metavar="PATH",
                       help="the name to report for source read from `-`")
    files.add_argument("--max-file-size", type=int, metavar="BYTES",
                       help="skip (and report DYN904 for) bigger files; 0 = no limit (default 5 MB)")
    fix = check.add_argument_group("fixes")
    fix.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    fix.add_argument("--unsafe-fixes", action="store_true",
                     help="also apply fixes that may change shapes a caller can see")
    fix.add_argument("--diff", action="store_true",
                     help="print the fixes as a unified diff instead of writing them (exit 1 if any)")
    fix.add_argument("--show-fixes", action="store_true", help="print the suggested fix under each finding")
    fix.add_argument("--apply-display-only", action="store_true",
                     help="with --fix/--diff, also apply display-only suggestions (e.g. mark_step splits)")
    out = check.add_argument_group("output")
    out.add_argument("--format", "--output-format", dest="format", choices=FORMATS, default="text")
    out.add_argument("-o", "--output-file", metavar="FILE", help="write the report to FILE")
    out.add_argument("--statistics", action="store_true", help="print a count per rule instead")
    out.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    out.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    run = check.add_argument_group("run")
    run.add_argument("--config", metavar="FILE", help="pyproject.toml to read [tool.dynlint] from")
    run.add_argument("--isolated", action="store_true", help="ignore configuration files")
    run.add_argument("--no-cache", action="store_true", help="do not read or write .dynlint_cache")
    run.add_argument("--cache-dir", metavar="DIR", default=os.environ.get("DYNLINT_CACHE_DIR") or None,
                     help="where to keep the cache (default: $DYNLINT_CACHE_DIR, else the "
                          "config's cache-dir, else .dynlint_cache)")
    run.add_argument("-j", "--jobs", type=int, metavar="N", help="worker processes (default: all cores)")
    run.add_argument("--no-cross-file", action="store_true",
                     help="judge each file on its own: do not follow model code into functions "
                          "defined in the other files checked (this is what flake8 sees)")

    rules = sub.add_parser("rules", help="list rules")
    rules.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    rules.add_argument("--rules", action="append", default=[], metavar="DIR")
    rules.add_argument("--update", metavar="FILE",
                       help="rewrite the generated table between the rules-table markers in FILE")
    rule = sub.add_parser("rule", help="explain one rule")
    rule.add_argument("code")
    rule.add_argument("--rules", action="append", default=[], metavar="DIR")
    sub.add_parser("predicates", help="list the predicates YAML rules can use")
    sub.add_parser("confirm", help="confirm findings by running the model", add_help=False)
    sub.add_parser("buckets", help="choose bucket boundaries for variable-length inputs", add_help=False)
    return top


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "confirm":
        from ..confirm.cli import main as confirm_main
        return confirm_main(argv[1:])
    if argv and argv[0] == "buckets":
        from ..inputs.cli import main as buckets_main
        return buckets_main(argv[1:])
    if argv and argv[0] == "server":
        from .server_entry import main as server_main
        return server_main(argv[1:])
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version")):
        argv = ["check", *argv]
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return _check(args)
        return _info(args)
    except ConfigError as exc:
        print(f"dynlint: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("dynlint: interrupted", file=sys.stderr)
        return 130


def _load_rules(dirs):
    from ..engine.rules import RuleError, load_rules
    try:
        return load_rules(dirs)
    except RuleError as exc:
        raise ConfigError(f"invalid rule: {exc}") from None


def _info(args) -> int:
    from ..report import docs
    if args.command == "predicates":
        sys.stdout.write(docs.predicates_doc())
        return 0
    rules = _load_rules(args.rules)
    if args.command == "rules":
        if args.update:
            try:
                changed = docs.update_table(args.update, rules)
            except (OSError, ValueError) as exc:
                raise ConfigError(str(exc)) from None
            print(f"{args.update}: rules table {'updated' if changed else 'already up to date'}")
            return 0
        sys.stdout.write(docs.rules_table(rules, args.format))
        return 0
    matches = [r for r in rules if r.code == args.code.upper() or r.name == args.code]
    if not matches:
        print(f"dynlint: error: unknown rule {args.code!r}; see `dynlint rules`", file=sys.stderr)
        return 2
    sys.stdout.write(docs.rule_doc(matches[0]))
    return 0


def _check(args) -> int:
    from ..report import formats as report
    from ..engine.match import Engine
    from ..engine.rules import rules_fingerprint
    from ..runner import analyse_source, run_check

    settings = load_settings(Path(args.config) if args.config else None, args.isolated)
    if args.exclude is not None:
        settings.exclude = list(args.exclude)
    settings.exclude += args.extend_exclude
    if args.max_file_size is not None:
        settings.max_file_size = args.max_file_size
    if args.cache_dir:
        settings.cache_dir = os.path.abspath(args.cache_dir)     # like ruff: relative to cwd
    all_rules = _load_rules([*settings.rule_dirs, *args.rules])
    rules = select_rules(all_rules, settings.select, settings.extend_select, settings.ignore,
                         cli=(args.select, args.extend_select, args.ignore))
    engine = Engine(rules)
    fixing = args.fix or args.diff

    stdin_text = None
    if args.paths == ["-"]:
        (findings, stdin_text), n_files = _check_stdin(args, engine, analyse_source), 1
    else:
        key = (rules_fingerprint(rules), tuple(r.code for r in rules), settings.max_file_size)
        findings, n_files = run_check(args.paths, settings, engine, use_cache=not args.no_cache,
                                      jobs=args.jobs, force_exclude=args.force_exclude,
                                      cache_key=key, cross_file=not args.no_cross_file)
    fixed = 0
    diff_text = ""
    fixed_source = None
    if fixing and (findings or stdin_text is not None):
        from ..fix.apply import apply_fixes
        result = apply_fixes(findings, engine=engine, settings=settings, unsafe=args.unsafe_fixes,
                             display_only=args.apply_display_only, write=not args.diff,
                             stdin=stdin_text, jobs=args.jobs)
        findings, fixed, diff_text = result.remaining, result.fixed, result.diff
        fixed_source = result.output
        for message in result.messages:
            print(f"dynlint: {message}", file=sys.stderr)

    safe = sum(1 for f in findings if f.fix and f.fix.applicability == "safe")
    unsafe = sum(1 for f in findings if f.fix and f.fix.applicability == "unsafe")
    if args.diff:
        body = diff_text
    elif args.statistics:
        body = report.statistics(findings)
    else:
        body = report.render(findings, args.format, rules, args.show_fixes)
    if args.format == "text" and not args.quiet and not args.diff and not args.statistics:
        body += report.summary(findings, fixed, safe, 0 if args.unsafe_fixes else unsafe)
    if fixed_source is not None and not args.diff:
        # Like ruff: `--fix -` prints the fixed source; the report goes to stderr.
        sys.stdout.write(fixed_source)
        sys.stdout.flush()
        if args.output_file:
            _emit(body, args.output_file)
        else:
            sys.stderr.write(body)
    else:
        _emit(body, args.output_file)
    if args.exit_zero:
        return 0
    if args.diff:
        return 1 if diff_text else 0
    return 1 if findings else 0


def _check_stdin(args, engine, analyse_source):
    from ..project import source
    display = args.stdin_filename or "-"
    data = sys.stdin.buffer.read()
    try:
        text = source.decode(data, display)
    except source.SourceError as exc:
        return [exc.finding], None
    return analyse_source(engine, text, display)[0], text


def _emit(text: str, output_file: str | None) -> None:
    if output_file:
        Path(output_file).parent.mkdir(parents=True, exist_ok=True)
        Path(output_file).write_text(text, encoding="utf-8")
        return
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # Like `head`: the reader went away; do not print a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
