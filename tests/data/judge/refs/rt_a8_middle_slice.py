"""Reference: a per-feature bias and an exact GELU over (batch, sequence, features) activations."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x + self.bias)


batch, seq, features = 2, 8, 32


def get_inputs():
    return [torch.randn(batch, seq, features)]


def get_init_inputs():
    return [features]
