# requires: torchvision
"""torchvision.ops.SqueezeExcitation with SiLU (as torchvision's EfficientNet builds it) on fp32 feature maps."""
import torch
import torch.nn as nn
from torchvision.ops import SqueezeExcitation

batch, channels, size = 32, 240, 28
SMALL_SIZES = {"batch": 2, "channels": 16, "size": 5}


class Model(SqueezeExcitation):
    def __init__(self, channels: int):
        super().__init__(channels, max(1, channels // 24), activation=nn.SiLU)


def get_inputs():
    return [torch.randn(batch, channels, size, size)]


def get_init_inputs():
    return [channels]
