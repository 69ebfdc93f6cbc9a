"""A Python float passed to forward (as in KernelBench level 1, 5_Matrix_scalar_multiplication)."""
import torch
import torch.nn as nn

rows, cols = 9, 37


class Model(nn.Module):
    def forward(self, a: torch.Tensor, s: float) -> torch.Tensor:
        return a * s


def get_inputs():
    return [torch.randn(rows, cols), 3.14]


def get_init_inputs():
    return []
