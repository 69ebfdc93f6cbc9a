"""Mean of the last k time steps of a sequence (a recency-pooled summary), k given per call. (red team 14,
2026-12-03: a forward int argument far from the traced one.)"""
import torch
import torch.nn as nn

batch, seq, dim, k = 8, 32, 16, 12


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.proj = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor, k: int) -> torch.Tensor:
        return x[:, -k:, :].mean(1) * self.proj


def get_inputs():
    return [torch.randn(batch, seq, dim), k]


def get_init_inputs():
    return [dim]
