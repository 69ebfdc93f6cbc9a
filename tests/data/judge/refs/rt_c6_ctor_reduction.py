"""Red team, 2026-12-03: the option a constructor argument, compared as self.reduction (the judge tried only the
traced value)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, reduction: str = "mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.reduction == "sum":
            return x.sum(dim=1)
        if self.reduction in ("max", "amax"):
            return x.amax(dim=1)
        return x.mean(dim=1)


def get_inputs():
    return [torch.randn(64, 100)]


def get_init_inputs():
    return ["mean"]
