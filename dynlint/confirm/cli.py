"""`dynlint confirm` / `python -m dynlint.confirm`.

Exit codes: 0 nothing confirmed, 1 at least one finding confirmed,
2 usage errors, a factory that cannot be imported or run, a model that raises.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
import traceback

DESCRIPTION = ("Run a model and confirm or clear dynlint's static findings: which flagged lines really "
               "change shapes or force graph recompilation.")
FACTORY_HELP = ("MODULE:FUNCTION or FILE.py:FUNCTION. The function takes no arguments and returns "
                "(model, batches): an nn.Module and an iterable of batches; a Tensor batch is passed as "
                "model(batch), a tuple as model(*batch), a Mapping (dict, UserDict, BatchEncoding) as "
                "model(**batch), anything else (a graph batch object, a dataclass, a namedtuple) as model(batch).")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATHS", help="files or directories to scan statically")
    parser.add_argument("--entry", required=True, metavar="MODULE:FACTORY", help=FACTORY_HELP)
    parser.add_argument("--steps", type=int, default=5, help="batches to run (default: 5)")
    parser.add_argument("--warmup", type=int, default=1, metavar="N",
                        help="run batch 0 N more times before step 0; their compiles are reported as warm-up, "
                             "not data dependence (default: 1)")
    parser.add_argument("--backend", choices=("auto", "hpu", "emulate", "compile"), default="auto",
                        help="recompilation detector (default: auto = hpu if habana_frameworks imports, "
                             "else emulate)")
    parser.add_argument("--out", metavar="DIR", help="write the tables as CSV and everything as JSON here")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--findings", metavar="FILE.json",
                        help="use findings saved as JSON instead of scanning PATHS again")
    parser.add_argument("--max-captures", type=int, default=4,
                        help="input snapshots kept per flagged module for replay (default: 4)")
    parser.add_argument("--seed", type=int, default=0, help="seed for value perturbation (default: 0)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dynlint confirm", description=DESCRIPTION)
    add_arguments(parser)
    return parser


def load_factory(entry: str):
    from .findings import ConfirmError

    target, sep, attr = entry.rpartition(":")
    if not sep or not target or not attr:
        raise ConfirmError(f"--entry must look like package.module:factory or path/file.py:factory, got {entry!r}")
    try:
        if target.endswith(".py") or os.sep in target:
            if not os.path.isfile(target):
                raise ConfirmError(f"--entry: no such file {target!r}")
            spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(target))[0], target)
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
        else:
            if "" not in sys.path and os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())  # as `python -m` would
            module = importlib.import_module(target)
    except ConfirmError:
        raise
    except BaseException as exc:  # SyntaxError, SystemExit from a script guard, ...
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise ConfirmError(f"cannot import {target!r} for --entry: {type(exc).__name__}: {exc}") from exc
    factory = getattr(module, attr, None)
    if factory is None:
        raise ConfirmError(f"--entry: {target!r} has no attribute {attr!r}")
    if not callable(factory):
        raise ConfirmError(f"--entry: {entry!r} is not callable")
    return factory


def call_factory(factory, entry: str):
    import torch

    from .findings import ConfirmError

    try:
        made = factory()
    except Exception as exc:
        raise ConfirmError(f"--entry: {entry}() raised {type(exc).__name__}: {exc}") from exc
    if not (isinstance(made, tuple) and len(made) == 2):
        raise ConfirmError(f"--entry: {entry}() must return (model, batches), got {type(made).__name__}")
    model, batches = made
    if not isinstance(model, torch.nn.Module):
        raise ConfirmError(f"--entry: {entry}() returned a {type(model).__name__} as model; "
                           "it must be a torch.nn.Module")
    return model, batches


def run(args: argparse.Namespace) -> int:
    from ..extras import MissingExtra, require
    try:
        require("torch", "dynlint confirm")
    except MissingExtra as exc:
        print(f"dynlint confirm: error: {exc}", file=sys.stderr)
        return 2
    try:
        from .findings import ConfirmError, read_findings_file
    except ImportError as exc:  # torch missing
        print(f"dynlint confirm: {exc}", file=sys.stderr)
        return 2
    try:
        from .report import render_text, to_dict, write_outputs
        from .run import run_confirm

        if args.steps < 1:
            raise ConfirmError("--steps must be at least 1")
        if args.warmup < 0:
            raise ConfirmError("--warmup must be 0 or more")
        findings = read_findings_file(args.findings) if args.findings else None
        model, batches = call_factory(load_factory(args.entry), args.entry)
        result = run_confirm(model, batches, args.paths, steps=args.steps, backend=args.backend,
                             findings=findings, max_captures=args.max_captures, seed=args.seed,
                             warmup=args.warmup)
    except ConfirmError as exc:
        print(f"dynlint confirm: error: {exc}", file=sys.stderr)
        if exc.__cause__ is not None and os.environ.get("DYNLINT_DEBUG"):
            traceback.print_exception(exc.__cause__)
        return 2
    except ImportError as exc:
        print(f"dynlint confirm: error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        try:
            written = write_outputs(result, args.out)
        except OSError as exc:
            print(f"dynlint confirm: error: cannot write to --out {args.out}: {exc}", file=sys.stderr)
            return 2
        for path in written:
            print(f"wrote {path}", file=sys.stderr)
    if args.format == "json":
        sys.stdout.write(json.dumps(to_dict(result), indent=2, default=str) + "\n")
    else:
        sys.stdout.write(render_text(result))
    return result.exit_code


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    return run(args)
