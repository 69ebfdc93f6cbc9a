"""nn.* activation modules with non-default parameters, applied in sequence and summed."""
import torch
import torch.nn as nn

rows, cols = 29, 67


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gelu = nn.GELU(approximate="tanh")
        self.leaky = nn.LeakyReLU(0.2)
        self.softplus = nn.Softplus(beta=2, threshold=10)
        self.hardtanh = nn.Hardtanh(-2, 2)
        self.elu = nn.ELU(0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 4.0       # reach the thresholds of softplus and hardtanh
        return self.gelu(x) + self.leaky(x) + self.softplus(x) + self.hardtanh(x) + self.elu(x)


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
