"""ResNet conv-bn-relu in training mode (batch statistics, running stats updated), fp32: conv3x3 without bias, BatchNorm2d, ReLU."""
import torch
import torch.nn as nn

batch, in_channels, out_channels, size = 16, 64, 64, 56
SMALL_SIZES = {"batch": 2, "in_channels": 4, "out_channels": 8, "size": 6}


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.relu(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(batch, in_channels, size, size)]


def get_init_inputs():
    return [in_channels, out_channels]
