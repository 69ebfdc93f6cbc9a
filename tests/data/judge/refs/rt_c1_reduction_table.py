"""Red team, 2026-12-03: the reduction picked from a dict keyed by its options (the judge tried only the traced
value)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
        return {"mean": torch.mean, "sum": torch.sum, "amax": torch.amax}[reduction](x, dim=1)


def get_inputs():
    return [torch.randn(64, 100)]


def get_init_inputs():
    return []
