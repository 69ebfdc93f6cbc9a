import torch
import torch.nn as nn

class Model(nn.Module):
    """per-channel scale + bias + relu over an image batch (B, C, H, W)"""
    def __init__(self, C):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(C))
        self.bias = nn.Parameter(torch.randn(C))

    def forward(self, x):
        return torch.relu(x * self.scale.view(1, -1, 1, 1) + self.bias.view(1, -1, 1, 1))

def get_inputs():
    return [torch.randn(4, 8, 6, 6)]
def get_init_inputs():
    return [8]
