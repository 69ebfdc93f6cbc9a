"""Attention-style masked softmax: scores where the boolean mask is false are excluded (-inf) before a row
softmax. get_inputs always passes the causal (lower-triangular) mask, but the mask is an input: any mask is legal."""
import torch
import torch.nn as nn

n = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)


def get_inputs():
    return [torch.randn(n, n), torch.ones(n, n, dtype=torch.bool).tril()]


def get_init_inputs():
    return []
