"""BCE-with-logits with weight and pos_weight (functional, buffers): summed, per element (the pointwise form,
fused with what follows), and a plain mean; soft targets."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, labels = 10, 9


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("weight", torch.rand(labels) + 0.5)
        self.register_buffer("pos_weight", torch.linspace(1.0, 3.0, labels))

    def forward(self, logits, targets):
        summed = F.binary_cross_entropy_with_logits(logits, targets, weight=self.weight, pos_weight=self.pos_weight,
                                                    reduction="sum")
        each = F.binary_cross_entropy_with_logits(logits, targets, pos_weight=self.pos_weight, reduction="none")
        mean = F.binary_cross_entropy_with_logits(logits, targets)
        return summed, each * 0.5, mean


def get_inputs():
    return [torch.randn(batch, labels) * 4.0, torch.rand(batch, labels)]


def get_init_inputs():
    return []
