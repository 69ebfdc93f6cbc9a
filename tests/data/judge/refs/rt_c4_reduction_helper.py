"""Red team, 2026-12-03: the option compared in a helper function, not in forward (the judge tried only the
traced value)."""
import torch
import torch.nn as nn

def _reduce(x, how):
    if how == "sum":
        return x.sum(dim=1)
    if how in ("max", "amax"):
        return x.amax(dim=1)
    return x.mean(dim=1)


class Model(nn.Module):
    def forward(self, x: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
        return _reduce(x, reduction)


def get_inputs():
    return [torch.randn(64, 100)]


def get_init_inputs():
    return []
