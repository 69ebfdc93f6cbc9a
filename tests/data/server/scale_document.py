"""A document: helpers, a module with super(Scale, self), another module using Scale."""
import torch
import torch.nn as nn

SCALE = 2.0


def helper(x):
    return x + 1


class Scale(nn.Module):
    """Multiply, shift, GELU."""

    def __init__(self, features: int):
        super(Scale, self).__init__()
        self.shift = nn.Parameter(torch.zeros(features))

    def forward(self, x):
        return torch.nn.functional.gelu(x * SCALE + self.shift)


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Scale(16)

    def forward(self, x):
        return self.inner(x)


def get_inputs():
    return [torch.randn(4, 16)]


def get_init_inputs():
    return [16]
