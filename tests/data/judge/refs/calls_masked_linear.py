import torch
import torch.nn as nn

class Model(nn.Module):
    """a linear layer whose weight is multiplied by a 0/1 connectivity mask kept as a (persistent) buffer,
    as in pruning or MADE"""
    def __init__(self, IN, OUT):
        super().__init__()
        self.linear = nn.Linear(IN, OUT)
        self.register_buffer("mask", torch.tril(torch.ones(OUT, IN)))

    def forward(self, x):
        return torch.nn.functional.linear(x, self.linear.weight * self.mask, self.linear.bias)

def get_inputs():
    return [torch.randn(8, 16)]
def get_init_inputs():
    return [16, 16]
