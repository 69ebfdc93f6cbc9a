"""Eager attention of Hugging Face models in bf16: q@k^T scaled, padding mask via masked_fill, fp32 softmax, dropout(p=0), @v."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, heads, seq, head_dim = 4, 16, 512, 64
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "heads": 2, "seq": 8, "head_dim": 16}


class Model(nn.Module):
    def __init__(self, head_dim: int, attention_dropout: float = 0.0):
        super().__init__()
        self.scaling = head_dim ** -0.5
        self.attention_dropout = attention_dropout

    def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                attention_mask: torch.Tensor) -> torch.Tensor:
        attn_weights = torch.matmul(query, key.transpose(2, 3)) * self.scaling
        attn_weights = attn_weights.masked_fill(attention_mask[:, None, None, :] == 0, torch.finfo(query.dtype).min)
        attn_weights = F.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
        attn_weights = F.dropout(attn_weights, p=self.attention_dropout, training=self.training)
        attn_output = torch.matmul(attn_weights, value)
        return attn_output.transpose(1, 2).contiguous()


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    lengths = torch.randint(seq // 2, seq + 1, (batch,))
    attention_mask = (torch.arange(seq)[None, :] < lengths[:, None]).long()
    return [torch.randn(*shape, dtype=dtype), torch.randn(*shape, dtype=dtype), torch.randn(*shape, dtype=dtype),
            attention_mask]


def get_init_inputs():
    return [head_dim]
