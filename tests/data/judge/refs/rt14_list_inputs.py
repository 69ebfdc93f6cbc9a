"""Ensemble head: the class probabilities of the mean of several heads' logits (plus a learned class bias). (red team
14, 2026-12-03: a list of tensors as the input.)"""
import torch
import torch.nn as nn

batch, classes, heads = 16, 64, 3


class Model(nn.Module):
    def __init__(self, classes: int):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(classes))

    def forward(self, logits: list[torch.Tensor]) -> torch.Tensor:
        z = torch.stack(logits).mean(0) + self.bias
        return torch.softmax(z, dim=-1)


def get_inputs():
    return [[torch.randn(batch, classes) for _ in range(heads)]]


def get_init_inputs():
    return [classes]
