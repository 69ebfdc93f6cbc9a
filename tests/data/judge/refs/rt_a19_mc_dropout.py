"""Reference: bias, exact GELU, dropout."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features) * 0.1)
        self.drop = nn.Dropout(0.25)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(torch.nn.functional.gelu(x + self.bias))


def get_inputs():
    return [torch.randn(32, 64)]


def get_init_inputs():
    return [64]
