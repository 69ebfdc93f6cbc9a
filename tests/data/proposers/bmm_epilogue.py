"""Batched matrix products: torch.bmm with a scale, a bias broadcast over the batch and a GELU fused after it,
and a 3-D torch.matmul of a transposed (non-contiguous) operand."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(n))

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.nn.functional.gelu(torch.bmm(a, b) * 0.5 + self.bias)
        z = torch.matmul(a, a.transpose(1, 2))
        return y, z


def get_inputs():
    return [torch.randn(3, 17, 24), torch.randn(3, 24, 20)]


def get_init_inputs():
    return [20]
