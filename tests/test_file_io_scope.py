"""Host I/O (session 31, hand-read set f's `read_xyz`): a function that opens a file (`with
open(path) as f:`, `f = open(path)`) reads or writes it, so what it reads from tensors comes
from or goes to disk: cold whoever calls it, like a report (`reporting.opens_file`), through
the real CLI. A training loop that opens its log file and a validation loop that runs the model
it is given and saves its predictions run a step of their own and stay, and so does what the
calling `forward` does itself.
"""
import json

# torchani 2.9.0 (MIT) `io.py` `read_xyz` and torch_geometric 2.8.1 (MIT)
# `distributed/partition.py` `Partitioner.generate_partition`, reduced.
SOURCE = '''\
import torch


def read_xyz(path):
    cells = []
    cell = torch.zeros(3, 3)
    with open(path, mode="rt", encoding="utf-8") as f:
        for line in f:
            conformation_cell = torch.tensor([float(v) for v in line.split()]).view(3, 3)
            if not (cell == conformation_cell).all():
                cells.append(conformation_cell)
    return cells


def write_partition(root, edge_index, mask):
    part = edge_index[:, mask]
    assert torch.equal(part, edge_index[:, mask.nonzero().view(-1)])
    torch.save(part, root + "/part.pt")
    with open(root + "/META.json", "w") as f:
        f.write("{}")


def fit(model, data, opt, log_path):
    log = open(log_path, "a")
    for x, y in data:
        loss = (model(x) - y).pow(2).mean()
        if torch.isnan(loss):
            continue
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.write(f"{loss.item()}\\\\n")


def score_loader(model, loader, save_dir):
    seen = []
    for batch in loader:
        preds = torch.sigmoid(model(batch))
        seen.append(preds[preds > 0.5])
    with open(save_dir + "/predictions.pt", "wb") as f:
        torch.save(seen, f)


class Net(torch.nn.Module):
    def forward(self, x, path):
        cells = read_xyz(path)
        keep = x[x > 0]
        return keep, cells
'''


def _line(text, needle):
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_functions_that_open_a_file_are_host_io(dynlint, write):
    path = write("io.py", SOURCE)
    proc = dynlint("check", "--format", "json", "--no-cache", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    found = {(f["line"], f["code"]) for f in json.loads(proc.stdout)}
    lines = {line for line, _ in found}
    assert _line(SOURCE, "if not (cell == conformation_cell).all():") not in lines, found
    assert _line(SOURCE, "part = edge_index[:, mask]") not in lines, found
    assert _line(SOURCE, "assert torch.equal(part,") not in lines, found
    # a training loop with its log file, the forward's own selection: still flagged
    assert (_line(SOURCE, "if torch.isnan(loss):"), "DYN204") in found, found
    assert (_line(SOURCE, 'log.write(f"{loss.item()}'), "DYN201") in found, found
    assert (_line(SOURCE, "keep = x[x > 0]"), "DYN101") in found, found
    # a validation loop running the model it is given, saving its predictions: not host I/O
    assert (_line(SOURCE, "seen.append(preds[preds > 0.5])"), "DYN101") in found, found


def test_explain_says_it_opens_a_file(dynlint, write):
    path = write("io.py", SOURCE)
    proc = dynlint("check", "--no-cache", "--exit-zero", path, "--explain",
                   f"{path}:{_line(SOURCE, 'if not (cell == conformation_cell).all():')}")
    assert "it opens a file" in proc.stdout, proc.stdout
