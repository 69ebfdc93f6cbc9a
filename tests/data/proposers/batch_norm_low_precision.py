"""Batch norm in mixed precision: an fp32 module on fp16 input returns fp16 in torch; the rewrite into fused
kernels would return fp32, so these stay modules (training and eval mode) and the ops around them fuse."""
import torch
import torch.nn as nn

batch, channels, size = 4, 8, 6


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.train_mode = nn.BatchNorm2d(channels)
        self.eval_mode = nn.BatchNorm2d(channels).eval()

    def forward(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.relu(self.train_mode(h)) * 2.0, torch.relu(self.eval_mode(h)) * 2.0


def get_inputs():
    return [torch.randn(batch, channels, size, size).half()]


def get_init_inputs():
    return [channels]
