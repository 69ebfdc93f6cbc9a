"""Red team, 2026-12-03: a bool constructor argument (keepdim) (the judge tried only the traced value)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, keepdim: bool = False):
        super().__init__()
        self.keepdim = keepdim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.mean(dim=1, keepdim=self.keepdim)


def get_inputs():
    return [torch.randn(64, 100)]


def get_init_inputs():
    return [False]
