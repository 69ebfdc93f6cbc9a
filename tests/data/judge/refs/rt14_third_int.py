"""A two-layer MLP head: fc1 -> GELU -> fc2. (red team 14, 2026-12-03: a third int constructor argument far from the
traced one.)"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, in_features, hidden, out_features = 16, 32, 64, 48


class Model(nn.Module):
    def __init__(self, in_features: int, hidden: int, out_features: int):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(F.gelu(self.fc1(x)))


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, hidden, out_features]
