"""ConvNeXt channels_first LayerNorm written out in bf16: mean and variance over dim 1, weight[:, None, None] and bias[:, None, None]."""
import torch
import torch.nn as nn

batch, channels, size = 16, 192, 56
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "channels": 8, "size": 5}


class Model(nn.Module):
    def __init__(self, normalized_shape: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))
        self.eps = eps
        self.to(dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]


def get_inputs():
    return [torch.randn(batch, channels, size, size, dtype=dtype)]


def get_init_inputs():
    return [channels]
