"""Safe fixes in unannotated functions: offered when the code proves the operands are tensors,
refused where a numpy array is as likely; imports follow the module's own import style; the
mask is lined up in the shortest form the code proves. Through the real CLI."""
import textwrap


def _diff(dynlint, tmp_path, source: str, *flags) -> str:
    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent(source))
    r = dynlint("check", "--diff", "--no-cache", *flags, path, cwd=tmp_path)
    return "".join(line[1:] + "\n" for line in r.stdout.splitlines()
                   if line.startswith("+") and not line.startswith("+++"))


def test_a_torch_function_proves_its_input_is_a_tensor(dynlint, tmp_path):
    added = _diff(dynlint, tmp_path, """\
        import torch


        def masked_total(x, m):
            return torch.masked_select(x, m).sum()
        """)
    assert added == "    return x.where(m, 0).sum()\n"


def test_indexing_by_a_torch_mask_counts_only_without_numpy(dynlint, tmp_path):
    body = """\
        def masked_mean(values, mask):
            return values[mask.bool()].sum()
        """
    assert "values.where(" in _diff(dynlint, tmp_path, "import torch\n\n\n" + textwrap.dedent(body))
    # With numpy imported, `values` may as well be an array: no safe fix.
    assert _diff(dynlint, tmp_path, "import numpy as np\nimport torch\n\n\n" + textwrap.dedent(body)) == ""


def test_a_name_handed_to_numpy_or_bound_twice_is_no_evidence(dynlint, tmp_path):
    assert _diff(dynlint, tmp_path, """\
        import numpy as np
        import torch


        def f(x, m):
            y = np.asarray(x)
            return torch.masked_select(x, m).sum() + y.sum()
        """) == ""
    assert _diff(dynlint, tmp_path, """\
        import torch


        def f(x, m, other):
            torch.exp(x)
            x = other
            return x[m.bool()].sum()
        """) == ""


def test_lazy_torch_imports_stay_lazy(dynlint, tmp_path):
    added = _diff(dynlint, tmp_path, """\
        def helper():
            import torch
            return torch.zeros(3)


        def total(x, m):
            return x[m.bool()].mean() + x.view(-1).sum()
        """)
    assert added.startswith("    import torch\n") and "x.where(" in added, added
    assert not added.startswith("import torch")          # not at module level


def test_a_masked_sum_needs_no_torch_import(dynlint, tmp_path):
    """`x.where(m, 0)` is a tensor method: a module that imports torch lazily, or not at
    all, gets no import."""
    added = _diff(dynlint, tmp_path, """\
        def total(x, m):
            return x[m.bool()].sum() + x.view(-1).sum()
        """)
    assert "import" not in added and "x.where(" in added, added


def test_the_mask_is_lined_up_in_the_shortest_proved_form(dynlint, tmp_path):
    added = _diff(dynlint, tmp_path, """\
        import torch


        def f(x: torch.Tensor, targets: torch.Tensor):
            keep = targets.ne(0).view(-1)
            rows = x.view(-1, 4)
            same = x > 0
            return rows[keep].sum(), x[same].sum(), x.abs()[x.isnan()].any()
        """)
    assert "rows.where(keep.unsqueeze(-1), 0).sum()" in added
    assert "x.where(same, 0).sum()" in added
    assert "x.abs().where(x.isnan(), 0).any()" in added
    assert "reshape" not in added


def test_no_shorter_form_without_proof(dynlint, tmp_path):
    """`x.view(shape)` may have any rank; `x.unsqueeze_(0)` changes the shape after the mask
    was computed from it; a loop may bring last iteration's value: the general form stays."""
    added = _diff(dynlint, tmp_path, """\
        import torch


        def f(x: torch.Tensor, m: torch.BoolTensor, shape, n: int):
            y = x.view(shape)
            k = m.view(-1)
            keep = x > 0
            x.unsqueeze_(0)
            total = y[k].sum() + x[keep].sum()
            z = x
            for _ in range(n):
                w = z > 0
                z = z.flatten()
                total = total + z[w].sum()
            return total
        """)
    assert added.count(".reshape(") == 3, added
    assert "unsqueeze(-1)" not in added
