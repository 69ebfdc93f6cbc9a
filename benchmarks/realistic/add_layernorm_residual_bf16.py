"""Residual add then LayerNorm in bf16, returning the normed value and the new residual (pre-norm decoder blocks)."""
import torch
import torch.nn as nn

batch, seq, hidden = 4, 1024, 2048
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "seq": 8, "hidden": 64}


class Model(nn.Module):
    def __init__(self, hidden_size: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden_size, eps=1e-5)
        self.to(dtype)

    def forward(self, hidden_states: torch.Tensor, residual: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        residual = hidden_states + residual
        hidden_states = self.norm(residual)
        return hidden_states, residual


def get_inputs():
    return [torch.randn(batch, seq, hidden, dtype=dtype), torch.randn(batch, seq, hidden, dtype=dtype)]


def get_init_inputs():
    return [hidden]
