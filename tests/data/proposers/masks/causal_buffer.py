"""Causal softmax with a bool tril mask buffer sliced by the input's size (nanoGPT style), fp16."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, heads, seq, block_size = 2, 3, 8, 16


class Model(nn.Module):
    def __init__(self, block_size: int):
        super().__init__()
        mask = torch.tril(torch.ones(block_size, block_size, dtype=torch.bool))
        self.register_buffer("bias", mask.view(1, 1, block_size, block_size), persistent=False)

    def forward(self, att: torch.Tensor) -> torch.Tensor:
        t = att.size(-1)
        att = att.masked_fill(~self.bias[:, :, :t, :t], float("-inf"))
        return F.softmax(att, dim=-1)


def get_inputs():
    return [torch.randn(batch, heads, seq, seq, dtype=torch.float16)]


def get_init_inputs():
    return [block_size]
