"""ViT input stem in bf16: conv patch embedding, flatten(2).transpose(1, 2), class token concatenated, position embedding added."""
import torch
import torch.nn as nn

batch, img_size, patch_size, in_chans, embed_dim = 8, 224, 16, 3, 768
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "img_size": 8, "patch_size": 4, "embed_dim": 16}


class Model(nn.Module):
    def __init__(self, img_size: int, patch_size: int, in_chans: int, embed_dim: int):
        super().__init__()
        num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, embed_dim) * 0.02)
        self.pos_drop = nn.Dropout(p=0.0)
        self.to(dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.proj(x).flatten(2).transpose(1, 2)
        cls_token = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls_token, x), dim=1)
        return self.pos_drop(x + self.pos_embed)


def get_inputs():
    return [torch.randn(batch, in_chans, img_size, img_size, dtype=dtype)]


def get_init_inputs():
    return [img_size, patch_size, in_chans, embed_dim]
