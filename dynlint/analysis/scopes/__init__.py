"""A cheap pre-pass over a module's statements: imports, classes, functions and their roles.

Roles say where a function runs (docs/architecture.md has the full statement):

* model   - roots (`forward` and friends, autograd Functions, Lightning step methods,
            loss/scorer classes, compiled functions, loops that drive a model:
            `steploops.py`, and the methods that run such a loop of their own class),
            what they reach in this file, and functions nested in those; and training
            steps: a function that runs `.backward()` through a loss it computed (its
            minibatch loop only, not followed to callees: `steploops.step_spans`), the
            loop calling such a function once per batch, and the validation epoch the
            same epoch loop runs (`reach._mark_batch_loops`, `_mark_validation_epochs`);
* cold    - `__init__`, weight init, training/eval loops, data code, tests, logging, class
            bodies, `if __name__ == "__main__"`, modules of a test package,
            and what only cold code calls;
* neutral - library code: in scope, reached by nothing in the file (in an example package:
            in scope only when the cross-file step finds model code reaching it); and
            evaluation steps, what an inference loop runs on each batch (`evalsteps.py`),
            whoever calls them.

Roles are computed before the expression walk so that rules limited to model code cost
nothing elsewhere and cold bodies can be skipped. References are read from each function's
text with a regex, which is much cheaper than walking its expressions; a name mentioned only
in a comment may over-approximate reachability, which errs on the side of recall.

The package: `info.py` (what is recorded: `ClassInfo`, `FunctionInfo`, `Scopes`), `naming.py`
(what names say), `scan.py` (the statement scan), `callgraph.py` (who may call whom),
`reach.py` (roots, model reachability, training steps), `cold.py` (cold code and why) and
`crossfile.py` (the facts the cross-file step reads). `index_module` below runs the pre-pass.
"""
from __future__ import annotations

import ast

from .info import FunctionInfo, Scopes
from .reach import apply_roles, assign_roles
from .scan import scan_body


# Packages (or modules) of test code, by the dotted module name (as ruff and pytest tell tests
# by their place): `pyro.distributions.testing.gof`, `torch.testing._internal`. Nothing there
# runs in a user's step.
_TEST_PARTS = frozenset({"test", "tests", "testing", "conftest"})
# Logging modules (`stable_baselines3.common.logger`, `lightning.pytorch.loggers.csv_logs`):
# what they read from a tensor is what they were handed to record, after the step.
_LOGGING_PARTS = frozenset({"logger", "loggers", "logging"})
# Example packages (`pyro.contrib.examples.polyphonic_data_loader`, fairseq's `examples.*`)
# hold models people train, so their model code stays model code; but they are no library:
# no one's step calls a helper of theirs that their own model code does not reach (those are
# data preparation and scripts), so such helpers are reported only when model code of the
# project reaches them (the cross-file step), as host reads in neutral code are elsewhere.
_EXAMPLE_PARTS = frozenset({"examples"})


def is_test_module(module: str | None) -> bool:
    """Whether a dotted module name lies in a test package (or is one)."""
    return bool(module) and not _TEST_PARTS.isdisjoint(module.split("."))


def is_logging_module(module: str | None) -> bool:
    """Whether a dotted module name lies in a logging package (or is a logging module)."""
    return bool(module) and not _LOGGING_PARTS.isdisjoint(module.split("."))


def is_example_module(module: str | None) -> bool:
    """Whether a dotted module name lies in an example package (or is one)."""
    return bool(module) and not _EXAMPLE_PARTS.isdisjoint(module.split("."))


def index_module(tree: ast.Module, lines: list[str], explain: bool = False,
                 module: str | None = None, defer: bool = False, roles=None,
                 text: str | None = None) -> Scopes:
    """The pre-pass over one module; `module` (its dotted name, when known) tells test
    packages, whose code is all cold, and example packages (no library: see _EXAMPLE_PARTS).
    With `defer` (the cross-file step will run), the entry points of a class whose bases are
    of other files are left to it (ClassInfo.deferred). `roles`: what the roles came to in
    the first walk of the same `text` (reach.roles_record), replayed instead of decided again."""
    scopes = Scopes()
    scopes.defer = defer
    if explain:
        scopes.why = {}
    if is_test_module(module):
        scopes.test_module = module
    elif is_logging_module(module):
        scopes.logging_module = module
    elif is_example_module(module):
        scopes.example_module = module
    order: list[FunctionInfo] = []
    scan_body(tree.body, scopes, order, None, None, "", True)
    if roles is None or explain or not apply_roles(scopes, order, text, roles):
        assign_roles(scopes, order, lines)
    scopes.order = order
    for f in order:
        if f.parent is None and f.cls is None:
            scopes.module_functions.setdefault(f.name, []).append(f)
    return scopes
