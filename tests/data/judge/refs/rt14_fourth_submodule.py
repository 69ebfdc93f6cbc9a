"""A small MLP classifier: fc1 -> GELU -> fc2 -> GELU -> head. (red team 14, 2026-12-03: hooks on, or a new, fourth
submodule.)"""
import torch
import torch.nn as nn

batch, in_features, hidden, classes = 16, 32, 64, 16


class Model(nn.Module):
    def __init__(self, in_features: int, hidden: int, classes: int):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.act(self.fc2(self.act(self.fc1(x)))))


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, hidden, classes]
