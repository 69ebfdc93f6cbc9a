"""Red team, 2026-12-03: the option passed on to F.mse_loss (the judge tried only the traced value)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, pred: torch.Tensor, target: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
        return F.mse_loss(pred, target, reduction=reduction)


def get_inputs():
    return [torch.randn(64, 100), torch.randn(64, 100)]


def get_init_inputs():
    return []
