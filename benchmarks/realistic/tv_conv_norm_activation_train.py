# requires: torchvision
"""torchvision.ops.misc.Conv2dNormActivation (conv3x3, BatchNorm2d, Hardswish) in training mode, the MobileNetV3 stem block (fp32)."""
import torch
import torch.nn as nn
from torchvision.ops.misc import Conv2dNormActivation

batch, in_channels, out_channels, size = 16, 64, 128, 56
SMALL_SIZES = {"batch": 2, "in_channels": 4, "out_channels": 8, "size": 6}


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.block = Conv2dNormActivation(in_channels, out_channels, kernel_size=3, stride=1,
                                          norm_layer=nn.BatchNorm2d, activation_layer=nn.Hardswish)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.block(x)


def get_inputs():
    return [torch.randn(batch, in_channels, size, size)]


def get_init_inputs():
    return [in_channels, out_channels]
