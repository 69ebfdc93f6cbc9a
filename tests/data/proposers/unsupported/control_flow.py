"""Data-dependent control flow: torch.fx cannot trace an `if` on a tensor value."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:
            return torch.relu(x)
        return torch.sigmoid(x)


def get_inputs():
    return [torch.randn(8, 16)]


def get_init_inputs():
    return []
