"""Eval-mode batch norms (running statistics set in the constructor): a per-channel affine map fused with
its pointwise neighbours, after a conv (2-D, NCHW) and after a linear layer (1-D on (N, C)); one without
affine parameters; and a training-mode one (batch statistics, running statistics updated)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels: int, features: int):
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.linear = nn.Linear(channels, features)
        self.bn1d = nn.BatchNorm1d(features, affine=False)
        self.bn_train = nn.BatchNorm1d(features)
        with torch.no_grad():        # non-trivial statistics, as after training
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.2, 0.2)
            self.bn1d.running_mean.uniform_(-0.5, 0.5)
            self.bn1d.running_var.uniform_(0.5, 2.0)
        self.bn.eval()
        self.bn1d.eval()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.relu(self.bn(self.conv(x)))
        pooled = y.mean(dim=(2, 3))
        z = torch.sigmoid(self.bn1d(self.linear(pooled)) * 2.0)
        return y, self.bn_train(z)


def get_inputs():
    return [torch.randn(2, 3, 8, 8)]


def get_init_inputs():
    return [6, 5]
