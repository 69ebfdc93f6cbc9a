"""LLaMA-style RMSNorm in bf16 with fp32 statistics (the hand-written norm of LLaMA/Mistral model code)."""
import torch
import torch.nn as nn

batch, seq, hidden = 4, 2048, 4096
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "seq": 8, "hidden": 64}


class Model(nn.Module):
    def __init__(self, hidden_size: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps
        self.to(dtype)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.float()
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


def get_inputs():
    return [torch.randn(batch, seq, hidden, dtype=dtype)]


def get_init_inputs():
    return [hidden]
