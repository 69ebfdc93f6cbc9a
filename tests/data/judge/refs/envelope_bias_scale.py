"""y = x * scale + bias: a fixed per-feature scale kept as a buffer (not trained), a trained bias."""
import torch
import torch.nn as nn

batch, features = 8, 32


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.register_buffer("scale", torch.linspace(0.5, 1.5, features))
        self.bias = nn.Parameter(torch.randn(features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale + self.bias


def get_inputs():
    return [torch.randn(batch, features)]


def get_init_inputs():
    return [features]
