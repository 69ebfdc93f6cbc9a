import torch
import torch.nn as nn

class Model(nn.Module):
    """softmax over the last dim with an optional boolean mask (True = masked out)"""
    def __init__(self):
        super().__init__()

    def forward(self, x, mask=None):
        if mask is not None:
            x = x.masked_fill(mask, float("-inf"))
        return torch.softmax(x, dim=-1)

def get_inputs():
    return [torch.randn(8, 32)]
def get_init_inputs():
    return []
