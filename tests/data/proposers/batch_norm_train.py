"""Training-mode batch norms (batch statistics, running statistics updated): BatchNorm2d on a spatial input
followed by fused pointwise ops, BatchNorm1d on (N, C) rows with a cumulative average (momentum=None), and a
BatchNorm1d without tracked statistics. The judge compares the updated buffers too."""
import torch
import torch.nn as nn

batch, channels, height, width, features = 4, 6, 5, 7, 33


class Model(nn.Module):
    def __init__(self, channels: int, features: int):
        super().__init__()
        self.bn2d = nn.BatchNorm2d(channels)
        self.bn1d = nn.BatchNorm1d(features, momentum=None)
        self.untracked = nn.BatchNorm1d(features, affine=False, track_running_stats=False)

    def forward(self, x: torch.Tensor, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        image = torch.relu(self.bn2d(x) * 2.0)
        return image, self.untracked(self.bn1d(rows)) + 1.0


def get_inputs():
    return [torch.randn(batch, channels, height, width) * 3.0 + 50.0, torch.randn(batch * 3, features)]


def get_init_inputs():
    return [channels, features]
