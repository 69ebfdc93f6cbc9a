"""Keep x where the boolean mask is true, zero elsewhere. get_inputs passes the causal mask; any mask is legal."""
import torch
import torch.nn as nn

n = 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return torch.where(mask, x, torch.zeros_like(x))


def get_inputs():
    return [torch.randn(n, n), torch.ones(n, n, dtype=torch.bool).tril()]


def get_init_inputs():
    return []
