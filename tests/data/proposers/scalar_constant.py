"""A scalar tensor constant created inside forward (torch.tensor(0.5)), used as a pointwise operand."""
import torch
import torch.nn as nn

rows, cols = 9, 129


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.min(x, torch.tensor(0.5)) * 2.0


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
