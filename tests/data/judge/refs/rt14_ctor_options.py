"""A gated feature block as configured from a model config: per-feature scale (and bias), an activation picked by
name, a gain, optional zero-centred scale and an optional residual connection. (red team 14, 2026-12-03: a string
option with a third value, a fifth boolean option.)"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, dim = 16, 64


class Model(nn.Module):
    def __init__(self, dim: int, activation: str = "gelu", bias: bool = True, gain: float = 1.0,
                 zero_centered: bool = False, residual: bool = False):
        super().__init__()
        if activation not in ("gelu", "relu", "silu"):
            raise ValueError(f"unknown activation {activation}")
        self.activation = activation
        self.zero_centered = zero_centered
        self.residual = residual
        self.gain = gain
        self.weight = nn.Parameter(torch.zeros(dim) if zero_centered else torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim)) if bias else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.weight + 1.0 if self.zero_centered else self.weight
        y = x * w
        if self.bias is not None:
            y = y + self.bias
        if self.activation == "gelu":
            y = F.gelu(y)
        elif self.activation == "relu":
            y = F.relu(y)
        else:
            y = F.silu(y)
        y = y * self.gain
        if self.residual:
            y = y + x
        return y


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return [dim, "gelu", True, 1.0, False, False]
