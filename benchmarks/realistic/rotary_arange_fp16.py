"""Rotary embedding whose positions come from torch.arange inside forward (cos/sin built per call), fp16, (B, T, H, D) layout."""
import torch
import torch.nn as nn

batch, seq, heads, head_dim = 4, 2048, 16, 64
dtype = torch.float16
SMALL_SIZES = {"batch": 2, "seq": 8, "heads": 2, "head_dim": 16}


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Model(nn.Module):
    def __init__(self, dim: int, base: float = 10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        seq_len = x.shape[1]
        t = torch.arange(seq_len, device=x.device, dtype=self.inv_freq.dtype)
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos()[None, :, None, :].to(x.dtype)
        sin = emb.sin()[None, :, None, :].to(x.dtype)
        return x * cos + rotate_half(x) * sin


def get_inputs():
    return [torch.randn(batch, seq, heads, head_dim, dtype=dtype)]


def get_init_inputs():
    return [head_dim]
