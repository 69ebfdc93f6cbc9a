"""Reference: softmax over a dim computed in forward from the input's rank (a value only known at run time)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=x.dim() - 1)


def get_inputs():
    return [torch.randn(4, 16)]


def get_init_inputs():
    return []
