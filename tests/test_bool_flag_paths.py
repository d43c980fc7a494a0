"""A flag that is a bool tensor on one path of an `if` and, on the other, what a call the walk
does not know gives (torchrl's `EnvBase.any_done`: `done.any()`, else a helper of another
file) is a bool tensor after the `if` (paths.py `_join_tensor_paths`): a truth test of it, or
of the method returning it, reads the tensor on the path that holds it (DYN204). A flag a
call sets on both paths stays unknown. Through the real CLI on a small package."""
from __future__ import annotations

from _tree import findings, write_tree

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/utils.py": """\
        def terminated(data, key="_reset"):
            return data.get(key)
        """,
    "pkg/env.py": """\
        import torch

        from pkg.utils import terminated


        class Env(torch.nn.Module):
            def any_done(self, td):
                if self.simple:
                    any_done = td["done"].any()
                else:
                    any_done = terminated(td, key="_reset")
                return any_done

            def both_unknown(self, td):
                if self.simple:
                    flag = terminated(td, key="done")
                else:
                    flag = terminated(td, key="_reset")
                return flag

            def forward(self, td):
                if self.any_done(td):
                    td = td * 2
                if self.both_unknown(td):
                    td = td * 3
                return td
        """,
}


def test_bool_tensor_on_one_path_is_read_by_the_truth_test(dynlint, tmp_path):
    write_tree(tmp_path, FILES)
    found = findings(dynlint, tmp_path, ".", "--no-cache")
    assert ("env.py", 22, "DYN204") in found, found
    assert not [f for f in found if f[1] == 24], found
