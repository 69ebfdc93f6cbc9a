"""GPT-2 MLP in fp16: c_fc, the tanh-approximate GELU written out as GPT-2 code writes it, c_proj."""
import math

import torch
import torch.nn as nn

batch, seq, n_embd = 8, 512, 1024
dtype = torch.float16
SMALL_SIZES = {"batch": 2, "seq": 8, "n_embd": 32}


def new_gelu(x: torch.Tensor) -> torch.Tensor:
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Model(nn.Module):
    def __init__(self, n_embd: int):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.c_proj = nn.Linear(4 * n_embd, n_embd)
        self.dropout = nn.Dropout(0.0)
        self.to(dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.c_fc(x)
        x = new_gelu(x)
        x = self.c_proj(x)
        return self.dropout(x)


def get_inputs():
    return [torch.randn(batch, seq, n_embd, dtype=dtype)]


def get_init_inputs():
    return [n_embd]
