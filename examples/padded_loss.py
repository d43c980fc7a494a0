"""A label-smoothed token loss that drops padding with a boolean mask (dynamic) and the
same loss written with a multiplicative mask (static)."""
import torch
import torch.nn.functional as F


class LabelSmoothedLoss(torch.nn.Module):
    def __init__(self, padding_idx: int, eps: float = 0.1):
        super().__init__()
        self.padding_idx = padding_idx
        self.eps = eps

    def forward(self, logits, targets):
        lprobs = F.log_softmax(logits, dim=-1).view(-1, logits.size(-1))
        nll = -lprobs.gather(1, targets.view(-1, 1)).squeeze(1)
        smooth_loss = -lprobs.mean(dim=-1)
        non_pad_mask = targets.ne(self.padding_idx).view(-1)
        nll = nll[non_pad_mask]                  # dynamic
        smooth_loss = smooth_loss[non_pad_mask]  # dynamic
        loss = (1 - self.eps) * nll.sum() + self.eps * smooth_loss.sum()
        return loss / non_pad_mask.sum()


class StaticLabelSmoothedLoss(LabelSmoothedLoss):
    def forward(self, logits, targets):
        lprobs = F.log_softmax(logits, dim=-1).view(-1, logits.size(-1))
        nll = -lprobs.gather(1, targets.view(-1, 1)).squeeze(1)
        smooth_loss = -lprobs.mean(dim=-1)
        keep = targets.ne(self.padding_idx).view(-1).to(nll.dtype)
        loss = (1 - self.eps) * (nll * keep).sum() + self.eps * (smooth_loss * keep).sum()
        return loss / keep.sum()
