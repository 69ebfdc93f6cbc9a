"""Elementwise exact (erf) GELU on a (64, 128) float32 tensor of standard normal values."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x)


def get_inputs():
    return [torch.randn(64, 128)]


def get_init_inputs():
    return []
