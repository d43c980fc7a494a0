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
from ..project.config import ConfigError
from ..report.formats import FORMATS
from . import cli_output
from . import check_config

COMMANDS = ("check", "rules", "rule", "predicates", "confirm", "shapes", "compiles", "buckets",
            "server")
EPILOG = """\
commands:
  check PATH...      lint files and directories (the default: `dynlint PATH` = `dynlint check PATH`)
  rules              list every rule: code, name, default on/off, fix safety
  rule CODE          explain one rule: what it flags, why, an example, the static alternative
  predicates         list the named conditions YAML rules can use
  confirm PATH...    run the model and confirm findings through a recompilation detector
  shapes --entry M:F how many input shapes a data loader produces (dynamic inputs)
  compiles FILE...   compiles per step from Gaudi/torch.compile/XLA records: do they settle?
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
    check.add_argument("paths", nargs="*", default=[],
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
                       help="read the source from standard input and check it as this file: its "
                            "config, per-file-ignores and --force-exclude apply")
    files.add_argument("--max-file-size", type=int, metavar="BYTES",
                       help="skip (and report DYN904 for) bigger files; 0 = no limit (default 5 MB)")
    fix = check.add_argument_group("fixes")
    fix.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    fix.add_argument("--unsafe-fixes", action="store_true",
                     help="also apply fixes that may change shapes a caller can see")
    fix.add_argument("--diff", action="store_true",
                     help="print the fixes as a unified diff instead of writing them (exit 1 if any)")
    fix.add_argument("--show-fixes", action="store_true",
                     help="list what --fix changed (with --diff: would change), per file and rule")
    fix.add_argument("--apply-display-only", action="store_true",
                     help="with --fix/--diff, also apply display-only suggestions (e.g. mark_step splits)")
    out = check.add_argument_group("output")
    out.add_argument("--format", "--output-format", dest="format", choices=FORMATS, default=None,
                     help="full (the default: source line, caret, fix diff), concise (= text), "
                          "json, json-lines, sarif, github, gitlab, junit, pylint "
                          "[env: DYNLINT_OUTPUT_FORMAT; config: output-format]")
    out.add_argument("-o", "--output-file", metavar="FILE", help="write the report to FILE")
    out.add_argument("--statistics", action="store_true", help="print a count per rule instead")
    out.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    out.add_argument("--explain", action="extend", nargs="+", default=[], metavar="FILE:LINE",
                     help="say why each line is model code, cold or neutral (the call chain from "
                          "an entry point, across files) and list its findings")
    out.add_argument("-e", "--exit-zero", action="store_true", help="exit 0 even when there are findings")
    run = check.add_argument_group("run")
    run.add_argument("--isolated", action="store_true", help="ignore configuration files")
    run.add_argument("--no-cache", action="store_true", help="do not read or write .dynlint_cache")
    run.add_argument("--cache-dir", metavar="DIR", default=os.environ.get("DYNLINT_CACHE_DIR") or None,
                     help="where to keep the cache (default: $DYNLINT_CACHE_DIR, else the "
                          "config's cache-dir, else .dynlint_cache)")
    run.add_argument("-j", "--jobs", type=int, metavar="N", help="worker processes (default: all cores)")
    cli_output.add_arguments(check)
    run.add_argument("--no-cross-file", action="store_true",
                     help="judge each file on its own: do not follow model code into functions "
                          "defined in the other files checked (this is what flake8 sees)")
    check_config.add_arguments(files, run)

    rules = sub.add_parser("rules", help="list rules")
    rules.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    rules.add_argument("--rules", action="append", default=[], metavar="DIR")
    rules.add_argument("--update", metavar="FILE",
                       help="rewrite the generated table between the rules-table markers in FILE")
    rule = sub.add_parser("rule", help="explain one rule")
    rule.add_argument("code", nargs="?")
    rule.add_argument("--all", action="store_true", help="explain every rule")
    rule.add_argument("--rules", action="append", default=[], metavar="DIR")
    sub.add_parser("predicates", help="list the predicates YAML rules can use")
    sub.add_parser("confirm", help="confirm findings by running the model", add_help=False)
    sub.add_parser("shapes", help="input shapes of a data loader", add_help=False)
    sub.add_parser("compiles", help="read recompilation records", add_help=False)
    sub.add_parser("buckets", help="choose bucket boundaries for variable-length inputs", add_help=False)
    return top


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "confirm":
        from ..confirm.cli import main as confirm_main
        return confirm_main(argv[1:])
    if argv and argv[0] == "buckets":
        from ..inputs.buckets_cli import main as buckets_main
        return buckets_main(argv[1:])
    if argv and argv[0] in ("shapes", "compiles"):  # input dynamicity: dynlint/inputs/cli.py
        from ..inputs import cli as inputs_cli
        return getattr(inputs_cli, f"{argv[0]}_main")(argv[1:])
    if argv and argv[0] == "server":
        from .server_entry import main as server_main
        return server_main(argv[1:])
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-"):
        typo = check_config.subcommand_typo(argv[0], COMMANDS)
        if typo:
            print(typo, file=sys.stderr)
            return 2
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
    from ..report.file_diagnostics import FILE_DIAGNOSTICS
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
        sys.stdout.write(docs.rules_table([*rules, *FILE_DIAGNOSTICS], args.format))
        return 0
    if args.all or not args.code:
        if not args.all:
            print("dynlint: error: give a rule code or --all", file=sys.stderr)
            return 2
        sys.stdout.write("\n".join(docs.rule_doc(r) for r in [*rules, *FILE_DIAGNOSTICS]))
        return 0
    matches = [r for r in [*rules, *FILE_DIAGNOSTICS]
               if r.code == args.code.upper() or r.name == args.code]
    if not matches:
        print(f"dynlint: error: unknown rule {args.code!r}; see `dynlint rules`", file=sys.stderr)
        return 2
    sys.stdout.write(docs.rule_doc(matches[0]))
    return 0


def _check(args) -> int:
    from ..report import formats as report
    from ..check.runner import analyse_source, run_check
    from .stdin import check_stdin

    plan = check_config.build_plan(args)
    args.format = cli_output.output_format(args.format, plan)
    if args.show_settings:
        return check_config.show_settings(args.show_settings, plan)
    if args.show_files:
        return check_config.show_files(args, plan)
    if args.explain:
        return _explain(args, plan)
    fixing = args.fix or args.diff
    for path in [args.stdin_filename or "."] + [p for p in args.paths if p != "-"]:
        plan.profile_for(path)            # unknown selectors are an error even with no files

    stdin_text = None
    if check_config.stdin_requested(args):
        if check_config.stdin_excluded(args, plan):
            if fixing and not args.diff:          # like ruff: an excluded file passes through
                sys.stdout.write(sys.stdin.read())
            return 0
        (findings, stdin_text), n_files = check_stdin(args, plan, analyse_source), 1
    else:
        findings, n_files = run_check(args.paths or ["."], plan, use_cache=not args.no_cache,
                                      jobs=args.jobs, force_exclude=args.force_exclude,
                                      cross_file=not args.no_cross_file)
        if n_files == 0 and not findings:
            check_config.warn_no_files(args.paths or ["."])
    if args.add_noqa:
        return cli_output.add_noqa(findings)
    rules = plan.enabled_rules()
    engine = plan.engine_for(args.stdin_filename or ".") if stdin_text is not None else None
    fixed = 0
    diff_text = ""
    fixed_source = None
    before = findings
    if fixing and (findings or stdin_text is not None):
        from ..fix.apply import apply_fixes
        result = apply_fixes(findings, engine=engine, plan=plan, unsafe=args.unsafe_fixes,
                             display_only=args.apply_display_only, write=not args.diff,
                             stdin=stdin_text, jobs=args.jobs, stdin_path=args.stdin_filename)
        findings, fixed, diff_text = result.remaining, result.fixed, result.diff
        if fixed and not args.diff:
            from ..report import snippets
            snippets.forget_all()         # the lines kept before fixing may have moved
        fixed_source = result.output
        for message in result.messages:
            print(f"dynlint: {message}", file=sys.stderr)

    unsafe_on = args.unsafe_fixes
    safe = sum(1 for f in findings if report.fixable(f, unsafe_on))
    unsafe = sum(1 for f in findings if f.fix and f.fix.applicability == "unsafe")
    text_like = args.format in ("text", "concise", "full")
    if args.diff:
        body = diff_text
        if not args.quiet:
            would = sum(1 for f in before if report.fixable(f, unsafe_on)) if diff_text else 0
            hidden = 0 if unsafe_on else sum(1 for f in before if f.fix and f.fix.applicability == "unsafe")
            sys.stderr.write(report.diff_summary(would, hidden))
    elif args.statistics:
        body = report.statistics(findings, args.format, unsafe_on)
    else:
        body = report.render(findings, args.format, rules, args.show_fix_suggestions, unsafe_on)
    if args.show_fixes and fixing and not args.diff and text_like:
        body += cli_output.show_fixes(cli_output.fixed_counts(before, findings), fixed)
    if text_like and not args.quiet and not args.diff and not args.statistics:
        body += report.summary(findings, fixed, safe, 0 if unsafe_on else unsafe)
    if args.silent:
        body = ""
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
    if args.exit_non_zero_on_fix and fixed and not args.diff:
        return 1
    if args.exit_zero:
        return 0
    if args.diff:
        return 1 if diff_text else 0
    return 1 if findings else 0


def _explain(args, plan) -> int:
    from ..check.explain import ExplainError, explain, parse_target
    try:
        targets = [parse_target(t) for t in args.explain]
    except ExplainError as exc:
        print(f"dynlint: error: {exc}", file=sys.stderr)
        return 2
    report, found = explain(targets, [p for p in args.paths if p != "-"], plan,
                            use_cache=not args.no_cache, jobs=args.jobs,
                            cross_file=not args.no_cross_file)
    _emit(report, args.output_file)
    return 1 if found and not args.exit_zero else 0


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
