"""Plain name patterns (the default excludes) are matched without importing pathspec: the
verdicts must be pathspec's own, for files and directories at any depth."""
from hypothesis import given, settings, strategies as st
from pathspec import GitIgnoreSpec

from dynlint.project import globs
from dynlint.project.config import DEFAULT_EXCLUDE

NAMES = ["build", "dist", "x.egg-info", ".egg-info", "egg-info", "node_modules", "venv", ".venvx",
         "site-packages", "_build", "x_build", "a", "b.py", "__pycache__", ".git", "git"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4), st.booleans(),
       st.lists(st.sampled_from(["build", "*.egg-info", "x*y", "a.b", "node_modules", "b~"]),
                min_size=1, max_size=3))
def test_plain_names_match_as_pathspec_does(parts, is_dir, extra):
    path = "/".join(parts) + ("/" if is_dir else "")
    for texts in (tuple(DEFAULT_EXCLUDE), tuple(extra)):
        assert all(map(globs._PLAIN_NAME.fullmatch, texts))
        expected = GitIgnoreSpec.from_lines(texts).check_file(path).include
        assert (globs._matcher(texts)(path) is True) == (expected is True), (texts, path)


def test_what_is_not_a_plain_name_goes_to_pathspec():
    for text in ["*", ".", "..", "**", "a/b", "!x", "a**b", "[ab]", "a?", "build/", "\\#x"]:
        assert not globs._PLAIN_NAME.fullmatch(text), text
