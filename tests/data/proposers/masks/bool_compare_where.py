"""Bool values in one kernel: a comparison with a number (rounded to fp16 first, as torch compares), where,
logical not, and the bool mask itself returned."""
import torch
import torch.nn as nn

rows, cols = 6, 40
threshold = 0.1


class Model(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor):
        keep = x >= threshold
        return torch.where(keep, x, y * 2.0), keep, torch.logical_not(keep)


def get_inputs():
    x = torch.randn(rows, cols, dtype=torch.float16)
    x[:, :4] = threshold       # float16(0.1) < 0.1: kept by torch, which compares in float16
    return [x, torch.randn(rows, cols, dtype=torch.float16)]


def get_init_inputs():
    return []
