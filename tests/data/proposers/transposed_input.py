"""A non-contiguous value inside forward: the input transposed, then pointwise ops."""
import torch
import torch.nn as nn

rows, cols = 13, 31


class Model(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        t = x.transpose(0, 1)
        return torch.sigmoid(t) * y + t


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(cols, rows)]


def get_init_inputs():
    return []
