"""Scaled max-pooling over the last dim: amax(x * scale) (scale < 0 gives a scaled min-pool). (red team 14,
2026-12-03: a float option of the other sign.)"""
import torch
import torch.nn as nn

batch, seq, dim = 8, 16, 64


class Model(nn.Module):
    def __init__(self, scale: float = 1.0):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.amax(x * self.scale, dim=-1)


def get_inputs():
    return [torch.randn(batch, seq, dim)]


def get_init_inputs():
    return [1.0]
