"""A learned per-feature scale (red team, 2026-12-03: custom backwards that share a workspace or write .grad)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.weight


def get_inputs():
    return [torch.randn(64, 128)]


def get_init_inputs():
    return [128]
