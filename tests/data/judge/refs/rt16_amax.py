"""Red team 16 (2026-12-04, a9): the maximum of each row, trained. Its gradient is split evenly among tied maxima
(ReLU'd or quantised features tie often)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.amax(x, dim=-1)


def get_inputs():
    return [torch.randn(8, 32)]


def get_init_inputs():
    return []
