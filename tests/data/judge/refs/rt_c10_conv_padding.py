"""Red team, 2026-12-03: Conv2d built from five int arguments, padding the fifth (the judge tried only the traced
value)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


batch_size, in_channels, out_channels, kernel_size, stride, padding = 8, 3, 8, 3, 1, 1


def get_inputs():
    return [torch.randn(batch_size, in_channels, 16, 16)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding]
