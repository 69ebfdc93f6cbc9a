"""A reference whose constructor draws from Python's random module (red team, 2026-12-03)."""
import torch
import torch.nn as nn
import random


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.shift = nn.Parameter(torch.tensor([random.gauss(0.0, 0.1) for _ in range(out_features)]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x) + self.shift
        return torch.nn.functional.gelu(y)


batch_size, in_features, out_features = 4, 16, 24


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
