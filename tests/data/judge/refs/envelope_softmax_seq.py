"""Softmax over a sequence of attention scores: (batch, seq) float32, normalised over the sequence."""
import torch
import torch.nn as nn

batch, seq = 4, 16


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        return torch.softmax(scores, dim=-1)


def get_inputs():
    return [torch.randn(batch, seq)]


def get_init_inputs():
    return []
