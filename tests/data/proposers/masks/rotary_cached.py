"""Rotary embedding with cos/sin cache buffers sliced to the sequence length and rotate_half (LLaMA style), bf16."""
import torch
import torch.nn as nn

batch, heads, seq, head_dim, max_positions = 2, 2, 8, 16, 32


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Model(nn.Module):
    def __init__(self, dim: int, max_position_embeddings: int, base: float = 10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        freqs = torch.outer(torch.arange(max_position_embeddings, dtype=torch.float32), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def forward(self, q: torch.Tensor, k: torch.Tensor):
        seq_len = q.shape[-2]
        cos = self.cos_cached[:seq_len].to(q.dtype)[None, None, :, :]
        sin = self.sin_cached[:seq_len].to(q.dtype)[None, None, :, :]
        return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    return [torch.randn(*shape, dtype=torch.bfloat16), torch.randn(*shape, dtype=torch.bfloat16)]


def get_init_inputs():
    return [head_dim, max_positions]
