"""Scale then dropout, the dropout probability a constructor argument."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, p: float):
        super().__init__()
        self.dropout = nn.Dropout(p)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(torch.tanh(x))


def get_inputs():
    return [torch.randn(64, 128)]


def get_init_inputs():
    return [0.25]
