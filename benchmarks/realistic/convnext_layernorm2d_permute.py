"""LayerNorm over channels of an NCHW tensor by permute, F.layer_norm, permute back (ConvNeXt/timm LayerNorm2d style), fp32."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, channels, size = 16, 256, 56
SMALL_SIZES = {"batch": 2, "channels": 8, "size": 5}


class LayerNorm2d(nn.LayerNorm):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.norm = LayerNorm2d(channels, eps=1e-6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch, channels, size, size)]


def get_init_inputs():
    return [channels]
