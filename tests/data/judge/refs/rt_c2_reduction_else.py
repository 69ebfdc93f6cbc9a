"""Red team, 2026-12-03: one option compared, the others in the else branch (the judge tried only the traced
value)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
        if reduction == "mean":
            return x.mean(dim=1)
        return x.sum(dim=1)


def get_inputs():
    return [torch.randn(64, 100)]


def get_init_inputs():
    return []
