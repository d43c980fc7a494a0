"""`dynlint check`'s output switches and the end of a run: report, summary, exit code.

ruff's conventions: fixable findings marked `[*]`; its hint wording; `--show-fixes` lists what
`--fix` changed per file; `--diff` ends with a count; `-e/--exit-zero`, `-q/--quiet`,
`-s/--silent`, `--exit-non-zero-on-fix`; `--add-noqa` for adopting on a big repository.
"""
from __future__ import annotations

import os
import sys
from collections import Counter

from ..project.config import OUTPUT_FORMATS, ConfigError

ENV_FORMAT = "DYNLINT_OUTPUT_FORMAT"


def output_format(option: str | None, plan) -> str:
    """As ruff chooses: `--output-format`, else $DYNLINT_OUTPUT_FORMAT, else `output-format` in
    the config that applies to the current directory, else `full`."""
    if option:
        return option
    env = os.environ.get(ENV_FORMAT)
    if env:
        if env not in OUTPUT_FORMATS:
            raise ConfigError(f"{ENV_FORMAT}={env!r}: must be one of {', '.join(OUTPUT_FORMATS)}")
        return env
    return plan.resolver.settings_for_dir(os.getcwd()).output_format or "full"


def add_arguments(check) -> None:
    out = check.add_argument_group("output and adoption")
    out.add_argument("-s", "--silent", action="store_true",
                     help="print nothing (the exit code still says whether there are findings)")
    out.add_argument("--exit-non-zero-on-fix", action="store_true",
                     help="exit 1 if --fix changed any file, even if no finding remains")
    out.add_argument("--add-noqa", action="store_true",
                     help="add `# noqa: CODE` to every flagged line (merged with existing "
                          "directives; comments kept) and exit 0")
    out.add_argument("--show-fix-suggestions", action="store_true",
                     help="print each finding's suggested fix under it (the old --show-fixes)")


def add_noqa(findings) -> int:
    from ..fix.add_noqa import add_noqa as run
    added, messages = run(findings)
    for m in messages:
        print(f"dynlint: warning: {m}", file=sys.stderr)
    print(f"Added {added} noqa directive{'' if added == 1 else 's'}.", file=sys.stderr)
    return 0


def fixed_counts(before, after) -> dict:
    """{path: Counter(code -> fixed)} from the findings before and after fixing."""
    b = Counter((f.path, f.code, f.name) for f in before if f.fix is not None)
    a = Counter((f.path, f.code, f.name) for f in after)
    out: dict = {}
    for (path, code, name), n in b.items():
        k = n - a.get((path, code, name), 0)
        if k > 0:
            out.setdefault(path, Counter())[(code, name)] += k
    return out


def show_fixes(counts, fixed: int) -> str:
    """ruff's `--show-fixes` block: what `--fix` changed, per file and rule."""
    if not fixed:
        return ""
    lines = [f"\nFixed {fixed} issue{'' if fixed == 1 else 's'}:"]
    for path in sorted(counts):
        lines.append(f"- {path}:")
        for (code, name), n in sorted(counts[path].items()):
            lines.append(f"    {n} × {code} ({name})")
    return "\n".join(lines) + "\n\n"
