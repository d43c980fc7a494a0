"""`dynlint shapes` and `dynlint compiles`.  Exit codes: 0 fine, 1 the CI guard tripped
(--fail-over, --fail-if-not-settled), 2 usage errors, a factory that fails, an empty loader, an
unreadable or malformed record.  Errors are one line on stderr, never a traceback
(DYNLINT_DEBUG=1 shows it)."""
from __future__ import annotations

import argparse
import json
import os
import sys
import traceback

SHAPES_DESCRIPTION = """\
Scan a data loader's batches and report how many distinct input shapes it produces: each one
is a graph compile on Gaudi lazy mode, torch.compile (static) or XLA.  Prints the shapes with
counts, the guides' "Number of unique shapes" and "There is {no|a little|some|a lot of}
dynamicity in input data shapes" verdict (1 / 2-5 / 6-20 / >20 shapes), which dimensions vary
and which vary together, how late new shapes still appear, the shapes covering 95%%/99%% of
batches, a last-partial-batch diagnosis and a fix hint.  Shapes are never hashed: output is
identical across runs and ranks."""
SHAPES_EPILOG = """\
examples:
  dynlint shapes --entry train:make_loader
  dynlint shapes --entry train.py:make_loader --max-batches 2000 --format json > shapes.json
  dynlint shapes --entry train:make_loader --world-size 8     # compile stalls on 8 cards
  dynlint shapes --entry train:make_loader --fail-over 8      # CI: exit 1 above 8 shapes

exit codes: 0 done, 1 more shapes than --fail-over, 2 usage/factory/loader error"""
COMPILES_DESCRIPTION = """\
Read recompilation records and say, per step, how many graph compilations happened and whether
they settled: "settled" (all in the first step), "settled after warm-up" (compiles stopped and
stayed stopped for at least as long again, or within --warmup), or "not settled".  Reads Gaudi
PT_HPU_METRICS_FILE dumps (JSON, also truncated by a crash, or text; rank-suffixed files are
merged), torch.compile TORCH_TRACE logs (a directory or files) and TORCH_LOGS=recompiles output
(with the recompile reasons), and torch_xla metrics reports.  Steps come from mark_step dumps
(Gaudi: PT_HPU_METRICS_DUMP_TRIGGERS=process_exit,metric_change,mark_step), from
dynlint.compiles.mark_step()/watch() markers in a TORCH_TRACE, from --step-regex in text logs,
or from one XLA report per step."""
COMPILES_EPILOG = """\
examples:
  dynlint compiles metricslog-rank0.json metricslog-rank1.json
  dynlint compiles /tmp/trace_dir --shapes shapes.json     # which compiles had no new input shape
  dynlint compiles train.log --step-regex '^step \\d+' --format json

With --shapes (the JSON of `dynlint shapes` on the same loader), a compile at a step that brought
no new input shape points at dynamic ops in the model: run `dynlint confirm` on it.

exit codes: 0 read, 1 not settled with --fail-if-not-settled, 2 unreadable/malformed input"""


def _positive(value: str) -> int:
    n = int(value)
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def _nonnegative(value: str) -> int:
    n = int(value)
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return n


def shapes_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dynlint shapes", description=SHAPES_DESCRIPTION, epilog=SHAPES_EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--entry", required=True, metavar="MODULE:FACTORY",
                   help="MODULE:FUNCTION or FILE.py:FUNCTION; the function takes no arguments and returns "
                        "a DataLoader or any iterable of batches (or (model, batches), as for confirm)")
    budget = p.add_argument_group("budget (a sample is reported as such)")
    budget.add_argument("--max-batches", type=_positive, metavar="N", help="stop after N batches")
    budget.add_argument("--max-seconds", type=float, metavar="S", help="stop after S seconds")
    budget.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bar on stderr (default: only when stderr is a terminal)")
    dist = p.add_argument_group("distributed")
    dist.add_argument("--world-size", type=_positive, metavar="N",
                      help="simulate N data-parallel ranks: compile stall steps with per-rank caches and "
                           "with a shared recipe cache, against the N*(S-1)+1 worst case")
    dist.add_argument("--shard", choices=("auto", "sampler", "batches"), default="auto",
                      help="sampler: re-batch each rank with DistributedSampler (a DataLoader over a "
                           "map-style dataset; rescans); batches: batch i to rank i %% N (any iterable); "
                           "auto: sampler when possible")
    out = p.add_argument_group("output")
    out.add_argument("--format", choices=("text", "json", "csv"), default="text")
    out.add_argument("--top", type=_nonnegative, default=20, metavar="N",
                     help="shapes listed in text output (0: all; default 20)")
    out.add_argument("-o", "--output-file", metavar="FILE", help="write the report to FILE")
    out.add_argument("--fail-over", type=_nonnegative, metavar="N",
                     help="exit 1 when there are more than N distinct shapes (a CI guard)")
    return p


def compiles_parser() -> argparse.ArgumentParser:
    from .compiles.read import FORMATS

    p = argparse.ArgumentParser(prog="dynlint compiles", description=COMPILES_DESCRIPTION,
                                epilog=COMPILES_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="records; a directory stands for its *.log files (a TORCH_TRACE dir)")
    p.add_argument("--input-format", choices=FORMATS, default="auto", help="default: detected per file")
    p.add_argument("--warmup", type=_nonnegative, metavar="W",
                   help="steps allowed to compile; a compile at step >= W means not settled "
                        "(default: the step by which --shapes saw every shape, else judged from the run)")
    p.add_argument("--shapes", metavar="SHAPES.json",
                   help="`dynlint shapes --format json` of the same loader: join compiles with first-seen shapes")
    p.add_argument("--mark-steps-per-step", type=_positive, default=1, metavar="M",
                   help="Gaudi: mark_step calls per training step (e.g. 2 with a mark_step after backward "
                        "and after optimizer.step()); default 1")
    p.add_argument("--step-regex", metavar="REGEX",
                   help="text logs: a line matching REGEX ends a step (your loop's own progress print)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--fail-if-not-settled", action="store_true", help="exit 1 unless settled (a CI guard)")
    return p


def _error(prog: str, exc: BaseException) -> int:
    print(f"dynlint {prog}: error: {exc}", file=sys.stderr)
    if os.environ.get("DYNLINT_DEBUG"):
        traceback.print_exception(exc)
    return 2


def _parse(parser, argv):
    try:
        return parser.parse_args(argv), None
    except SystemExit as exc:  # argparse: 2 on usage errors, 0 on --help
        return None, int(exc.code or 0)


def _emit(text: str, output_file: str | None) -> None:
    if output_file:  # atomic: a reader never sees half a report
        import tempfile
        directory = os.path.dirname(os.path.abspath(output_file))
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".dynlint-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, output_file)
        except BaseException:
            os.unlink(tmp)
            raise
    else:
        sys.stdout.write(text)


def load_batches(entry: str):
    """Import MODULE:FACTORY, call it, and return what it made (batches of a (model, batches) pair)."""
    from ..confirm.cli import load_factory
    from .shapes import ScanError

    try:
        factory = load_factory(entry)
    except Exception as exc:  # ConfirmError: a clear message already
        raise ScanError(str(exc)) from exc
    try:
        made = factory()
    except Exception as exc:
        raise ScanError(f"--entry: {entry}() raised {type(exc).__name__}: {exc}") from exc
    if isinstance(made, tuple) and len(made) == 2 and "torch" in sys.modules:
        import torch
        if isinstance(made[0], torch.nn.Module):
            return made[1]
    return made


def shapes_main(argv: list[str]) -> int:
    args, code = _parse(shapes_parser(), argv)
    if args is None:
        return code
    from .shapes import ScanError, render_csv, render_text, scan

    try:
        loader = load_batches(args.entry)
        result = scan(loader, max_batches=args.max_batches, max_seconds=args.max_seconds,
                      progress=args.progress, world_size=args.world_size, shard=args.shard)
        d = result.to_dict()
        if args.format == "json":
            text = json.dumps(d, indent=2, sort_keys=False) + "\n"
        elif args.format == "csv":
            text = render_csv(d)
        else:
            text = render_text(result, top=args.top, d=d)
        _emit(text, args.output_file)
    except (ScanError, OSError) as exc:
        return _error("shapes", exc)
    except KeyboardInterrupt:
        print("dynlint shapes: interrupted", file=sys.stderr)
        return 130
    return 1 if args.fail_over is not None and d["unique_shapes"] > args.fail_over else 0


def compiles_main(argv: list[str]) -> int:
    args, code = _parse(compiles_parser(), argv)
    if args is None:
        return code
    from .compiles import CompilesError, analyse, load_shapes_json, render_text

    try:
        shapes = load_shapes_json(args.shapes) if args.shapes else None
        report = analyse(args.files, args.input_format, warmup=args.warmup, shapes=shapes,
                         mark_steps_per_step=args.mark_steps_per_step, step_regex=args.step_regex)
        d = report.to_dict()
        sys.stdout.write(json.dumps(d, indent=2) + "\n" if args.format == "json" else render_text(d))
    except CompilesError as exc:
        return _error("compiles", exc)
    return 1 if args.fail_if_not_settled and d["settled"] is not True else 0
