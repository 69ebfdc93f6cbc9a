"""MobileNetV3 bneck middle in eval mode, fp32: depthwise conv-BN-Hardswish, squeeze-excitation with Hardsigmoid, 1x1 project-BN, residual."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, channels, expanded, size = 32, 40, 120, 28
SMALL_SIZES = {"batch": 2, "channels": 4, "expanded": 8, "size": 5}


def make_divisible(v: float, divisor: int = 8) -> int:
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


class Model(nn.Module):
    def __init__(self, channels: int, expanded: int):
        super().__init__()
        squeezed = make_divisible(expanded // 4)
        self.dw = nn.Conv2d(expanded, expanded, 5, padding=2, groups=expanded, bias=False)
        self.dw_bn = nn.BatchNorm2d(expanded)
        self.dw_act = nn.Hardswish()
        self.fc1 = nn.Conv2d(expanded, squeezed, 1)
        self.fc2 = nn.Conv2d(squeezed, expanded, 1)
        self.project = nn.Conv2d(expanded, channels, 1, bias=False)
        self.project_bn = nn.BatchNorm2d(channels)
        self.eval()

    def forward(self, x: torch.Tensor, shortcut: torch.Tensor) -> torch.Tensor:
        x = self.dw_act(self.dw_bn(self.dw(x)))
        scale = F.adaptive_avg_pool2d(x, 1)
        scale = F.hardsigmoid(self.fc2(F.relu(self.fc1(scale))))
        x = x * scale
        return self.project_bn(self.project(x)) + shortcut


def get_inputs():
    return [torch.randn(batch, expanded, size, size), torch.randn(batch, channels, size, size)]


def get_init_inputs():
    return [channels, expanded]
