"""RMSNorm as many model files write it (eps as a literal). (red team 14, 2026-12-03: eps misplaced, seen only for
small inputs.)"""
import torch
import torch.nn as nn

batch, seq, dim = 4, 16, 64


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * self.weight


def get_inputs():
    return [torch.randn(batch, seq, dim)]


def get_init_inputs():
    return [dim]
