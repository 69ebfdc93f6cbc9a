"""The reference's constructor raises for its own init inputs."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels: int, groups: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 1, groups=groups)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


def get_inputs():
    return [torch.randn(2, 6, 5, 5)]


def get_init_inputs():
    return [6, 4]      # 6 channels are not divisible into 4 groups
