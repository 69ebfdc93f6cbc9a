"""A learned positional table added to a (batch, sequence, features) input: any batch size works, but the
sequence length must be the table's (16), so only the batch size is free for a patch."""
import torch
import torch.nn as nn

batch, seq, features = 4, 16, 32


class Model(nn.Module):
    def __init__(self, seq: int, features: int):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(seq, features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.pos


def get_inputs():
    return [torch.randn(batch, seq, features)]


def get_init_inputs():
    return [seq, features]
