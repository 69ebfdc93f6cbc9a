"""A per-row score: (batch, n) . w -> (batch,), plus a bias."""
import torch
import torch.nn as nn

batch, n = 8, 32


class Model(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n) * 0.2)
        self.b = nn.Parameter(torch.zeros(()) + 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x * self.w).sum(-1) + self.b


def get_inputs():
    return [torch.randn(batch, n)]


def get_init_inputs():
    return [n]
