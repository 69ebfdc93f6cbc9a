"""A reference whose forward draws from numpy's global generator, as LayerDrop-style model code does: a random
scale per call (red team, 2026-12-03)."""
import numpy

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x * (1.0 + numpy.random.random()))


def get_inputs():
    return [torch.randn(64, 128)]


def get_init_inputs():
    return []
