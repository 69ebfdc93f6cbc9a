# requires: transformers
"""A subclass of Hugging Face transformers' LlamaMLP built from a small LlamaConfig, in bf16."""
import torch
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaMLP

batch, seq, hidden, intermediate = 4, 512, 2048, 5632
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "seq": 8, "hidden": 32, "intermediate": 48}


class Model(LlamaMLP):
    def __init__(self, hidden_size: int, intermediate_size: int):
        config = LlamaConfig(hidden_size=hidden_size, intermediate_size=intermediate_size, hidden_act="silu",
                             num_hidden_layers=1, num_attention_heads=max(1, hidden_size // 128))
        super().__init__(config)
        self.to(dtype)


def get_inputs():
    return [torch.randn(batch, seq, hidden, dtype=dtype)]


def get_init_inputs():
    return [hidden, intermediate]
