"""QK-norm before attention (Qwen3/OLMo-2 style): per-head RMSNorm of q and k over head_dim, then transpose to (B, H, T, D), bf16."""
import torch
import torch.nn as nn

batch, seq, heads, head_dim = 4, 1024, 32, 128
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "seq": 8, "heads": 2, "head_dim": 16}


class HeadRMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        x = x.to(torch.float32)
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


class Model(nn.Module):
    def __init__(self, head_dim: int):
        super().__init__()
        self.q_norm = HeadRMSNorm(head_dim)
        self.k_norm = HeadRMSNorm(head_dim)
        self.to(dtype)

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.q_norm(q).transpose(1, 2), self.k_norm(k).transpose(1, 2)


def get_inputs():
    shape = (batch, seq, heads, head_dim)
    return [torch.randn(*shape, dtype=dtype), torch.randn(*shape, dtype=dtype)]


def get_init_inputs():
    return [head_dim]
