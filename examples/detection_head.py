"""Post-processing in the style of a detection head: several data-dependent ops."""
import torch
import torchvision


class DetectionHead(torch.nn.Module):
    def __init__(self, num_classes: int = 5, score_thresh: float = 0.05):
        super().__init__()
        self.cls = torch.nn.Linear(16, num_classes)
        self.score_thresh = score_thresh

    def forward(self, feats, boxes):
        scores = self.cls(feats).softmax(-1)
        best, labels = scores.max(-1)
        keep = torch.where(best > self.score_thresh)[0]          # one-argument where
        boxes, best, labels = boxes[keep], best[keep], labels[keep]
        keep = torchvision.ops.batched_nms(boxes, best, labels, 0.5)  # NMS keeps a variable count
        num_classes_seen = torch.unique(labels[keep]).numel()    # unique
        if best.max() > 0.99:                                     # tensor used as a condition
            best = best.clamp(max=0.99)
        top = int(best.argmax())                                  # host read of a tensor value
        return boxes[keep], best[keep], num_classes_seen, top


def count_positives(scores: torch.Tensor) -> torch.Tensor:
    """A helper outside the model: nonzero still gives a data-dependent shape."""
    return scores.gt(0.5).nonzero().shape[0]
