import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.nn.functional.gelu(self.linear(x))

B, IN, OUT = 16, 32, 48
def get_inputs():
    return [torch.randn(B, IN)]
def get_init_inputs():
    return [IN, OUT]
