"""Row-wise L2 normalisation of embeddings over the last dim (no parameters). (red team 14, 2026-12-03: a fixed dim
much wider than the traced one.)"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, dim = 32, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(x, dim=-1)


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return []
