"""A user's file as it often is: ``from __future__ import annotations`` first, annotations naming the class,
and a subclass of the optimized module in the same file (the candidate drops the subclass; the future import
stays first)."""
from __future__ import annotations

import torch
import torch.nn as nn

rows, cols = 13, 40


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x * 2.0 + 1.0)

    def clone_model(self) -> Model:
        return Model()


class ScaledModel(Model):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(x) * 0.5


def make_model() -> Model:
    return ScaledModel()


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
