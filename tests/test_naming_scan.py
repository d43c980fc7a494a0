"""`naming.constructed` and `called_instances` look for each class name asked by hand instead
of running a regex (`(?<![\\w.])(?<!raise )NAME\\s*\\(`); the answers must be the regex's."""
from __future__ import annotations

import re

from dynlint.analysis.scopes.naming import _LOCAL_INSTANCE, called_instances, constructed

_CALLED = re.compile(r"(?<![\w.])(?<!raise )([A-Za-z_]\w*)\s*\(")

TEXTS = [
    "x = Interval(a, b)", "x = Interval (a)", "x = Interval\n  (a)", "Interval(a)",
    "raise Interval(a)", "raise  Interval(a)", "noraise Interval(a)", "x = m.Interval(a)",
    "x = MyInterval(a)", "x = Interval2(a)", "x = _Interval(a)", "y = Interval", "f(Interval)",
    "x = (Interval(a))", "x = Über(a)", "x = éInterval(a)", "bm = Interval(a)\nbm(t0, t1)",
    "bm = Interval(a)\nself.bm(t0)", "bm = Interval(a)\nraise bm(t)", "bm = Interval(a)\nbm (t)",
    "bm = Interval(a)\nbmx(t)", "bm = Interval(a)\nx.bm(t)",
]
NAMES = {"Interval", "Über", "raise", "bm", "MyInterval", "_Interval"}


def test_constructed_is_the_regex():
    for text in TEXTS:
        expected = {n for n in _CALLED.findall(text) if n in NAMES}
        assert constructed(text, NAMES) == expected, text


def test_called_instances_is_the_regex():
    for text in TEXTS:
        expected = {cls for local, cls in _LOCAL_INSTANCE.findall(text) if cls in NAMES and
                    local != cls and re.search(r"(?<![\w.])" + re.escape(local) + r"\s*\(", text)}
        assert called_instances(text, NAMES) == expected, text
