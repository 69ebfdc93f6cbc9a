# requires: timm
"""timm.layers.LayerNorm2d over the channels of an NCHW feature map (ConvNeXt downsampling norm), fp32."""
import torch
import torch.nn as nn
from timm.layers import LayerNorm2d

batch, channels, size = 16, 256, 56
SMALL_SIZES = {"batch": 2, "channels": 8, "size": 5}


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.norm = LayerNorm2d(channels, eps=1e-6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch, channels, size, size)]


def get_init_inputs():
    return [channels]
