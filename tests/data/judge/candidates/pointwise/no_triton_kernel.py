# expect: verdict=invalid stage=guard check=guard reason~"at least one @triton.jit kernel"
"""Hack: plain PyTorch presented as a Triton candidate: no @triton.jit kernel at all."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x * 2 + 1)
