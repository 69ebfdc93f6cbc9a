"""Cross-entropy over class indices: the functional form with the default mean (long rows: the loop runs
more than one block), the module with a sum and an ignore_index, and per-row losses of scaled logits."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, classes, few = 9, 5000, 7


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.summed = nn.CrossEntropyLoss(reduction="sum", ignore_index=3)

    def forward(self, logits, target, small, small_target):
        mean = F.cross_entropy(logits, target)
        summed = self.summed(small, small_target)
        rows = F.cross_entropy(small * 0.5, small_target, reduction="none")
        return mean, summed, rows


def get_inputs():
    small_target = torch.randint(0, few, (batch,))
    small_target[0] = 3                                     # an ignored row
    return [torch.randn(batch, classes) * 4.0, torch.randint(0, classes, (batch,)), torch.randn(batch, few),
            small_target]


def get_init_inputs():
    return []
