"""A conv output broadcast into a kernel of higher rank: the bias-split plan must add the bias per channel."""
import torch
import torch.nn as nn

batch_size, in_channels, out_channels, size, kernel_size, copies = 2, 3, 4, 7, 3, 3


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, img: torch.Tensor, gain: torch.Tensor) -> torch.Tensor:
        c = self.conv(img)                # (2, 4, 5, 5)
        return torch.relu(c * gain)       # gain is (3, 2, 4, 5, 5)


def get_inputs():
    out = size - kernel_size + 1
    return [torch.randn(batch_size, in_channels, size, size), torch.randn(copies, batch_size, out_channels, out, out)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
