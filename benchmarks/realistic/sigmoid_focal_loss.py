"""Sigmoid focal loss of dense detectors (RetinaNet) written out: BCE-with-logits, p_t, (1 - p_t)^gamma, alpha weighting, mean."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, anchors, num_classes = 8, 8192, 80
SMALL_SIZES = {"batch": 2, "anchors": 16, "num_classes": 5}


class Model(nn.Module):
    def __init__(self, alpha: float = 0.25, gamma: float = 2.0):
        super().__init__()
        self.alpha = alpha
        self.gamma = gamma

    def forward(self, inputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        p = torch.sigmoid(inputs)
        ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
        p_t = p * targets + (1 - p) * (1 - targets)
        loss = ce_loss * ((1 - p_t) ** self.gamma)
        if self.alpha >= 0:
            alpha_t = self.alpha * targets + (1 - self.alpha) * (1 - targets)
            loss = alpha_t * loss
        return loss.mean()


def get_inputs():
    return [torch.randn(batch, anchors, num_classes), (torch.rand(batch, anchors, num_classes) < 0.01).float()]


def get_init_inputs():
    return [0.25, 2.0]
