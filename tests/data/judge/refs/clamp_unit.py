"""clamp(x, 0, 1) on inputs already in [0, 1): the values equal the input, but the output is new memory.

This is the reference for the aliasing case: returning the input itself has the right values and must
still be rejected.
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x, 0.0, 1.0)


def get_inputs():
    return [torch.rand(64, 64)]


def get_init_inputs():
    return []
