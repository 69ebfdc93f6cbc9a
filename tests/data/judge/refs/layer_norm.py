"""LayerNorm over the last dimension (64), with its affine weight and bias (initially ones and zeros)."""
import torch
import torch.nn as nn

rows, features = 16, 64


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.norm = nn.LayerNorm(features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def get_inputs():
    return [torch.randn(rows, features)]


def get_init_inputs():
    return [features]
