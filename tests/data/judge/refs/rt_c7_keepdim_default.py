"""Red team, 2026-12-03: a bool forward parameter with a default (keepdim) (the judge tried only the traced
value)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, keepdim: bool = False) -> torch.Tensor:
        return x.mean(dim=1, keepdim=keepdim)


def get_inputs():
    return [torch.randn(64, 100)]


def get_init_inputs():
    return []
