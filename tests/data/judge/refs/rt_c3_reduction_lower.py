"""Red team, 2026-12-03: the option compared through reduction.lower() (the judge tried only the traced value)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
        if reduction.lower() == "sum":
            return x.sum(dim=1)
        if reduction.lower() in ("max", "amax"):
            return x.amax(dim=1)
        return x.mean(dim=1)


def get_inputs():
    return [torch.randn(64, 100)]


def get_init_inputs():
    return []
