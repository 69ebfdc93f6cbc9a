"""A sub-millisecond module of a transformer block: residual add, then RMSNorm with a learned scale (fp32)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        h = x + residual
        return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


rows, dim = 16384, 4096


def get_inputs():
    return [torch.randn(rows, dim), torch.randn(rows, dim)]


def get_init_inputs():
    return [dim]
