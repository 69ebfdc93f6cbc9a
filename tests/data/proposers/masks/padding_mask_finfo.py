"""Padding mask by masked_fill with torch.finfo(dtype).min, then softmax (Hugging Face eager attention), bf16."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, heads, seq = 2, 3, 8


class Model(nn.Module):
    def forward(self, scores: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        scores = scores.masked_fill(attention_mask[:, None, None, :] == 0, torch.finfo(scores.dtype).min)
        return F.softmax(scores, dim=-1)


def get_inputs():
    lengths = torch.randint(seq // 2, seq + 1, (batch,))
    attention_mask = (torch.arange(seq)[None, :] < lengths[:, None]).long()
    return [torch.randn(batch, heads, seq, seq, dtype=torch.bfloat16), attention_mask]


def get_init_inputs():
    return []
