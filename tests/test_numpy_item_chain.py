"""`.cpu().detach().numpy().item()` is one host read of a tensor: the `.item()` reads a numpy
array (no tensor rule's), so DYN214 reports the copy; `loss.cpu().item()` stays DYN201's alone.
Through the real CLI. Modelled on pytorch_tabnet 4.1.0 (MIT) `abstract_model.py` `_train_batch`.
"""
import json

TRAINER = '''\
import torch


class Trainer:
    def _train_batch(self, X, y):
        output = self.network(X)
        loss = self.loss_fn(output, y)
        loss.backward()
        self._optimizer.step()
        batch_logs = {}
        batch_logs["loss"] = loss.cpu().detach().numpy().item()
        batch_logs["plain"] = loss.cpu().item()
        batch_logs["numpy"] = loss.detach().numpy().item()
        batch_logs["list"] = output.detach().cpu().numpy().tolist()
        return batch_logs
'''


def test_item_of_a_numpy_copy_reports_the_copy_once(dynlint, write):
    proc = dynlint("check", "--format", "json", "--no-cache", "--isolated", "--exit-zero",
                   str(write("abstract_model.py", TRAINER)))
    assert proc.returncode == 0, proc.stderr
    found = sorted((f["line"], f["column"], f["code"]) for f in json.loads(proc.stdout))
    assert found == [(11, 30, "DYN214"),        # `loss.cpu()`, once for the chain
                     (12, 31, "DYN201"),        # `loss.cpu().item()`: the read, not the copy
                     (13, 31, "DYN214"),        # `loss.detach().numpy()`
                     (14, 30, "DYN214")]        # `output.detach().cpu()` (`.tolist()` of numpy)
