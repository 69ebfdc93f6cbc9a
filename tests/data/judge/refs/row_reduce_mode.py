"""A row reduction chosen by a string argument with a default, as losses and pooling layers take one
(red team b21): the mean over 100 columns unless the program passes another mode."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
        if reduction == "sum":
            return x.sum(dim=1)
        if reduction in ("max", "amax"):
            return x.amax(dim=1)
        return x.mean(dim=1)


def get_inputs():
    return [torch.randn(64, 100)]


def get_init_inputs():
    return []
