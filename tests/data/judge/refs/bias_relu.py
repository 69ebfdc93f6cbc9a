"""relu(x + bias) with a learned per-feature bias that starts at zero (a common KernelBench pattern)."""
import torch
import torch.nn as nn

rows, features = 32, 64


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.bias)


def get_inputs():
    return [torch.randn(rows, features)]


def get_init_inputs():
    return [features]
