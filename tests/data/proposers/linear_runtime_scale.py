"""A linear layer whose epilogue takes a float passed to forward (the GEMM plans take it by value)."""
import torch
import torch.nn as nn

batch, features, outputs = 12, 40, 24


class Model(nn.Module):
    def __init__(self, features: int, outputs: int):
        super().__init__()
        self.fc = nn.Linear(features, outputs)

    def forward(self, x: torch.Tensor, alpha: float) -> torch.Tensor:
        return torch.relu(self.fc(x)) * alpha - alpha


def get_inputs():
    return [torch.randn(batch, features), 1.5]


def get_init_inputs():
    return [features, outputs]
