# requires: transformers
"""Rotary embedding through transformers' LlamaRotaryEmbedding and apply_rotary_pos_emb with arange positions, bf16."""
import torch
import torch.nn as nn
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

batch, heads, seq, head_dim = 4, 32, 1024, 128
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "heads": 2, "seq": 8, "head_dim": 16}


class Model(nn.Module):
    def __init__(self, num_heads: int, head_dim: int):
        super().__init__()
        config = LlamaConfig(hidden_size=num_heads * head_dim, num_attention_heads=num_heads,
                             num_key_value_heads=num_heads, num_hidden_layers=1, max_position_embeddings=4096)
        self.rotary_emb = LlamaRotaryEmbedding(config=config)

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        position_ids = torch.arange(q.shape[2], device=q.device).unsqueeze(0).expand(q.shape[0], -1)
        cos, sin = self.rotary_emb(q, position_ids)
        return apply_rotary_pos_emb(q, k, cos, sin)


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    return [torch.randn(*shape, dtype=dtype), torch.randn(*shape, dtype=dtype)]


def get_init_inputs():
    return [heads, head_dim]
