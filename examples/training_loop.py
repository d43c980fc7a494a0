"""A training loop: `.item()` and Python conditions on tensors here run on the host between
steps, not inside the compiled graph, so dynlint does not flag them."""
import torch


def train(model, loader, optimizer, log_every: int = 10):
    model.train()
    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if torch.isnan(loss):
            raise FloatingPointError("loss is nan")
        if step % log_every == 0:
            print(f"step {step}: loss {loss.item():.4f}")


def evaluate(model, loader):
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            pred = model(x).argmax(-1)
            correct += int((pred == y).sum())
            total += y.numel()
    return correct / max(total, 1)
