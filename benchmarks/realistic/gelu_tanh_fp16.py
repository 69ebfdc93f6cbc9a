"""The GELU-tanh activation between an MLP's projections in fp16 (F.gelu(approximate="tanh"), as in Gemma/GPT-NeoX code)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, seq, intermediate = 8, 1024, 4096
dtype = torch.float16
SMALL_SIZES = {"batch": 2, "seq": 8, "intermediate": 64}


class Model(nn.Module):
    def __init__(self, intermediate_size: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(intermediate_size) * 0.02)
        self.to(dtype)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return F.gelu(h + self.bias, approximate="tanh")


def get_inputs():
    return [torch.randn(batch, seq, intermediate, dtype=dtype)]


def get_init_inputs():
    return [intermediate]
