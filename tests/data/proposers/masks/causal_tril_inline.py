"""Scaled causal softmax whose mask is made in forward from torch.ones(t, t).tril(), bf16."""
import math

import torch
import torch.nn as nn

batch, heads, seq, head_dim = 2, 3, 8, 16


class Model(nn.Module):
    def __init__(self, head_dim: int):
        super().__init__()
        self.scale = 1.0 / math.sqrt(head_dim)

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        t = scores.size(-1)
        causal = torch.ones(t, t, device=scores.device).tril().bool()
        scores = (scores * self.scale).masked_fill(~causal, float("-inf"))
        return torch.softmax(scores, dim=-1)


def get_inputs():
    return [torch.randn(batch, heads, seq, seq, dtype=torch.bfloat16)]


def get_init_inputs():
    return [head_dim]
