"""The `check` command's configuration side: `--config`, the file options, `--show-settings`,
`--show-files`, stdin's file name, and telling a mistyped subcommand from a path."""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from ..project.config import ConfigError, parse_inline
from ..project.resolve import Resolver


def add_arguments(files, run) -> None:
    """Options added to the `files` and `run` groups of `dynlint check`."""
    files.add_argument("--respect-gitignore", dest="respect_gitignore", action="store_true",
                       default=None, help="skip files ignored by .gitignore (the default)")
    files.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false",
                       help="do not read .gitignore files")
    files.add_argument("--show-files", action="store_true",
                       help="print the files that would be checked, and exit")
    files.add_argument("--show-settings", metavar="FILE",
                       help="print the settings that apply to FILE and the config file they "
                            "come from, and exit")
    run.add_argument("--config", action="append", default=[], metavar="FILE|KEY=VALUE",
                     help="a config file (dynlint.toml or pyproject.toml) used for every file "
                          "instead of discovery; or one setting as TOML, e.g. "
                          "--config 'ignore = [\"DYN203\"]' (repeatable; overrides config files)")


def build_plan(args):
    from ..check.plan import Plan
    config_file = None
    overrides = []
    for value in args.config:
        if _looks_like_file(value):
            if config_file is not None:
                raise ConfigError(f"--config {value}: only one config file can be given "
                                  f"(already {config_file}); use KEY=VALUE for single settings")
            config_file = Path(value)
        else:
            overrides.append((parse_inline(value), f"--config {value!r}"))
    for option, key, value in (("--exclude", "exclude", args.exclude),
                               ("--extend-exclude", "extend-exclude", args.extend_exclude or None),
                               ("--max-file-size", "max-file-size", args.max_file_size),
                               ("--cache-dir", "cache-dir", args.cache_dir),
                               ("--respect-gitignore", "respect-gitignore", args.respect_gitignore)):
        if value is not None:
            overrides.append(({key: value}, option))
    resolver = Resolver(config=config_file, overrides=overrides, isolated=args.isolated)
    return Plan(resolver, args.rules, cli=(args.select, args.extend_select, args.ignore))


def _looks_like_file(value: str) -> bool:
    if "=" in value and not os.path.exists(value):
        return False
    return True


def stdin_requested(args) -> bool:
    """`-` as the only path, or `--stdin-filename` with no path at all (as ruff does)."""
    return args.paths == ["-"] or (not args.paths and args.stdin_filename is not None)


def stdin_excluded(args, plan) -> bool:
    """`--stdin-filename X --force-exclude`: X's own settings decide whether it is skipped."""
    from ..project.discover import force_excluded
    if not args.stdin_filename:
        return False
    settings = plan.settings_for(args.stdin_filename)
    return (args.force_exclude or settings.force_exclude) and \
        force_excluded(args.stdin_filename, settings)


def show_files(args, plan) -> int:
    from ..project.discover import discover
    files, diags = discover(args.paths or ["."], plan.resolver, args.force_exclude)
    for f in files:
        print(os.path.abspath(f))
    for d in diags:
        print(f"dynlint: warning: {d.path}: {d.message}", file=sys.stderr)
    if not files:
        warn_no_files(args.paths or ["."])
    return 0


def show_settings(path: str, plan) -> int:
    profile = plan.profile_for(path)
    s = profile.settings
    origin = s.origins

    def line(key, value):
        where = origin.get(key)
        return f"{key} = {value}" + (f"    # {where}" if where else "")

    def strings(values):
        return "[" + ", ".join(f'"{v}"' for v in values) + "]"

    out = [f"Resolved settings for: {os.path.abspath(path)}",
           f"Settings path: {s.config_file if s.config_file else 'none (defaults)'}",
           f"Patterns relative to: {s.root}", "",
           line("select", strings(s.select) if s.select is not None else "(rules on by default)"),
           line("extend-select", strings(s.extend_select)),
           line("ignore", strings(s.ignore))]
    if plan.cli != (None, [], []):
        out.append(f"# command line: --select {plan.cli[0]} --extend-select {plan.cli[1]} "
                   f"--ignore {plan.cli[2]}")
    out.append("per-file-ignores = {")
    for e in s.per_file_ignores:
        applies = "applies to this file" if e.applies_to(path) else "does not apply"
        out.append(f'    "{e.pattern}" = {strings(e.codes)},    # {e.origin}, relative to '
                   f"{e.base}; {applies}")
    out.append("}")
    for key, pairs in (("exclude", s.exclude), ("extend-exclude", s.extend_exclude)):
        if key not in origin:
            out.append(f"{key} = {strings(t for _, t in pairs)}    # default")
            continue
        out.append(line(key, "["))
        out += [f'    "{text}",    # relative to {base}' for base, text in pairs]
        out.append("]")
    out += [line("respect-gitignore", str(s.respect_gitignore).lower()),
            line("force-exclude", str(s.force_exclude).lower()),
            line("rule-dirs", strings(s.rule_dirs)),
            line("max-file-size", str(s.max_file_size)),
            line("cache-dir", f'"{s.cache_path()}"'), "",
            f"# enabled for this file ({len(profile.codes)}): {', '.join(sorted(profile.codes))}"]
    ignored = s.ignored_codes(path)
    if ignored:
        out.append(f"# per-file-ignores for this file: {', '.join(ignored)}")
    print("\n".join(out))
    return 0


def warn_no_files(paths) -> None:
    """Like ruff's warning, for directories (a file dropped by --force-exclude, as
    pre-commit passes them, is not worth a warning)."""
    if not any(os.path.isdir(p) for p in paths):
        return
    print(f"dynlint: warning: No Python files found under {', '.join(paths)}", file=sys.stderr)


def subcommand_typo(word: str, commands) -> str | None:
    """A usage error for `dynlint chekc .` or `dynlint linter`: the first argument names no
    file or directory and looks like a subcommand (close to one, or a bare word)."""
    if word == "-" or os.path.lexists(word):
        return None
    import difflib                      # only for a mistyped command
    close = difflib.get_close_matches(word, commands, n=1, cutoff=0.6)
    if not close and not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", word):
        return None                  # looks like a path (a dot, a slash): "no such file" later
    msg = f"dynlint: error: unrecognized subcommand '{word}'"
    if close:
        msg += f"; did you mean '{close[0]}'?"
    msg += (f"\n\n  commands: {', '.join(commands)}"
            f"\n  (a path to check must exist: `dynlint check PATH`)"
            f"\n\nusage: dynlint [-h] [--version] COMMAND ...")
    return msg
