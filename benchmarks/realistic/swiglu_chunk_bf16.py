"""SwiGLU gate of a fused gate/up projection split with chunk (fused-projection LLaMA/Mistral MLPs), bf16."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, seq, intermediate = 4, 1024, 5504
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "seq": 8, "intermediate": 48}


class Model(nn.Module):
    def forward(self, gate_up: torch.Tensor) -> torch.Tensor:
        gate, up = gate_up.chunk(2, dim=-1)
        return F.silu(gate) * up


def get_inputs():
    return [torch.randn(batch, seq, 2 * intermediate, dtype=dtype)]


def get_init_inputs():
    return []
