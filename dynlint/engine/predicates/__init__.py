"""Named conditions that rules put on metavariables (`where:`) and on whole matches (`when:`).

Each predicate is written once in this package and documented by its docstring (shown by
`dynlint predicates`). A predicate takes the match context, the node it is applied to and any
literal arguments given in the rule, e.g. ``arg_count(1)`` or ``any_arg(tensor)``.
Rules may negate any predicate: ``not in_cold_code``.

`registry.py` holds the table and `context.py` what a predicate looks at; the other modules
register predicates, by what they are about: `values.py` (what a value is), `calls.py`,
`bindings.py` (what a name was built as), `host.py` (host copies), `guards.py` (error path,
graph guards, once per object, fp16), `places.py` (where the code runs), `scalars.py` (plain
numbers and 0-d tensors, for fixes), `names.py` (weak evidence from names), `flow.py` (where a
value goes later) and `fixes.py` (the conditions of rules' `fixes:`). Importing the package
registers them all, in that order (`dynlint predicates` lists what the package registered).
"""
from .registry import REGISTRY, Predicate, predicate
from .context import MatchContext
from . import values, calls, bindings, host, guards, places  # noqa: F401 - they register predicates
from . import scalars, names, flow, fixes  # noqa: F401 - they register predicates

__all__ = ["REGISTRY", "MatchContext", "Predicate", "predicate"]
