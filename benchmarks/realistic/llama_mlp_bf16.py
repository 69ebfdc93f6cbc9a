"""LLaMA MLP in bf16: down_proj(silu(gate_proj(x)) * up_proj(x)) with bias-free linears."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, seq, hidden, intermediate = 4, 512, 2048, 5632
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "seq": 8, "hidden": 32, "intermediate": 48}


class Model(nn.Module):
    def __init__(self, hidden_size: int, intermediate_size: int):
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)
        self.to(dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


def get_inputs():
    return [torch.randn(batch, seq, hidden, dtype=dtype)]


def get_init_inputs():
    return [hidden, intermediate]
