"""A learned gate: x * sigmoid(g) * scale, two inputs of the same shape."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(features))

    def forward(self, x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(g) * self.scale


def get_inputs():
    return [torch.randn(16, 64), torch.randn(16, 64)]


def get_init_inputs():
    return [64]
