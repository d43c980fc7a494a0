"""Two false-alarm causes of hand-read set f (captum 0.9.0, bench/results/handread_causes.md,
session 30), each decided by a fact of the code, through the real CLI, each with a twin that
stays flagged:

- opt-in output under a parameter off by default (`records.optin_regions`): `if debug:
  print(...)` with `debug=False`, `if _inspect_forward: _inspect_forward(...)` with a `None`
  default, a log line under `if log_every is not None:`. A branch that does more than show
  values (`if mask is not None: x = x[mask]`, a store into the object) or a parameter that is
  on by default stays.
- test helpers in a namespace package (`project.scope.module_name`): `captum/testing/` has no
  `__init__.py` while `captum/` has one, so Python names `captum.testing.helpers.basic`, a
  module of a test package, cold; a bare directory of the same shape not named for tests stays.
"""
import json

from _tree import findings, write_tree

# captum 0.9.0 (BSD-3), `_utils/models/linear_model/train.py` `sgd_train_linear_model` and
# `attr/_core/llm_attr.py` `_forward_func`, excerpted.
OPTIN = '''\
import logging

import torch

logger = logging.getLogger(__name__)


def sgd_train(model, dataloader, optim, max_epoch=10, debug: bool = False, verbose=True, log_every=None):
    for _ in range(max_epoch):
        for x, y in dataloader:
            out = model(x)
            loss = ((out - y) ** 2).mean()
            if debug:
                print(f"lr={optim.param_groups[0]['lr']}, Loss={loss}")
            if log_every is not None:
                logger.info("loss %s", loss.item())
            if verbose:
                print(f"Loss={loss}")
            loss.backward()
            optim.step()


class Attribution(torch.nn.Module):
    def forward(self, inp, _inspect_forward=None, mask=None, keep=None):
        target_probs = torch.softmax(self.model(inp), -1)
        if _inspect_forward:
            prompt = self.tokenizer.decode(inp[0])
            _inspect_forward(prompt, target_probs[0].tolist())
        if keep is not None:
            self.kept = target_probs[0].tolist()
            print(self.kept)
        if mask is not None:
            target_probs = target_probs[mask]
        return target_probs
'''


def _line(text, needle):
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_optin_output_under_a_parameter_off_by_default(dynlint, write):
    path = write("train.py", OPTIN)
    proc = dynlint("check", "--format", "json", "--no-cache", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    found = {(f["line"], f["code"]) for f in json.loads(proc.stdout)}
    lines = {line for line, _ in found}
    assert _line(OPTIN, "print(f\"lr=") not in lines, found
    assert _line(OPTIN, "logger.info(") not in lines, found
    assert _line(OPTIN, "_inspect_forward(prompt,") not in lines, found
    # on by default, a store into the object, a branch that changes the result: still flagged
    assert (_line(OPTIN, 'print(f"Loss={loss}")'), "DYN211") in found, found
    assert (_line(OPTIN, "self.kept = target_probs[0].tolist()"), "DYN202") in found, found
    assert (_line(OPTIN, "target_probs = target_probs[mask]"), "DYN101") in found, found


HELPERS = '''\
import torch


def assertTensorAlmostEqual(test, actual, expected, delta=0.0001):
    test.assertAlmostEqual(torch.max(torch.abs(actual - expected)).item(), 0.0, delta=delta)
'''


def test_test_helpers_in_a_namespace_directory_of_a_package(dynlint, tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": "",
        "pkg/__init__.py": "",
        "pkg/testing/helpers/__init__.py": "",     # pkg/testing/ has no __init__.py
        "pkg/testing/helpers/basic.py": HELPERS,
        "pkg/ops/helpers/__init__.py": "",
        "pkg/ops/helpers/basic.py": HELPERS,
    })
    found = findings(dynlint, tmp_path, ".", "--no-cache", "--exit-zero")
    assert found == [("basic.py", 5, "DYN201")], found       # the ops one only
    proc = dynlint("check", "--no-cache", "--exit-zero", "--output-format", "concise", ".", cwd=tmp_path)
    assert "pkg/ops/helpers/basic.py" in proc.stdout.replace("\\", "/"), proc.stdout


def test_module_names_through_namespace_directories(tmp_path):
    from dynlint.project.scope import module_name
    write_tree(tmp_path, {
        "pkg/__init__.py": "", "pkg/testing/helpers/__init__.py": "",
        "pkg/testing/helpers/basic.py": "", "pkg/testing/run.py": "",
        "scripts/tool.py": "", "scripts/sub/__init__.py": "", "scripts/sub/m.py": "",
    })
    assert module_name(str(tmp_path / "pkg/testing/helpers/basic.py")) == ("pkg.testing.helpers.basic", False)
    assert module_name(str(tmp_path / "pkg/testing/run.py")) == ("pkg.testing.run", False)
    assert module_name(str(tmp_path / "pkg/testing/helpers/__init__.py")) == ("pkg.testing.helpers", True)
    # bare directories outside a regular package name nothing, as before
    assert module_name(str(tmp_path / "scripts/tool.py")) == ("tool", False)
    assert module_name(str(tmp_path / "scripts/sub/m.py")) == ("sub.m", False)
