"""Cross-entropy with class weights (a buffer, the functional form) and label smoothing, an ignore_index inside
the class range, in all three reductions; long rows (the loop runs more than one block)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, classes = 9, 5000


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("class_weight", torch.linspace(0.5, 2.0, classes))

    def forward(self, logits, target):
        kwargs = {"weight": self.class_weight, "ignore_index": 2, "label_smoothing": 0.1}
        mean = F.cross_entropy(logits, target, **kwargs)
        summed = F.cross_entropy(logits, target, reduction="sum", **kwargs)
        rows = F.cross_entropy(logits, target, reduction="none", **kwargs)
        return mean, summed, rows


def get_inputs():
    target = torch.randint(0, classes, (batch,))
    target[::4] = 2                                          # ignored rows
    return [torch.randn(batch, classes) * 3.0, target]


def get_init_inputs():
    return []
