import torch
import torch.nn as nn

class Model(nn.Module):
    """Swish with a learnable per-feature beta: x * sigmoid(beta * x)"""
    def __init__(self, D):
        super().__init__()
        self.beta = nn.Parameter(torch.ones(D))

    def forward(self, x):
        return x * torch.sigmoid(self.beta * x)

def get_inputs():
    return [torch.randn(16, 64)]
def get_init_inputs():
    return [64]
