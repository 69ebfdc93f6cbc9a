"""A Linear + epilogue feeding a matmul with a second input, returning two outputs (the GEMM plans)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(40, 24)
        self.scale = nn.Parameter(torch.randn(24))

    def forward(self, x, y):
        h = torch.relu(self.fc(x)) * self.scale + 0.5
        return torch.matmul(h, y) - 1.0, h


def get_inputs():
    return [torch.randn(37, 40), torch.randn(24, 19)]


def get_init_inputs():
    return []
