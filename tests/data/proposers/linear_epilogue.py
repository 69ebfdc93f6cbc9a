"""Linear, then a scaled GELU and a shift: the bias-split plan adds the linear's bias in the fused kernel."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size, in_features, out_features = 19, 37, 29


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, scale: float):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.shift = nn.Parameter(torch.randn(out_features) * 0.1)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        return F.gelu(y * self.scale) + self.shift


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, 0.75]
