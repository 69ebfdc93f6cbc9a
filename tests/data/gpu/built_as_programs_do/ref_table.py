"""The reference of plain_tensor_attribute and triton_in_constructor: a table kept as a non-persistent buffer."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """Per-channel frequency scaling (a RoPE-style inv_freq kept as a non-persistent buffer, as HF does)."""
    def __init__(self, dim: int):
        super().__init__()
        inv_freq = 1.0 / (10000.0 ** (torch.arange(dim).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sin(x * self.inv_freq)


batch, dim = 4, 16


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return [dim]
