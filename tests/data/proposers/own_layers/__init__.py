"""A user's own package of layers, imported by ``inherited_forward_own_package.py`` (whose class subclasses one
of them and inherits its forward), as a module of a real project imports its package."""
import torch
from torch import nn


class ScaledTanhGate(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(features))

    def forward(self, x):
        return torch.tanh(x) * self.scale + x
