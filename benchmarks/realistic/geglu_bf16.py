"""GEGLU of diffusion transformers in bf16: one projection to twice the width, chunk, hidden * gelu(gate)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, tokens, dim_in, dim_out = 4, 1024, 1024, 2048
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "tokens": 8, "dim_in": 32, "dim_out": 48}


class Model(nn.Module):
    def __init__(self, dim_in: int, dim_out: int):
        super().__init__()
        self.proj = nn.Linear(dim_in, dim_out * 2)
        self.to(dtype)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        hidden_states, gate = self.proj(hidden_states).chunk(2, dim=-1)
        return hidden_states * F.gelu(gate)


def get_inputs():
    return [torch.randn(batch, tokens, dim_in, dtype=dtype)]


def get_init_inputs():
    return [dim_in, dim_out]
