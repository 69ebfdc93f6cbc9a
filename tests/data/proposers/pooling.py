"""Pooling as Triton kernels: a 2-D max pool whose pointwise input is computed at each read (a fused prologue;
a NaN in the window wins, as in torch), a 2-D average pool with padding counted and one without, a 1-D max
pool with dilation and ceil_mode, a 3-D average pool with a divisor override, and the functional forms."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, channels, height, width, length, depth = 2, 3, 11, 10, 23, 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.max2d = nn.MaxPool2d(3, stride=2, padding=1)
        self.avg2d = nn.AvgPool2d(3, stride=2, padding=1)
        self.avg2d_nopad = nn.AvgPool2d((2, 3), stride=(2, 2), padding=(1, 1), count_include_pad=False)
        self.max1d = nn.MaxPool1d(3, stride=2, dilation=2, ceil_mode=True)
        self.max1d_edge = nn.MaxPool1d(2, stride=2, padding=1, ceil_mode=True)   # on 5: ceil drops a window
        self.avg3d = nn.AvgPool3d(2, divisor_override=3)

    def forward(self, x, s, v):
        pooled = self.max2d(torch.tanh(x) * 2.0 - 0.5)
        return (pooled, self.avg2d(x), self.avg2d_nopad(x), self.max1d(s), self.avg3d(v),
                F.max_pool2d(x, 2), F.avg_pool1d(s, 4, 3), self.max1d_edge(s[:, :, :5]))


def get_inputs():
    x = torch.randn(batch, channels, height, width)
    x[0, 1, 4, 4] = float("nan")
    return [x, torch.randn(batch, channels, length), torch.randn(batch, channels, depth, depth, depth)]


def get_init_inputs():
    return []
