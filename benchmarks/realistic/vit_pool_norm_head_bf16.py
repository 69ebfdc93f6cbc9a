"""ViT classifier head in bf16: drop the class token, mean-pool the patch tokens, LayerNorm, linear."""
import torch
import torch.nn as nn

batch, tokens, embed_dim, num_classes = 32, 197, 768, 1000
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "tokens": 5, "embed_dim": 16, "num_classes": 10}


class Model(nn.Module):
    def __init__(self, embed_dim: int, num_classes: int):
        super().__init__()
        self.fc_norm = nn.LayerNorm(embed_dim, eps=1e-6)
        self.head = nn.Linear(embed_dim, num_classes)
        self.to(dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x[:, 1:].mean(dim=1)
        return self.head(self.fc_norm(x))


def get_inputs():
    return [torch.randn(batch, tokens, embed_dim, dtype=dtype)]


def get_init_inputs():
    return [embed_dim, num_classes]
