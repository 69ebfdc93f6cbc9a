"""Conv2d, ReLU and a per-channel bias parameter of shape (C, 1, 1), as in KernelBench level 2."""
import torch
import torch.nn as nn

batch_size, in_channels, out_channels, size, kernel_size = 2, 3, 5, 9, 3
bias_shape = (out_channels, 1, 1)


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = self.conv(x)
        x = torch.relu(x)
        x = x + self.bias
        return x


def get_inputs():
    return [torch.randn(batch_size, in_channels, size, size)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, bias_shape]
