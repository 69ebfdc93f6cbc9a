"""The shipped example, smaller: a linear layer, a bias shift and an exact GELU (detects_gpu_build and
fast_only_when_gpu_built are judged against it)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.shift = nn.Parameter(torch.randn(out_features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x) + self.shift
        return torch.nn.functional.gelu(y)


batch_size, in_features, out_features = 4, 16, 24


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
