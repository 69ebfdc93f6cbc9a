"""Diffusion UNet normalization in fp16: GroupNorm(32 groups) then SiLU (the norm/act pair before every UNet conv)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, channels, size = 8, 256, 32
dtype = torch.float16
SMALL_SIZES = {"batch": 2, "channels": 64, "size": 4}


class Model(nn.Module):
    def __init__(self, channels: int, groups: int = 32):
        super().__init__()
        self.norm = nn.GroupNorm(num_groups=groups, num_channels=channels, eps=1e-6, affine=True)
        self.to(dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(self.norm(x))


def get_inputs():
    return [torch.randn(batch, channels, size, size, dtype=dtype)]


def get_init_inputs():
    return [channels]
