"""Diffusion UNet ResNet block without time embedding in fp16: (GroupNorm, SiLU, conv3x3) twice, dropout(p=0), identity skip."""
import torch
import torch.nn as nn

batch, channels, size = 8, 128, 32
dtype = torch.float16
SMALL_SIZES = {"batch": 2, "channels": 64, "size": 4}


class Model(nn.Module):
    def __init__(self, channels: int, groups: int = 32):
        super().__init__()
        self.norm1 = nn.GroupNorm(groups, channels, eps=1e-6)
        self.conv1 = nn.Conv2d(channels, channels, kernel_size=3, stride=1, padding=1)
        self.norm2 = nn.GroupNorm(groups, channels, eps=1e-6)
        self.dropout = nn.Dropout(0.0)
        self.conv2 = nn.Conv2d(channels, channels, kernel_size=3, stride=1, padding=1)
        self.nonlinearity = nn.SiLU()
        self.to(dtype)

    def forward(self, input_tensor: torch.Tensor) -> torch.Tensor:
        hidden_states = self.nonlinearity(self.norm1(input_tensor))
        hidden_states = self.conv1(hidden_states)
        hidden_states = self.nonlinearity(self.norm2(hidden_states))
        hidden_states = self.dropout(hidden_states)
        hidden_states = self.conv2(hidden_states)
        return input_tensor + hidden_states


def get_inputs():
    return [torch.randn(batch, channels, size, size, dtype=dtype)]


def get_init_inputs():
    return [channels]
