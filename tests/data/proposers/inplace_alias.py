"""An in-place op on an intermediate that is read again afterwards under its old name (an alias)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

rows, cols = 7, 33


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2.0
        z = F.relu(y, inplace=True)      # y is now relu(y) too
        return y + z


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
