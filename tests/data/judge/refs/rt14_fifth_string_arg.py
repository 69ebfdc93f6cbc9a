"""Sequence pooling with the pooling picked per call: forward(x, pool="mean"). (red team 14, 2026-12-03: a forward
string argument with six values.)"""
import torch
import torch.nn as nn

batch, seq, dim = 8, 16, 32


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor, pool: str = "mean") -> torch.Tensor:
        x = x * self.scale
        if pool == "mean":
            return x.mean(1)
        if pool == "max":
            return x.amax(1)
        if pool == "min":
            return x.amin(1)
        if pool == "sum":
            return x.sum(1)
        if pool == "l2":
            return x.norm(dim=1)
        if pool == "logsumexp":
            return torch.logsumexp(x, 1)
        raise ValueError(pool)


def get_inputs():
    return [torch.randn(batch, seq, dim)]


def get_init_inputs():
    return [dim]
