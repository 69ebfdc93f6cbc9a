"""Scaled tanh: tanh(x) * sqrt(2), the constant from numpy (a reference that imports numpy, as many do)."""
import numpy as np
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = float(np.sqrt(2.0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x) * self.scale


def get_inputs():
    return [torch.randn(64, 128)]


def get_init_inputs():
    return []
