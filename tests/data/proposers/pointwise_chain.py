"""A long chain of pointwise ops on one (37, 53) tensor: every built-in pointwise template in one kernel."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size, features = 37, 53


class Model(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        a = x + y
        a = a * self.scale
        a = a - y
        a = a / 3.0
        r = torch.relu(a)
        g = F.gelu(a) + F.gelu(a, approximate="tanh")
        s = F.silu(a) * torch.sigmoid(a) + torch.tanh(a)
        m = F.mish(a) - F.hardswish(a)
        h = F.hardtanh(a, -0.5, 0.5) + F.leaky_relu(a, 0.1)
        p = F.softplus(a) + F.elu(a) + F.selu(a)
        c = torch.clamp(a, -0.3, 0.7)
        t = torch.max(torch.min(a, y), x)
        w = torch.where(x > 0, a, y)
        q = a ** 2
        e = torch.exp(-torch.abs(a)) + torch.log(torch.abs(a) + 1.0)
        out = r + g + s + m + h + p + c + t + w + q + e
        return -out


def get_inputs():
    return [torch.randn(batch_size, features), torch.randn(batch_size, features)]


def get_init_inputs():
    return [1.5]
