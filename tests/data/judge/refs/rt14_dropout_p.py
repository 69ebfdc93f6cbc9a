"""Linear -> GELU -> Dropout, the feed-forward half of a transformer block (dropout scheduled by the trainer). (red
team 14, 2026-12-03: the dropout rate changed at run time.)"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, in_features, out_features, p = 16, 32, 64, 0.1


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int, p: float):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.drop = nn.Dropout(p)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(F.gelu(self.fc(x)))


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features, p]
