"""repeat_kv of grouped-query attention (LLaMA-2-70B/Mistral): expand key/value heads with a view, reshape, bf16."""
import torch
import torch.nn as nn

batch, kv_heads, n_rep, seq, head_dim = 4, 8, 4, 1024, 128
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "kv_heads": 2, "n_rep": 2, "seq": 8, "head_dim": 16}


def repeat_kv(hidden_states: torch.Tensor, n_rep: int) -> torch.Tensor:
    b, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(b, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(b, num_key_value_heads * n_rep, slen, head_dim)


class Model(nn.Module):
    def __init__(self, num_key_value_groups: int):
        super().__init__()
        self.num_key_value_groups = num_key_value_groups

    def forward(self, key_states: torch.Tensor, value_states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return repeat_kv(key_states, self.num_key_value_groups), repeat_kv(value_states, self.num_key_value_groups)


def get_inputs():
    shape = (batch, kv_heads, seq, head_dim)
    return [torch.randn(*shape, dtype=dtype), torch.randn(*shape, dtype=dtype)]


def get_init_inputs():
    return [n_rep]
