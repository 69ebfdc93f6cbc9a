"""A forward returning a tuple: two fused results and one that is also an intermediate of the other."""
import torch
import torch.nn as nn

rows, cols = 11, 41


class Model(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor):
        s = torch.sigmoid(x)
        p = s * y
        return s, p + 1.0, torch.tanh(x) - y


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(rows, cols)]


def get_init_inputs():
    return []
