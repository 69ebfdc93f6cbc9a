"""Red team 16 (2026-12-04): a softmax over the last dim of (B, S, N), trained: its candidates bring their own
backward (a custom autograd.Function), where the judge once tried only the inference path at most sizes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(4, 8, 32)]


def get_init_inputs():
    return []
