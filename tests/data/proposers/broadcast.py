"""Broadcasting: a (N, 1) column plus a (1, M) row, times an (M,) vector parameter."""
import torch
import torch.nn as nn

n, m = 23, 37


class Model(nn.Module):
    def __init__(self, m: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(m))

    def forward(self, col: torch.Tensor, row: torch.Tensor) -> torch.Tensor:
        return torch.tanh(col + row) * self.weight - col


def get_inputs():
    return [torch.randn(n, 1), torch.randn(1, m)]


def get_init_inputs():
    return [m]
