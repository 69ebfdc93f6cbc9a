# requires: torchvision
"""torchvision Conv2dNormActivation (1x1 conv, BatchNorm2d, ReLU6) in eval mode and fp16, a MobileNetV2 expansion for inference."""
import torch
import torch.nn as nn
from torchvision.ops.misc import Conv2dNormActivation

batch, in_channels, out_channels, size = 32, 64, 384, 28
dtype = torch.float16
SMALL_SIZES = {"batch": 2, "in_channels": 4, "out_channels": 8, "size": 5}


class Model(Conv2dNormActivation):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__(in_channels, out_channels, kernel_size=1, norm_layer=nn.BatchNorm2d,
                         activation_layer=nn.ReLU6)
        self.eval()
        self.to(dtype)


def get_inputs():
    return [torch.randn(batch, in_channels, size, size, dtype=dtype)]


def get_init_inputs():
    return [in_channels, out_channels]
