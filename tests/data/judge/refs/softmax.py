"""Row softmax over 100 classes, scaled by 1e-4.

The scale keeps every output below the fp32 atol (1e-4), so an all-zeros answer passes the elementwise
check and only the judge's relative-L2 check can reject it.
"""
import torch
import torch.nn as nn

SCALE = 1e-4


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1) * SCALE


def get_inputs():
    return [torch.randn(32, 100)]


def get_init_inputs():
    return []
