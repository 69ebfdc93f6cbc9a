"""Red team, 2026-12-03: the option read by a match statement (the judge tried only the traced value)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
        match reduction:
            case "sum":
                return x.sum(dim=1)
            case "amax":
                return x.amax(dim=1)
        return x.mean(dim=1)


def get_inputs():
    return [torch.randn(64, 100)]


def get_init_inputs():
    return []
