"""Causal attention through F.scaled_dot_product_attention on (B, T, C) projections split into heads (nanoGPT flash path), bf16."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, seq, n_embd, n_head = 4, 1024, 1024, 16
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "seq": 8, "n_embd": 32, "n_head": 2}


class Model(nn.Module):
    def __init__(self, n_head: int):
        super().__init__()
        self.n_head = n_head

    def forward(self, qkv: torch.Tensor) -> torch.Tensor:
        b, t, three_c = qkv.size()
        c = three_c // 3
        q, k, v = qkv.split(c, dim=2)
        q = q.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        k = k.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        v = v.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=True)
        return y.transpose(1, 2).contiguous().view(b, t, c)


def get_inputs():
    return [torch.randn(batch, seq, 3 * n_embd, dtype=dtype)]


def get_init_inputs():
    return [n_head]
