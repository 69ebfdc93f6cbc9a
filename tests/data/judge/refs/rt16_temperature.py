"""Red team 16 (2026-12-04, a3): a softmax with a temperature attribute that a trainer anneals
(``model.temperature = 0.5``), trained; (B, N) rows of 32."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, temperature: float):
        super().__init__()
        self.temperature = temperature

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x / self.temperature, dim=-1)


def get_inputs():
    return [torch.randn(8, 32)]


def get_init_inputs():
    return [2.0]
