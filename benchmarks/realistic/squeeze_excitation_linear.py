"""SENet squeeze-excitation with linears: mean over H and W, fc-ReLU-fc-sigmoid, view(b, c, 1, 1), scale (fp32)."""
import torch
import torch.nn as nn

batch, channels, size = 16, 512, 28
reduction = 16
SMALL_SIZES = {"batch": 2, "channels": 32, "size": 5}


class Model(nn.Module):
    def __init__(self, channel: int, reduction: int):
        super().__init__()
        self.avg_pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Sequential(
            nn.Linear(channel, channel // reduction, bias=False),
            nn.ReLU(inplace=True),
            nn.Linear(channel // reduction, channel, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, _, _ = x.size()
        y = self.avg_pool(x).view(b, c)
        y = self.fc(y).view(b, c, 1, 1)
        return x * y.expand_as(x)


def get_inputs():
    return [torch.randn(batch, channels, size, size)]


def get_init_inputs():
    return [channels, reduction]
