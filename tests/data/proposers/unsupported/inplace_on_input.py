"""In-place ops on a forward input: the reference mutates its input (x += ..., then an in-place ReLU module)."""
import torch
import torch.nn as nn

rows, cols = 7, 33


class Model(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.shift = nn.Parameter(torch.randn(cols))
        self.act = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x += self.shift
        return self.act(x) * 2.0


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return [cols]
