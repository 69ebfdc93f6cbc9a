"""Training-mode batch norm, then relu: the forward also updates the running statistics and the batch counter
(buffers), which are part of what the module computes."""
import torch
import torch.nn as nn

batch, channels = 16, 24


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.bn = nn.BatchNorm1d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.bn(x))


def get_inputs():
    return [torch.randn(batch, channels) * 3.0 + 1.0]


def get_init_inputs():
    return [channels]
