"""F.layer_norm with a weight and bias of the module's own, and without affine; rows of 1500 (looped kernel)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

rows, cols = 3, 1500


class Model(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(cols) + 0.5)
        self.bias = nn.Parameter(torch.randn(cols) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = F.layer_norm(x, (x.shape[-1],), self.weight, self.bias, eps=1e-6)
        b = F.layer_norm(x * 2.0, (1500,))
        return a - b


def get_inputs():
    return [torch.randn(rows, cols) * 3.0 + 1.0]


def get_init_inputs():
    return [cols]
