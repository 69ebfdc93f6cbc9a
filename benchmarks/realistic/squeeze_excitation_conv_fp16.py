"""EfficientNet squeeze-excitation in fp16: adaptive average pool to 1, 1x1 conv reduce, SiLU, 1x1 conv expand, sigmoid, scale."""
import torch
import torch.nn as nn

batch, channels, size = 32, 256, 28
reduction = 4
dtype = torch.float16
SMALL_SIZES = {"batch": 2, "channels": 16, "size": 5}


class Model(nn.Module):
    def __init__(self, channels: int, reduction: int):
        super().__init__()
        squeezed = channels // reduction
        self.avg_pool = nn.AdaptiveAvgPool2d(1)
        self.conv_reduce = nn.Conv2d(channels, squeezed, 1)
        self.act = nn.SiLU(inplace=True)
        self.conv_expand = nn.Conv2d(squeezed, channels, 1)
        self.gate = nn.Sigmoid()
        self.to(dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_se = self.avg_pool(x)
        x_se = self.conv_reduce(x_se)
        x_se = self.act(x_se)
        x_se = self.conv_expand(x_se)
        return x * self.gate(x_se)


def get_inputs():
    return [torch.randn(batch, channels, size, size, dtype=dtype)]


def get_init_inputs():
    return [channels, reduction]
