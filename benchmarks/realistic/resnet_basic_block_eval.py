"""ResNet BasicBlock in eval mode, fp32: conv3x3-BN-ReLU, conv3x3-BN, identity add, ReLU (no stochastic depth)."""
import torch
import torch.nn as nn

batch, planes, size = 16, 128, 28
SMALL_SIZES = {"batch": 2, "planes": 4, "size": 6}


def conv3x3(in_planes: int, out_planes: int) -> nn.Conv2d:
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=1, padding=1, bias=False)


class Model(nn.Module):
    def __init__(self, planes: int):
        super().__init__()
        self.conv1 = conv3x3(planes, planes)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        with torch.no_grad():
            for bn in (self.bn1, self.bn2):
                bn.running_mean.uniform_(-0.2, 0.2)
                bn.running_var.uniform_(0.5, 1.5)
        self.eval()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


def get_inputs():
    return [torch.randn(batch, planes, size, size)]


def get_init_inputs():
    return [planes]
