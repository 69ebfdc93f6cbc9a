# requires: timm
"""timm.layers.Mlp (fc1, GELU, fc2, dropout 0) as in timm's Vision Transformer blocks, bf16."""
import torch
import torch.nn as nn
from timm.layers import Mlp

batch, tokens, embed_dim, mlp_ratio = 16, 197, 768, 4
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "tokens": 5, "embed_dim": 16}


class Model(nn.Module):
    def __init__(self, embed_dim: int, mlp_ratio: int):
        super().__init__()
        self.mlp = Mlp(in_features=embed_dim, hidden_features=embed_dim * mlp_ratio, act_layer=nn.GELU, drop=0.0)
        self.to(dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp(x)


def get_inputs():
    return [torch.randn(batch, tokens, embed_dim, dtype=dtype)]


def get_init_inputs():
    return [embed_dim, mlp_ratio]
